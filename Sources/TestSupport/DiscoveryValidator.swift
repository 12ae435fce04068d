import Foundation

/// Checks a Home Assistant *device-based* MQTT discovery payload (parsed JSON) against the keys
/// Home Assistant's documentation requires, as summarised in `/work/shared/HOME-AUTOMATION.md`
/// ("MQTT discovery conventions"), whose source is
/// `home-assistant/home-assistant.io:source/_integrations/mqtt.markdown` and the platform pages
/// (`button.mqtt.markdown`, `select.mqtt.markdown`, …). Returns the problems; empty means valid.
///
/// Only abbreviated keys are accepted here because that is what the clock sends (both forms are
/// valid for Home Assistant).
public enum DiscoveryValidator {
    /// One requirement and where it comes from.
    public struct Rule: Sendable {
        public var what: String
        public var source: String
    }

    /// The requirements checked, in order (also the documentation of this validator).
    public static let rules: [Rule] = [
        Rule(what: "root `dev` (device) is an object with `ids`", source: "mqtt.markdown, device-based discovery: the root payload must include device (dev)"),
        Rule(what: "root `o` (origin) is an object with `name`", source: "mqtt.markdown, device-based discovery: the root payload must include origin (o: name, sw, url)"),
        Rule(what: "root `cmps` (components) is a non-empty object", source: "mqtt.markdown, device-based discovery: components go under components (cmps)"),
        Rule(what: "every component has `p` (platform), one of the MQTT platforms that support discovery", source: "mqtt.markdown: each component needs platform (p); the list of platforms"),
        Rule(what: "every entity component has `uniq_id`", source: "mqtt.markdown: entity components need unique_id"),
        Rule(what: "switch, button, select, number and notify have `cmd_t`", source: "switch/button/select/number/notify.mqtt.markdown: command_topic (required for select and notify)"),
        Rule(what: "notify has no `stat_t` (it only sends)", source: "notify.mqtt.markdown: the notify entity publishes the message on command_topic, rendered by command_template with the message as `value`; it has no state"),
        Rule(what: "select has `options`, a non-empty list of strings", source: "select.mqtt.markdown: options (required list)"),
        Rule(what: "event has `stat_t` and `evt_typ`, a non-empty list of strings", source: "event.mqtt.markdown: state_topic and event_types (required)"),
        Rule(what: "number `min` <= `max`, `step` > 0 when given", source: "number.mqtt.markdown"),
        Rule(what: "a sensor with `dev_cla: timestamp` is the timestamp sensor; one must exist", source: "HA sensor device classes: timestamp = ISO 8601 string"),
        Rule(what: "`ent_cat` is `config` or `diagnostic` when given", source: "HOME-AUTOMATION.md, entity_category values"),
        Rule(what: "ids (`dev.ids`, component keys, `uniq_id`) match [a-zA-Z0-9_-]", source: "mqtt.markdown: IDs use the character class [a-zA-Z0-9_-]"),
        Rule(what: "topics (`avty_t`, `cmd_t`, `stat_t`) are non-empty with no `+` or `#`", source: "MQTT: a publish/subscribe topic name has no wildcards"),
    ]

    /// The platforms listed as supporting discovery (mqtt.markdown).
    public static let platforms: Set<String> = [
        "alarm_control_panel", "binary_sensor", "button", "camera", "cover", "device_tracker", "event", "fan",
        "humidifier", "image", "climate", "lawn_mower", "light", "lock", "notify", "number", "scene", "select",
        "sensor", "siren", "switch", "text", "update", "vacuum", "valve", "water_heater",
    ]
    /// Platforms whose entities are commanded and need a command topic.
    public static let commanded: Set<String> = ["switch", "button", "select", "number", "notify"]

