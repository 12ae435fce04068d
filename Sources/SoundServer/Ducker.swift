import FoundationEssentials
import Glibc

/// Lowers other programs' streams while the clock speaks and puts each back exactly.
///
/// The volumes to restore are written to `stateFile` (JSON, fsynced) *before* any volume is
/// changed, and the file is removed once they are restored, so a clock killed mid-announcement
/// (kill -9, a crash, a power cut of the clock but not of the session) leaves the record behind
/// and `Ducker.repair(stateFile:)` at the next start puts the volumes back.
///
/// A stream whose volume is no longer the one the clock set (the user moved its slider meanwhile)
/// is left as the user set it. Blocking: call from a background thread, never the event loop.
public struct Ducker: Sendable {
    /// One ducked stream: what it was and what the clock made it.
    public struct Entry: Codable, Hashable, Sendable {
        public var index: UInt32
        public var application: String
        public var original: [UInt32]
        public var ducked: [UInt32]
    }

    /// The file's contents.
    public struct Record: Codable, Hashable, Sendable {
        /// The server the volumes belong to (`PULSE_SERVER`), nil for the default one.
        public var server: String?
        public var entries: [Entry]
    }

    public let stateFile: URL
    public let server: String?
    /// Seconds each exchange with the server may take.
    public let timeout: Double

    public init(stateFile: URL, server: String? = nil, timeout: Double = 0.5) {
        self.stateFile = stateFile
        self.server = server
        self.timeout = timeout
    }

    /// The name this program's own streams carry (`application.name`); never ducked.
    public static let ownApplicationName = "talking-clock"

    /// Lowers `streams` (sink input indices; nil: every playing sink input but a call's) to
    /// `percent` of their volume, except this process's own and other talking-clocks'. Returns the record written
    /// (no file when nothing was to be ducked).
    @discardableResult
    public func duck(streams wanted: [UInt32]?, percent: Int) throws -> Record {
        let ownPID = UInt32(getpid())
        let current = try SoundServer.streams(server: server, timeout: timeout)
        let targets = current.filter { stream in
            !stream.isRecording && !stream.volume.isEmpty && stream.pid != ownPID
                && stream.application != Self.ownApplicationName
                && (wanted.map { $0.contains(stream.index) } ?? (!stream.corked && !stream.isCall))
        }
        let scale = UInt64(max(0, min(100, percent)))
        let entries = targets.map { stream in
            Entry(
                index: stream.index, application: stream.application, original: stream.volume,
                ducked: stream.volume.map { UInt32(UInt64($0) * scale / 100) })
        }
        // The server by name, so a repair from another environment still finds it.
        let record = Record(server: server ?? ProcessInfo.processInfo.environment["PULSE_SERVER"], entries: entries)
        guard !entries.isEmpty else { return record }
        try Self.write(record, to: stateFile)
        try SoundServer.setVolumes(entries.map { ($0.index, $0.ducked) }, server: server, timeout: timeout)
        return record
    }

    /// Restores what `duck` (or a clock killed while ducking) lowered, and removes the record.
    /// Returns how many streams were put back. Nothing recorded: 0, and no server contact.
    @discardableResult
    public func restore() throws -> Int {
        try Self.repair(stateFile: stateFile, timeout: timeout)
    }

    /// Puts back the volumes recorded in `stateFile` for the streams that still exist under the
    /// same application with the volume the clock gave them, then removes the file. Call at the
    /// daemon's start (after a crash or kill -9 the file is still there) and after each
    /// announcement. If the server cannot be reached the file stays for the next try.
    @discardableResult
    public static func repair(stateFile: URL, timeout: Double = 0.5) throws -> Int {
        guard let data = try? Data(contentsOf: stateFile) else { return 0 }
        guard let record = try? JSONDecoder().decode(Record.self, from: data) else {
            // Unreadable (a torn write cannot happen: it is renamed into place): nothing to trust.
            try? FileManager.default.removeItem(at: stateFile)
            return 0
        }
        let current = try SoundServer.streams(server: record.server, timeout: timeout)
        let byIndex = Dictionary(current.filter { !$0.isRecording }.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        let back = record.entries.filter { entry in
            guard let now = byIndex[entry.index] else { return false }
            return now.application == entry.application && now.volume == entry.ducked
        }
        if !back.isEmpty {
            try SoundServer.setVolumes(back.map { ($0.index, $0.original) }, server: record.server, timeout: timeout)
        }
        try? FileManager.default.removeItem(at: stateFile)
        return back.count
    }

    /// Writes next to the target, fsyncs, renames: the record is on disk before any volume moves.
    static func write(_ record: Record, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(record)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid())")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SoundServer.Failure(
                description: "Could not write the ducking record \(temporary.path) (\(String(cString: strerror(errno)))); "
                    + "check that the state directory is writable.")
        }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == data.count, synced == 0, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw SoundServer.Failure(
                description: "Could not write the ducking record \(url.path); check the disk and the state directory.")
        }
    }
}
