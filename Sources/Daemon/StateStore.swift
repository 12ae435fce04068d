import ConfigFiles
import JSON
import FoundationEssentials
import Glibc
import PhraseGrammar
import TalkingClockCore

/// Saving the state failed; the previous state file (if any) is unchanged unless the message says
/// otherwise.
public struct StateStoreError: Error, CustomStringConvertible, Sendable {
    /// The state file.
    public var path: String
    /// What was being done, e.g. "creating the directory /home/u/.local/state/talking-clock".
    public var step: String
    public var code: Int32
    /// True when the new state did replace the old one but may not survive a power failure.
    public var replaced: Bool

    public init(path: String, step: String, code: Int32, replaced: Bool = false) {
        self.path = path
        self.step = step
        self.code = code
        self.replaced = replaced
    }

    public var description: String {
        let reason = String(cString: strerror(code))
        let hint: String
        switch code {
        case ENOSPC, EDQUOT: hint = " Free some disk space; talking-clock saves again at the next change."
        case EROFS: hint = " The file system is read-only; set XDG_STATE_HOME to a writable directory."
        case EACCES, EPERM:
            hint = " Check the owner and permissions of \(Format.parentDirectory(of: path))."
        case ENOTDIR, EEXIST:
            hint = " Part of the path is not a directory; move it away or set XDG_STATE_HOME to another directory."
        case EISDIR: hint = " \(path) is a directory; move it away (mv \(path) \(path).old)."
        default: hint = ""
        }
        if replaced {
            return "Saved the talking-clock state to \(path), but \(step) failed: \(reason); the new state may be "
                + "lost if the machine loses power now."
        }
        return "Could not save the talking-clock state to \(path): \(step) failed: \(reason). The previous state "
            + "is unchanged.\(hint)"
    }
}

/// Keeps `PersistentState` in `state.json` in one directory, crash-safely.
///
/// `save` never leaves a half-written file: it writes a temporary file in the same directory,
/// flushes it, renames it over `state.json` and flushes the directory, so after a crash or power
/// loss the file holds either the old state or the new one. `load` never silently forgets: an
/// unreadable file is moved aside for inspection and reported.
public final class StateStore {
    public let directory: URL
    private let now: () -> Date

    /// `now` names moved-aside corrupt files; tests pass a fixed clock.
    public init(directory: URL, now: @escaping () -> Date = Date.init) {
        self.directory = directory
        self.now = now
    }

    /// `state.json` in the directory.
    public var fileURL: URL { directory.appendingPathComponent("state.json") }

    /// Files larger than this are not a state file; not reading them bounds memory.
    static let maximumFileSize = 1 << 20

