import JSON
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Home Assistant MQTT *device-based* discovery: one retained message on
/// `<discovery-prefix>/device/talking_clock_<room>/config` describing the room as one device with
/// its entities (components), in the abbreviated keys Home Assistant documents (`dev`, `o`,
/// `cmps`, `p`, `uniq_id`, `cmd_t`, `stat_t`, `val_tpl`, …). A pure function of the `[mqtt]`
/// settings, the room and the version; encoded with `JSONEncoder`, never assembled from strings.
public enum HomeAssistantDiscovery {
    /// `talking_clock_<room>`: the device's object id and `ids` (the room is already
    /// `[a-zA-Z0-9_-]`, the character class Home Assistant allows in ids).
    public static func objectID(room: String) -> String { "talking_clock_\(room)" }

    /// `<discovery-prefix>/device/talking_clock_<room>/config`.
    public static func configTopic(prefix: String, room: String) -> String {
        "\(prefix)/device/\(objectID(room: room))/config"
    }

    /// Where Home Assistant publishes its birth (`online`) and will (`offline`).
    public static func statusTopic(prefix: String) -> String { "\(prefix)/status" }

    /// The chime styles, as the `select` offers them (the config's and the control protocol's words).
    public static let chimeOptions = ChimeStyle.allCases.map(\.rawValue)

    public struct Device: Codable, Equatable, Sendable {
        public var ids: [String]
        public var name: String
        public var mf: String
        public var mdl: String
        public var sw: String
    }

    public struct Origin: Codable, Equatable, Sendable {
        public var name: String
        public var sw: String
        public var url: String?
    }

    /// One entity. Keys that do not apply are left out (nil is not encoded).
    public struct Component: Codable, Equatable, Sendable {
        public var p: String
        public var name: String?
        public var uniq_id: String?
        public var icon: String?
        public var cmd_t: String?
        public var cmd_tpl: String?
        public var stat_t: String?
        public var val_tpl: String?
        public var pl_on: String?
        public var pl_off: String?
        public var stat_on: String?
        public var stat_off: String?
        public var pl_prs: String?
        public var options: [String]?
        public var min: Int?
        public var max: Int?
        public var step: Int?
        public var mode: String?
        public var dev_cla: String?
        public var stat_cla: String?
        public var ent_cat: String?
        public var unit_of_meas: String?

        public init(p: String) { self.p = p }
    }

    public struct Payload: Codable, Equatable, Sendable {
        public var dev: Device
        public var o: Origin
        /// Shared by every component; `online` / `offline` are Home Assistant's defaults.
        public var avty_t: String
        public var qos: Int
        public var cmps: [String: Component]

        public var json: String { ReportJSON.encode(self) }
    }

    /// The payload for one room. `topic` is the `[mqtt]` topic prefix.
    public static func payload(config: MQTTConfig, room: String, version: String) -> Payload {
        let id = objectID(room: room)
        let base = "\(config.topic)/\(room)"
        let command = "\(base)/command"
        let state = "\(base)/state"
        func entity(_ key: String, _ platform: String, _ name: String) -> Component {
            var c = Component(p: platform)
            c.name = name
            c.uniq_id = "\(id)_\(key)"
            return c
        }

        var mute = entity("mute", "switch", "Mute")
        mute.icon = "mdi:volume-off"
        mute.cmd_t = command
        mute.pl_on = "mute"
        mute.pl_off = "unmute"
        mute.stat_t = state
        mute.val_tpl = "{{ 'ON' if value_json.muted else 'OFF' }}"
        mute.stat_on = "ON"
        mute.stat_off = "OFF"

        var say = entity("say", "button", "Say the time")
        say.icon = "mdi:account-voice"
        say.cmd_t = command
        say.pl_prs = "say"

        var chime = entity("chime", "select", "Chime")
        chime.icon = "mdi:bell-ring"
        chime.cmd_t = command
        chime.cmd_tpl = "chime {{ value }}"
        chime.options = chimeOptions
        chime.stat_t = state
        chime.val_tpl = "{{ value_json.chime }}"

        var volume = entity("volume", "number", "Volume")
        volume.icon = "mdi:volume-high"
        volume.cmd_t = command
        volume.cmd_tpl = "volume {{ value | int }}"
        volume.stat_t = state
        volume.val_tpl = "{{ value_json.volume }}"
        volume.min = 0
        volume.max = 100
        volume.step = 1
        volume.mode = "slider"
        volume.unit_of_meas = "%"

        var next = entity("next", "sensor", "Next announcement")
        next.dev_cla = "timestamp"
        next.stat_t = state
        // "None" is how an MQTT sensor's template says "unknown" (no boundary armed).
        next.val_tpl = "{{ value_json.next.at if value_json.next else None }}"

        var onset = entity("onset_error", "sensor", "Last onset error")
        onset.icon = "mdi:timer-outline"
        onset.ent_cat = "diagnostic"
        onset.unit_of_meas = "ms"
        onset.stat_cla = "measurement"
        onset.stat_t = state
        onset.val_tpl =
            "{{ value_json.last.onset_error_ms if value_json.last and value_json.last.onset_error_ms is not none else None }}"

        return Payload(
            dev: Device(ids: [id], name: "Talking clock \(room)", mf: "talking-clock", mdl: "talking-clock daemon", sw: version),
            o: Origin(name: "talking-clock", sw: version, url: nil),
            avty_t: "\(base)/availability",
            qos: 1,
            cmps: ["mute": mute, "say": say, "chime": chime, "volume": volume, "next": next, "onset_error": onset])
    }
}