    public static func isID(_ s: String) -> Bool {
        !s.isEmpty && s.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }
    }

    static func isTopic(_ s: Any?) -> Bool {
        guard let s = s as? String else { return false }
        return !s.isEmpty && !s.contains("+") && !s.contains("#")
    }

    public static func problems(_ payload: [String: Any]) -> [String] {
        var out: [String] = []
        if let dev = payload["dev"] as? [String: Any] {
            let ids: [String] = (dev["ids"] as? [String]) ?? ((dev["ids"] as? String).map { [$0] } ?? [])
            if ids.isEmpty { out.append("dev.ids is missing or empty") }
            for id in ids where !isID(id) { out.append("dev.ids '\(id)' is not [a-zA-Z0-9_-]") }
        } else {
            out.append("the root has no `dev` object")
        }
        if let o = payload["o"] as? [String: Any] {
            if (o["name"] as? String)?.isEmpty ?? true { out.append("o.name is missing") }
        } else {
            out.append("the root has no `o` object")
        }
        if let t = payload["avty_t"], !isTopic(t) { out.append("avty_t is not a topic") }
        guard let cmps = payload["cmps"] as? [String: Any], !cmps.isEmpty else {
            out.append("the root has no non-empty `cmps` object")
            return out
        }
        var timestamp = false
        for (key, value) in cmps.sorted(by: { $0.key < $1.key }) {
            if !isID(key) { out.append("component key '\(key)' is not [a-zA-Z0-9_-]") }
            guard let c = value as? [String: Any] else {
                out.append("component \(key) is not an object")
                continue
            }
            guard let p = c["p"] as? String else {
                out.append("component \(key) has no `p`")
                continue
            }
            if !platforms.contains(p) { out.append("component \(key): '\(p)' is not a discoverable platform") }
            // A component that is only `{"p": …}` is a removal, not an entity.
            let isRemoval = c.count == 1
            if !isRemoval {
                if let u = c["uniq_id"] as? String {
                    if !isID(u) { out.append("component \(key): uniq_id '\(u)' is not [a-zA-Z0-9_-]") }
                } else {
                    out.append("component \(key) (\(p)) has no `uniq_id`")
                }
                if commanded.contains(p) && !isTopic(c["cmd_t"]) { out.append("component \(key) (\(p)) has no `cmd_t`") }
            }
            for k in ["cmd_t", "stat_t", "avty_t"] where c[k] != nil && !isTopic(c[k]) {
                out.append("component \(key): \(k) is not a topic")
            }
            if p == "notify", c["stat_t"] != nil { out.append("component \(key) (notify) has a `stat_t`; a notify entity only sends") }
            if p == "select" {
                let options = c["options"] as? [String] ?? []
                if options.isEmpty { out.append("component \(key) (select) has no `options` list") }
            }
            if p == "event" {
                if !isTopic(c["stat_t"]) { out.append("component \(key) (event) has no `stat_t`") }
                if (c["evt_typ"] as? [String] ?? []).isEmpty { out.append("component \(key) (event) has no `evt_typ` list") }
            }
            if p == "number" {
                let min = (c["min"] as? NSNumber)?.doubleValue ?? 1
                let max = (c["max"] as? NSNumber)?.doubleValue ?? 100
                if min > max { out.append("component \(key) (number): min > max") }
                if let step = (c["step"] as? NSNumber)?.doubleValue, step <= 0 { out.append("component \(key) (number): step <= 0") }
            }
            if p == "sensor", c["dev_cla"] as? String == "timestamp" { timestamp = true }
            if let cat = c["ent_cat"], !["config", "diagnostic"].contains(cat as? String ?? "") {
                out.append("component \(key): ent_cat must be config or diagnostic")
            }
        }
        if !timestamp { out.append("no sensor has `dev_cla: timestamp`") }
        return out
    }

    /// Parses `json` and validates it; a parse failure is a problem too.
    public static func problems(json: String) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return ["the payload is not a JSON object: \(json.prefix(200))"]
        }
        return problems(object)
    }
}
