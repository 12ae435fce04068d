import TOML
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `[mqtt]` table: where the broker is and what this clock is called on it. Only the values;
/// reading the password file, resolving the host name and connecting happen in the daemon.
public struct MQTTConfig: Hashable, Sendable {
    /// `mqtts://`: TLS, the broker's certificate verified against `caFile`.
    public var tls: Bool
    public var host: String
    public var port: Int
    /// `[a-zA-Z0-9_-]`; nil: the host name (resolved by the daemon, refused there if it has
    /// other characters).
    public var room: String?
    /// The first level of every topic.
    public var topic = "talking-clock"
    public var username: String?
    /// As written (a relative path is relative to the config file's folder).
    public var passwordFile: String?
    /// "FILE: line N" of `password-file`, for the daemon's errors about the file.
    public var passwordFileOrigin: String?
    /// With `mqtts://`; nil: the system's CA bundle.
    public var caFile: String?
    /// Seconds between pings while idle. Each ping costs 2 wake-ups (the timer, then the
    /// PINGRESP), so 360 s makes 20 an hour: within 3600/keepalive + 10 and within the 22 an
    /// hour a 300 s keepalive is allowed.
    public var keepalive = MQTTConfig.defaultKeepalive
    public var discovery = true
    public var discoveryPrefix = "homeassistant"

    public static let defaultKeepalive = 360
    public static let keys = [
        "broker", "room", "topic", "username", "password-file", "ca-file", "keepalive", "discovery",
        "discovery-prefix",
    ]
    /// The room name that addresses every clock (`<topic>/all/command`): no clock may take it.
    public static let allRooms = "all"

    public init(tls: Bool = false, host: String, port: Int? = nil) {
        self.tls = tls
        self.host = host
        self.port = port ?? (tls ? 8883 : 1883)
    }

    /// Whether `name` may be a room: 1 to 64 of `[a-zA-Z0-9_-]`, and not "all".
    public static func isValidRoom(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name != allRooms
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }

    /// Why `name` cannot be a room (the end of a sentence), or nil when it can.
    public static func roomProblem(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name == allRooms { return "\"all\" addresses every room at once (<topic>/all/command), so no clock may take it" }
        if name.count > 64 { return "it is \(name.count) characters long; a room has at most 64" }
        if !isValidRoom(name) {
            return "a room has only letters, digits, '_' and '-' (it is one level of an MQTT topic)"
        }
        return nil
    }

    /// The room of a clock whose `[mqtt]` table names none: the host name up to its first dot.
    /// `.failure` holds the sentence for the log and the exit, naming the host name, why it cannot
    /// be a room and the fix (a host called "all", "kitchen.local" → "kitchen").
    public static func room(fromHostName host: String) -> Result<String, RoomNameError> {
        let short = String(host.split(separator: ".", omittingEmptySubsequences: false).first ?? "")
        if let why = roomProblem(short) {
            let shown = short == host ? "\"\(host)\"" : "\"\(host)\" (its first part, \"\(short)\")"
            return .failure(
                RoomNameError(
                    description:
                        "the host name \(shown) cannot be the MQTT room: \(why); set room = \"kitchen\" (for example) in [mqtt]."))
        }
        return .success(short)
    }

    public struct RoomNameError: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// `mqtt://host[:port]` or `mqtts://host[:port]`; nil if it is not one.
    public static func parseBroker(_ text: String) -> (tls: Bool, host: String, port: Int?)? {
        let tls: Bool
        var rest: Substring
        if text.hasPrefix("mqtt://") {
            tls = false
            rest = text.dropFirst(7)
        } else if text.hasPrefix("mqtts://") {
            tls = true
            rest = text.dropFirst(8)
        } else {
            return nil
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var host = rest
        var port: Int?
        if rest.hasPrefix("[") {  // [::1]:1883
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()) else { return nil }
                port = p
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let p = Int(rest[rest.index(after: colon)...]) else { return nil }
            port = p
        }
        if let port, !(1...65535).contains(port) { return nil }
        guard !host.isEmpty, !host.contains(where: { "/@?# ".contains($0) }) else { return nil }
        return (tls, String(host), port)
    }
}

extension ConfigReader {
    static let mqttSection = "[mqtt]"

