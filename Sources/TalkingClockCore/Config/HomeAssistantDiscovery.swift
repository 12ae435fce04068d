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

    /// Where the origin (`o.url`) points: the project's home, for "support" links in Home Assistant.
    public static let supportURL = "https://github.com/talking-clock/talking-clock"

    /// What the `event` entity reports (`evt_typ`): each `AnnouncementEvent.Kind`.
    public static let eventTypes = AnnouncementEvent.Kind.allCases.map(\.rawValue)


    public struct Device: Codable, Equatable, Sendable {
        public var ids: [String]
        public var name: String
        public var mf: String
        public var mdl: String
        public var sw: String
        /// `suggested_area`: the room, in words ("living_room" → "Living room").
        public var sa: String?
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
        /// `event_types` of an `event` entity.
        public var evt_typ: [String]?
        /// `json_attributes_topic` / `json_attributes_template`: state attributes.
        public var json_attr_t: String?
        public var json_attr_tpl: String?

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

    /// `living_room` → "Living room": the room as Home Assistant shows an area; nil when the
    /// room has no letter or digit (`-`, `__`: Home Assistant would get a blank area), and then
    /// no `suggested_area` is sent.
    public static func area(room: String) -> String? {
        let words = room.split(whereSeparator: { $0 == "_" || $0 == "-" }).joined(separator: " ")
        guard !words.isEmpty else { return nil }
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// The state attributes every controlling entity carries, read from the state topic: when a
    /// mute ends, the quiet-hours rule now, whether it is speaking, and how the last announcement
    /// ended. `get` so that a key the state lacks is an empty attribute, not a template error.
    public static let attributesTemplate =
        "{{ {'mute': value_json.get('mute'), 'mute_until': value_json.get('mute_until'), "
        + "'quiet': value_json.get('quiet'), 'playing': value_json.get('playing'), "
        + "'last_outcome': (value_json.last.result if value_json.get('last') else none), "
        + "'last_boundary': (value_json.last.boundary if value_json.get('last') else none)} | tojson }}"

    /// The payload for one room. `topic` is the `[mqtt]` topic prefix. `chimes`: the chime styles
    /// the loaded pack can ring (the select offers only those, so Home Assistant cannot pick one the
    /// daemon would refuse); nil offers every style.
    ///
    /// `reminders`: the room has reminders or away ranges (the away switch and the next-reminder
    /// sensor are offered); `speak`: it can say new words (its pack names its synthesis engine, or
    /// words go to speech-dispatcher), so the notify entities are offered.
    public static func payload(
        config: MQTTConfig, room: String, version: String, chimes: [String]? = nil, reminders: Bool = false, speak: Bool = false
    ) -> Payload {
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

        // The controls come from the command table: each row that Home Assistant exposes.
        var controls: [String: Component] = [:]
        for row in ControlCommand.all {
            guard let control = row.homeAssistant else { continue }
            if row.word == "away" && !reminders { continue }
            if case .notify = control, !speak { continue }
            switch control {
            case .button(let key, let name, let icon):
                var c = entity(key, "button", name)
                c.icon = icon
                c.cmd_t = command
                c.pl_prs = row.syntax
                controls[key] = c
            case .switchOn(let key, let name, let icon, let stateTemplate):
                var c = controls[key] ?? entity(key, "switch", name)
                c.name = name
                c.icon = icon
                c.cmd_t = command
                c.pl_on = row.syntax
                c.stat_t = state
                c.val_tpl = stateTemplate
                c.stat_on = "ON"
                c.stat_off = "OFF"
                c.json_attr_t = state
                c.json_attr_tpl = attributesTemplate
                controls[key] = c
            case .switchOff(let key):
                var c = controls[key] ?? entity(key, "switch", key)
                c.pl_off = row.syntax
                controls[key] = c
            case .number(let key, let name, let icon, let commandTemplate, let stateTemplate, let range):
                var c = entity(key, "number", name)
                c.icon = icon
                c.cmd_t = command
                c.cmd_tpl = commandTemplate
                c.stat_t = state
                c.val_tpl = stateTemplate
                c.min = range.min
                c.max = range.max
                c.step = range.step
                c.mode = range.mode
                c.unit_of_meas = range.unit
                if range.isSetting { c.ent_cat = "config" }
                controls[key] = c
            case .select(let key, let name, let icon, let commandTemplate, let stateTemplate):
                var c = entity(key, "select", name)
                c.icon = icon
                c.cmd_t = command
                c.cmd_tpl = commandTemplate
                c.options = chimes.map { offered in chimeOptions.filter { offered.contains($0) } } ?? chimeOptions
                c.stat_t = state
                c.val_tpl = stateTemplate
                c.ent_cat = "config"
                controls[key] = c
            case .notify(let key, let name, let icon, let commandTemplate, let everyRoom):
                // notify.send_message(message) publishes `command` rendered with the message as
                // `value`: one room's command topic, or every room's (one instant for all).
                var c = entity(key, "notify", name)
                c.icon = icon
                c.cmd_t = everyRoom ? "\(config.topic)/\(MQTTConfig.allRooms)/command" : command
                c.cmd_tpl = commandTemplate
                controls[key] = c
            }
        }

        var next = entity("next", "sensor", "Next announcement")
        next.dev_cla = "timestamp"
        next.stat_t = state
        // "None" is how an MQTT sensor's template says "unknown" (no boundary armed).
        next.val_tpl = "{{ value_json.next.at if value_json.next else None }}"

        // The next reminder: its instant (a timestamp) and, as attributes, its words.
        var reminder = entity("next_reminder", "sensor", "Next reminder")
        reminder.dev_cla = "timestamp"
        reminder.icon = "mdi:bell-alert-outline"
        reminder.stat_t = state
        reminder.val_tpl = "{{ value_json.next_reminder.at if value_json.get('next_reminder') else None }}"
        reminder.json_attr_t = state
        reminder.json_attr_tpl =
            "{{ {'text': (value_json.next_reminder.text if value_json.get('next_reminder') else none), "
            + "'away': value_json.get('away')} | tojson }}"

        var onset = entity("onset_error", "sensor", "Last onset error")
        onset.icon = "mdi:timer-outline"
        onset.ent_cat = "diagnostic"
        onset.unit_of_meas = "ms"
        onset.stat_cla = "measurement"
        onset.stat_t = state
        onset.val_tpl =
            "{{ value_json.last.onset_error_ms if value_json.last and value_json.last.onset_error_ms is not none else None }}"

        // Every announcement's outcome, as it happens: `AnnouncementEvent.json` carries `event_type`
        // and, as the event's attributes, the boundary, the words, the reason and the onset error.
        var announced = entity("announcement", "event", "Announcement")
        announced.icon = "mdi:clock-outline"
        announced.stat_t = "\(base)/event"
        announced.evt_typ = eventTypes
        announced.json_attr_t = state
        announced.json_attr_tpl = attributesTemplate

        // The daemon's answer to the last command (`ok …` or `error <kind>: …`): a refused command
        // (a chime the pack cannot ring, a volume out of range) is visible, not silently ignored.
        // A sensor's state holds at most 255 characters.
        var reply = entity("reply", "sensor", "Last reply")
        reply.icon = "mdi:message-reply-text-outline"
        reply.ent_cat = "diagnostic"
        reply.stat_t = "\(base)/reply"
        reply.val_tpl = "{{ value[:255] }}"

        var sensors = ["next": next, "onset_error": onset, "announcement": announced, "reply": reply]
        if reminders { sensors["next_reminder"] = reminder }
        return Payload(
            dev: Device(
                ids: [id], name: "Talking clock \(room)", mf: "talking-clock", mdl: "talking-clock daemon", sw: version,
                sa: area(room: room)),
            o: Origin(name: "talking-clock", sw: version, url: supportURL),
            avty_t: "\(base)/availability",
            qos: 1,
            cmps: controls.merging(sensors) { a, _ in a })
    }
}