    /// `$XDG_STATE_HOME/talking-clock`, or `~/.local/state/talking-clock` when it is unset or not
    /// absolute: see `UserPaths`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        UserPaths.stateDirectory(environment: environment)
    }

    // MARK: Loading

    /// The saved state. A missing file gives the defaults and no warning.
    ///
    /// A file that exists but cannot be read or understood never silently unmutes the clock: what
    /// is still complete in it (`PersistentState.salvage`) is kept, and if the mute cannot be
    /// recovered the clock starts **muted**, because it cannot tell whether the user had muted
    /// it; an unexpected silence is fixed with `unmute`, an unexpected announcement cannot be
    /// taken back. The warning sentence says which; a damaged file is renamed to
    /// `state.json.corrupt-<UTC timestamp>` so that the next save does not destroy the evidence.
    public func load() -> (state: PersistentState, warning: String?) {
        let path = fileURL.path
        removeStaleTemporaryFiles()
        let data: [UInt8]
        switch readFile(path) {
        case .bytes(let bytes): data = bytes
        case .notAFile(let kind, let isDirectory):
            // Not moved aside (it may be something the user made on purpose), not read (a named
            // pipe would wait for a writer forever): muted, for the same reason as an unreadable
            // file, until the user removes it or a mute change replaces it.
            let fix =
                isDirectory
                ? "Move it away (mv \(path) \(path).old), then run 'talking-clock unmute'."
                : "Run 'talking-clock unmute' (or 'mute'): it replaces it with a state file."
            return (
                PersistentState(mute: .muted),
                "The state file \(path) is \(kind), not a file, so talking-clock starts muted: it cannot tell "
                    + "whether you had muted it. \(fix)"
            )
        case .failed(let error) where error.code == ENOENT: return (PersistentState(), nil)
        case .failed(let error) where error.code == ENOTDIR:
            return (
                PersistentState(),
                "The state file \(path) cannot exist because part of its path is not a directory, so talking-clock "
                    + "starts unmuted and cannot save mute; move that file away or set XDG_STATE_HOME to another "
                    + "directory."
            )
        case .failed(let error):
            return (
                PersistentState(mute: .muted),
                "The state file \(path) could not be read (\(error)), so talking-clock starts muted: it cannot tell "
                    + "whether you had muted it. Fix the file's permissions (or remove it), then run "
                    + "'talking-clock unmute'."
            )
        }

        let reason: String
        if data.isEmpty {
            reason = "it is empty"
        } else if data.count > Self.maximumFileSize {
            reason = "it is larger than \(Self.maximumFileSize) bytes"
        } else {
            do {
                return (try JSONDecoder().decode(PersistentState.self, from: Data(data)), nil)
            } catch {
                reason =
                    (try? JSONTree.parse(data)) == nil
                    ? "it is not valid JSON; it may have been truncated" : "it does not hold a talking-clock state"
            }
        }
        let salvaged: (mute: MuteState?, lastSpokenBoundary: Int?) =
            data.count > Self.maximumFileSize ? (nil, nil) : PersistentState.salvage(data)
        let state = PersistentState(mute: salvaged.mute ?? .muted, lastSpokenBoundary: salvaged.lastSpokenBoundary)
        var start = "The state file \(path) was unreadable (\(reason)), so talking-clock starts "
        if let mute = salvaged.mute {
            start += "\(mute), as the readable part of the file says,"
        } else {
            start += "muted (it cannot tell whether you had muted it; 'talking-clock unmute' makes it speak again)"
        }
        start +=
            salvaged.lastSpokenBoundary == nil
            ? " and without its memory of the last announcement" : " and with its memory of the last announcement"
        switch moveAside(path) {
        case .success(let aside):
            return (state, start + "; the file was left in place as \(aside) for inspection.")
        case .failure(let error):
            return (
                state,
                start + "; it could not be moved aside (\(error)) "
                    + "and will be replaced at the next save."
            )
        }
    }

    /// Removes `.state.json.tmp-<pid>-<n>` files left by a process killed in the middle of `save`
    /// (between creating its temporary file and renaming it): only those whose process no longer
    /// exists, so a save in progress elsewhere is never disturbed.
    private func removeStaleTemporaryFiles() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(Self.temporaryPrefix) {
            let rest = name.dropFirst(Self.temporaryPrefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0, pid != getpid() else {
                continue
            }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory.appendingPathComponent(name).path) }
        }
    }

    static let temporaryPrefix = ".state.json.tmp-"

    private enum FileRead {
        case bytes([UInt8])
        case failed(ErrnoCode)
        /// A directory, named pipe, socket or device: `kind` names it ("a named pipe (FIFO)").
        case notAFile(kind: String, isDirectory: Bool)
    }

    /// Reads at most `maximumFileSize + 1` bytes (enough to tell that a file is too large) of a
    /// regular file. It opens without blocking and checks the type before reading: a named pipe
    /// at the path used to hang the daemon's start for a writer that never came.
    private func readFile(_ path: String) -> FileRead {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return .failed(ErrnoCode(errno)) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failed(ErrnoCode(errno)) }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .notAFile(kind: "a directory", isDirectory: true)
        case S_IFIFO: return .notAFile(kind: "a named pipe (FIFO)", isDirectory: false)
        case S_IFSOCK: return .notAFile(kind: "a socket", isDirectory: false)
        default: return .notAFile(kind: "a device", isDirectory: false)
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= Self.maximumFileSize {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return .failed(ErrnoCode(errno))
            }
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return .bytes(bytes)
    }

    /// Renames `path` to `path.corrupt-YYYYMMDDTHHMMSSZ` (plus `-2`, `-3`… if taken).
    private func moveAside(_ path: String) -> Result<String, ErrnoCode> {
        let t = CivilTime.local(Int(now().timeIntervalSince1970.rounded(.down)), offset: 0)
        let stamp =
            "\(t.year)\(twoDigits(t.month))\(twoDigits(t.day))T\(twoDigits(t.hour))\(twoDigits(t.minute))"
            + "\(twoDigits(t.second))Z"
        var candidate = "\(path).corrupt-\(stamp)"
        var n = 1
        var st = stat()
        while lstat(candidate, &st) == 0 {
            n += 1
            candidate = "\(path).corrupt-\(stamp)-\(n)"
        }
        return rename(path, candidate) == 0 ? .success(candidate) : .failure(ErrnoCode(errno))
    }

    private func twoDigits(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    // MARK: Saving

    /// Replaces the saved state atomically and durably; creates the directory (0700) if missing.
    public func save(_ state: PersistentState) throws(StateStoreError) {
        let path = fileURL.path
        let dir = directory.path
        try makeDirectory(dir, path: path)

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(state)) + [0x0A]
        } catch {
            throw StateStoreError(path: path, step: "encoding the state", code: EINVAL)
        }

        let (fd, temp) = try createTemporaryFile(in: dir, path: path)
        var closed = false
        var renamed = false
        defer {
            if !closed { close(fd) }
            if !renamed { unlink(temp) }
        }
        try writeAll(fd, bytes, path: path, temp: temp)
        guard fsync(fd) == 0 else { throw StateStoreError(path: path, step: "flushing \(temp) to disk", code: errno) }
        closed = true
        guard close(fd) == 0 else { throw StateStoreError(path: path, step: "closing \(temp)", code: errno) }
        guard rename(temp, path) == 0 else {
            throw StateStoreError(path: path, step: "renaming \(temp) over it", code: errno)
        }
        renamed = true

        // The rename is only durable once the directory entry is on disk.
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else {
            throw StateStoreError(
                path: path, step: "opening the directory \(dir) to flush it", code: errno, replaced: true)
        }
        defer { close(dfd) }
        // Some file systems cannot fsync a directory (EINVAL); there is nothing more to do there.
        if fsync(dfd) != 0 && errno != EINVAL {
            throw StateStoreError(path: path, step: "flushing the directory \(dir)", code: errno, replaced: true)
        }
    }

    /// `mkdir -p` with mode 0700 for every directory it creates.
    /// Creates the state directory (0700, with its parents) if it does not exist.
    public func prepareDirectory() throws(StateStoreError) {
        try makeDirectory(directory.path, path: fileURL.path)
    }

    private func makeDirectory(_ dir: String, path: String) throws(StateStoreError) {
        if mkdir(dir, 0o700) == 0 { return }
        let code = errno
        switch code {
        case EEXIST:
            var st = stat()
            guard stat(dir, &st) == 0 else {
                throw StateStoreError(path: path, step: "checking the directory \(dir)", code: errno)
            }
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw StateStoreError(path: path, step: "creating the directory \(dir)", code: ENOTDIR)
            }
        case ENOENT:
            let parent = Format.parentDirectory(of: dir)
            guard parent != dir, !parent.isEmpty else {
                throw StateStoreError(path: path, step: "creating the directory \(dir)", code: code)
            }
            try makeDirectory(parent, path: path)
            if mkdir(dir, 0o700) != 0 && errno != EEXIST {
                throw StateStoreError(path: path, step: "creating the directory \(dir)", code: errno)
            }
        default:
            throw StateStoreError(path: path, step: "creating the directory \(dir)", code: code)
        }
    }

    /// A new, exclusively created 0600 file next to `state.json` (same file system, so the rename
    /// is atomic).
    private func createTemporaryFile(in dir: String, path: String) throws(StateStoreError) -> (Int32, String) {
        var attempt = 0
        while true {
            let temp = "\(dir)/\(Self.temporaryPrefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, temp) }
            let code = errno
            attempt += 1
            guard code == EEXIST && attempt < 16 else {
                throw StateStoreError(path: path, step: "creating a temporary file in \(dir)", code: code)
            }
        }
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String, temp: String) throws(StateStoreError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StateStoreError(path: path, step: "writing \(temp)", code: errno)
            }
            offset += n
        }
    }
}

/// An `errno` value as an `Error`, for `Result`.
private struct ErrnoCode: Error, CustomStringConvertible {
    var code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { String(cString: strerror(code)) }
}