    func mqtt(_ entry: TOMLTable.Entry) throws(ConfigError) -> MQTTConfig {
        let section = Self.mqttSection
        guard case .table(let table) = entry.value else {
            throw fail(
                entry,
                "'mqtt' must be a table: write [mqtt] on a line of its own with broker = \"mqtt://host:1883\" "
                    + "under it, not \(entry.value.userDescription).")
        }
        var broker: (tls: Bool, host: String, port: Int?)?
        var brokerEntry: TOMLTable.Entry?
        var room: String?
        var topic: String?
        var username: String?
        var passwordFile: (String, TOMLTable.Entry)?
        var caFile: (String, TOMLTable.Entry)?
        var keepalive: Int?
        var discovery: Bool?
        var prefix: String?
        for e in table.entries {
            switch e.key {
            case "broker":
                let text = try string(e, "a broker address such as \"mqtt://localhost:1883\"", section: section)
                guard let parsed = MQTTConfig.parseBroker(text) else {
                    throw fail(
                        e, key: "mqtt.broker",
                        "'broker' in \(section) must be mqtt://HOST:PORT or mqtts://HOST:PORT (TLS), such as "
                            + "\"mqtt://localhost:1883\", not \(TOMLValue.quoted(text)).")
                }
                broker = parsed
                brokerEntry = e
            case "room":
                let text = try string(e, "a room name such as \"kitchen\"", section: section)
                guard MQTTConfig.isValidRoom(text) else {
                    throw fail(
                        e, key: "mqtt.room",
                        "'room' in \(section) must be 1 to 64 letters, digits, '_' or '-' (it is a topic level), "
                            + "and not \"all\" (that addresses every room), not \(TOMLValue.quoted(text)).")
                }
                room = text
            case "topic":
                let text = try string(e, "a topic prefix such as \"talking-clock\"", section: section)
                let levels = text.split(separator: "/", omittingEmptySubsequences: false)
                guard !text.isEmpty, !text.contains(where: { "+#\0".contains($0) }), !levels.contains(where: \.isEmpty)
                else {
                    throw fail(
                        e, key: "mqtt.topic",
                        "'topic' in \(section) must be a topic prefix such as \"talking-clock\" or \"home/clocks\": "
                            + "no '+' or '#', no empty level, no leading or trailing '/', not \(TOMLValue.quoted(text)).")
                }
                // `$SYS/…` is the broker's own tree (MQTT 3.1.1 §4.7.2): clients may not publish
                // there, and subscriptions to `+/…` do not see it, so nothing would arrive.
                guard !text.hasPrefix("$") else {
                    throw fail(
                        e, key: "mqtt.topic",
                        "'topic' in \(section) must not start with '$' (\(TOMLValue.quoted(text))): topics beginning "
                            + "with '$', such as $SYS, belong to the broker; use a prefix such as \"talking-clock\".")
                }
                topic = text
            case "username":
                let text = try string(e, "the user name the broker knows this clock by", section: section)
                guard !text.isEmpty else {
                    throw fail(e, key: "mqtt.username", "'username' in \(section) is empty; give one, or remove the line.")
                }
                username = text
            case "password-file":
                let text = try string(e, "the path of a file holding the password", section: section)
                guard !text.isEmpty else {
                    throw fail(e, key: "mqtt.password-file", "'password-file' in \(section) is empty; give a path, or remove the line.")
                }
                passwordFile = (text, e)
            case "password":
                throw fail(
                    e, key: "mqtt.password",
                    "a password is never written in the config; put it alone in a file only you can read "
                        + "(chmod 600) and give its path as password-file = \"…\".")
            case "ca-file":
                let text = try string(e, "the path of the CA certificate that signed the broker's", section: section)
                guard !text.isEmpty else {
                    throw fail(e, key: "mqtt.ca-file", "'ca-file' in \(section) is empty; give a path, or remove the line.")
                }
                caFile = (text, e)
            case "keepalive":
                guard case .integer(let v) = e.value, (30...3600).contains(v) else {
                    throw fail(
                        e, key: "mqtt.keepalive",
                        "'keepalive' in \(section) must be a whole number of seconds from 30 to 3600 (default "
                            + "\(MQTTConfig.defaultKeepalive)), not \(e.value.userDescription).")
                }
                keepalive = Int(v)
            case "discovery":
                discovery = try bool(e)
            case "discovery-prefix":
                let text = try string(e, "a topic prefix such as \"homeassistant\"", section: section)
                let levels = text.split(separator: "/", omittingEmptySubsequences: false)
                guard !text.isEmpty, !text.contains(where: { "+#\0".contains($0) }), !levels.contains(where: \.isEmpty),
                    !text.hasPrefix("$")
                else {
                    throw fail(
                        e, key: "mqtt.discovery-prefix",
                        "'discovery-prefix' in \(section) must be a topic prefix such as \"homeassistant\" (Home "
                            + "Assistant's default): no '+' or '#', no empty level, no leading or trailing '/', not "
                            + "starting with '$', not \(TOMLValue.quoted(text)).")
                }
                prefix = text
            default:
                throw unknownKey(e, known: MQTTConfig.keys, section: section)
            }
        }
        guard let broker, let brokerEntry else {
            throw ConfigError(
                source: source, line: table.position.line, key: "mqtt.broker",
                message: "the \(section) table has no 'broker'; add one such as broker = \"mqtt://localhost:1883\", "
                    + "or remove the table to run without MQTT.")
        }
        var config = MQTTConfig(tls: broker.tls, host: broker.host, port: broker.port)
        config.room = room
        config.topic = topic ?? config.topic
        config.username = username
        if let (path, e) = passwordFile {
            guard username != nil else {
                throw fail(
                    e, key: "mqtt.password-file",
                    "'password-file' in \(section) needs a 'username' in the same table; add username = \"…\".")
            }
            config.passwordFile = path
            config.passwordFileOrigin = "\(source): line \(e.position.line)"
        }
        if let (path, e) = caFile {
            guard broker.tls else {
                throw fail(
                    e, key: "mqtt.ca-file",
                    "'ca-file' in \(section) is for TLS, but the broker (line \(brokerEntry.position.line)) is "
                        + "mqtt://; write mqtts://HOST:8883, or remove 'ca-file'.")
            }
            config.caFile = path
        }
        config.keepalive = keepalive ?? config.keepalive
        config.discovery = discovery ?? config.discovery
        config.discoveryPrefix = prefix ?? config.discoveryPrefix
        return config
    }
}
