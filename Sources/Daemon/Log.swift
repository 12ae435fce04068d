import EventLoop
import FoundationEssentials
import Glibc

/// The daemon's log: one line per record on stderr, `<N>message key=value …`, where `<N>` is the
/// syslog priority journald reads from a service's output (SyslogLevelPrefix=yes, its default).
/// Messages are constant; everything variable is metadata, as in swift-log's guidance. (It replaced
/// swift-log, whose only user the daemon was, with this one handler: 0.18 MB less binary.)
public struct JournalLog: Sendable {
    /// The syslog priority of each level.
    public enum Level: Int, Sendable {
        case critical = 2, error = 3, warning = 4, notice = 5, info = 6
    }

    public typealias Metadata = [String: String]

    public init() {}

    public func log(level: Level, _ message: String, metadata: Metadata = [:]) {
        writeStandardError(Self.line(priority: level.rawValue, message: message, metadata: metadata) + "\n")
    }

    public func critical(_ message: String, metadata: Metadata = [:]) { log(level: .critical, message, metadata: metadata) }
    public func error(_ message: String, metadata: Metadata = [:]) { log(level: .error, message, metadata: metadata) }
    public func warning(_ message: String, metadata: Metadata = [:]) { log(level: .warning, message, metadata: metadata) }
    public func notice(_ message: String, metadata: Metadata = [:]) { log(level: .notice, message, metadata: metadata) }
    public func info(_ message: String, metadata: Metadata = [:]) { log(level: .info, message, metadata: metadata) }

    /// `<N>message key=value key="a value"`: one line whatever the values hold (a config string
    /// with a newline must not start a second journal entry).
    static func line(priority: Int, message: String, metadata: Metadata) -> String {
        var text = "<\(priority)>\(message)"
        for key in metadata.keys.sorted() { text += " \(key)=" + quoted(metadata[key]!) }
        return text
    }

    /// The value as is when it is one plain word; otherwise in double quotes with `"` and `\`
    /// escaped and control characters written as `\n`, `\r`, `\t` or `\xNN`.
    static func quoted(_ value: String) -> String {
        let plain =
            !value.isEmpty
            && value.unicodeScalars.allSatisfy { $0.value > 0x20 && !needsEscape($0) && $0 != "\"" && $0 != "\\" }
        if plain { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(scalar):
                out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// C0 and C1 control characters and DEL.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
