import Foundation
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
        var text = "<\(priority)>\(message)"
        let all = metadata.merging(explicit ?? [:]) { $1 }
        for key in all.keys.sorted() {
            let value = "\(all[key]!)"
            text += value.contains(" ") || value.isEmpty ? " \(key)=\"\(value)\"" : " \(key)=\(value)"
        }
        writeStandardError(text + "\n")
    }
}

/// Writes to stderr with write(2), ignoring failures: Foundation's `FileHandle.write` traps on
/// EPIPE, and a log reader that went away must never stop the clock.
public func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
        if n > 0 {
            offset += n
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}
