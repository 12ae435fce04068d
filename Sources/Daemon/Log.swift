import FoundationEssentials
import Glibc
import Logging

/// Log lines for journald and terminals: `<N>message key=value …` on stderr, where `<N>` is the
/// syslog priority journald reads from a service's output (SyslogLevelPrefix=yes, its default).
/// Messages are constant; everything variable is metadata.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        let priority: Int
        switch level {
        case .trace, .debug: priority = 7
        case .info: priority = 6
        case .notice: priority = 5
        case .warning: priority = 4
        case .error: priority = 3
        case .critical: priority = 2
        }
        let text = Self.line(priority: priority, message: "\(message)", metadata: metadata.merging(explicit ?? [:]) { $1 })
        writeStandardError(text + "\n")
    }

    /// `<N>message key=value key="a value"`: one line whatever the values hold (a config string
    /// with a newline must not start a second journal entry).
    static func line(priority: Int, message: String, metadata: Logger.Metadata) -> String {
        var text = "<\(priority)>\(message)"
        for key in metadata.keys.sorted() { text += " \(key)=" + quoted("\(metadata[key]!)") }
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

/// Writes to stderr with write(2), ignoring failures: Foundation's `FileHandle.write` traps on
/// EPIPE, and a log reader that went away must never stop the clock.
public func writeStandardError(_ text: String) { writeAll(2, text) }

/// Writes all of `text` to `fd` with write(2) (retrying short writes and EINTR), ignoring failures.
public func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n > 0 {
            offset += n
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}
