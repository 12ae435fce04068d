import ConfigFiles
import FoundationEssentials
import Glibc

/// The single-instance guard: an exclusive `flock` on the state directory itself, held for the
/// daemon's lifetime.
///
/// The lock is on the *state*, not the socket: two daemons with the same `XDG_STATE_HOME` but
/// different `XDG_RUNTIME_DIR` (or a second one started after the socket was deleted) would both
/// speak every boundary. The kernel releases an `flock` when the process exits, however it exits
/// (SIGKILL included), so a crash never leaves a stale lock behind. Locking the directory rather
/// than a lock file inside it also works when the directory is read-only.
public final class StateLock {
    public let directory: String
    private let fd: Int32
    /// The name held besides, when the state directory is unusable (`stateName`).
    private var nameFD: Int32 = -1

    public struct Held: Error, CustomStringConvertible, Sendable {
        public var directory: String
        public var description: String {
            "Another talking-clock daemon is already running with the state in \(directory) (it holds its lock); "
                + "stop that one first ('systemctl --user stop talking-clock', or 'talking-clock status' to find it), "
                + "or give this one its own --state-dir."
        }
    }

    /// Takes the lock on an existing directory (`StateStore.prepareDirectory` creates it), or
    /// throws `Held` when another process has it. Returns nil (no guard) when the directory cannot
    /// be opened: the state cannot be saved there either, which the state store reports on its own.
    public static func acquire(directory: String) throws(Held) -> StateLock? {
        // open(2) with O_DIRECTORY: a lock on the directory's inode.
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        // flock(2)
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            Glibc.close(fd)
            if code == EWOULDBLOCK { throw Held(directory: directory) }
            return nil
        }
        return StateLock(directory: directory, fd: fd)
    }

    private init(directory: String, fd: Int32) {
        self.directory = directory
        self.fd = fd
    }

    deinit {
        Glibc.close(fd)
        if nameFD >= 0 { Glibc.close(nameFD) }
    }

    /// The abstract socket name a daemon holds when its state directory cannot be opened: the
    /// user's and that directory's (hashed), whatever the runtime directory, so two daemons with
    /// the same unusable state directory and different `XDG_RUNTIME_DIR`s cannot both speak. The
    /// kernel drops the name when the process exits, however it exits.
    static func stateName(_ stateDirectory: String, uid: uid_t = getuid()) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in stateDirectory.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "talking-clock-state-\(uid)-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    enum AbstractName {
        /// Bound: the descriptor that holds it.
        case held(Int32)
        /// Another process holds it.
        case taken
        /// The kernel refused otherwise (errno).
        case unavailable(Int32)
    }

    /// Binds the abstract socket `name`.
    static func bindAbstract(_ name: String) -> AbstractName {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .unavailable(errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count + 1 <= capacity else {
            Glibc.close(fd)
            return .unavailable(ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path[0] = 0  // abstract: no file, a name in the kernel
            for (i, byte) in bytes.enumerated() { path[i + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + bytes.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        if bound == 0 { return .held(fd) }
        let code = errno
        Glibc.close(fd)
        return code == EADDRINUSE ? .taken : .unavailable(code)
    }
}

extension StateLock {
    /// The lock that keeps a second daemon with the same state from speaking every boundary too:
    /// on the state directory, or, when that cannot be opened (read-only, not creatable), on the
    /// user's own runtime directory, so that an unusable state directory never means two clocks.
    /// With neither, the daemon refuses to start and says which to fix.
    static func singleInstance(stateDirectory: String) throws(DaemonStartError) -> StateLock {
        do {
            if let lock = try StateLock.acquire(directory: stateDirectory) { return lock }
        } catch {
            throw DaemonStartError(status: .busy, description: error.description)
        }
        let runtime = ControlPaths.directory()
        _ = mkdir(runtime, 0o700)
        var st = stat()
        // Only a directory of our own: one another user made (the /tmp fallback) could be locked
        // by them to keep the clock from starting.
        // The state directory's name first: a second daemon with it refused whatever its runtime directory.
        let name = StateLock.stateName(stateDirectory)
        var nameFD: Int32 = -1
        switch StateLock.bindAbstract(name) {
        case .held(let fd): nameFD = fd
        case .taken:
            throw DaemonStartError(
                status: .busy,
                description:
                    "Another talking-clock daemon is already running with the state directory \(stateDirectory), which cannot be opened (it holds the name @\(name) in its place); stop that one first, or fix the state directory (or pass --state-dir with a directory you own).")
        case .unavailable: break  // no abstract sockets here (another network namespace's rules): the directory lock below still guards
        }
        if lstat(runtime, &st) == 0, st.st_uid == getuid(), (st.st_mode & S_IFMT) == S_IFDIR {
            do {
                if let lock = try StateLock.acquire(directory: runtime) {
                    lock.nameFD = nameFD
                    JournalLog().warning(
                        "state directory unusable",
                        metadata: [
                            "state_dir": stateDirectory, "lock": runtime,
                            "hint": "mute and the last boundary spoken cannot be kept; fix the directory's permissions or pass --state-dir",
                        ])
                    return lock
                }
            } catch {
                throw DaemonStartError(
                    status: .busy,
                    description:
                        "Another talking-clock daemon is already running (it holds the lock on \(runtime), used because the state directory \(stateDirectory) cannot be opened); stop that one first, or fix the state directory.")
            }
        }
        throw DaemonStartError(
            status: .cannotWrite,
            description:
                "The state directory \(stateDirectory) cannot be opened, and neither can the runtime directory \(runtime) (it must be yours); without one of them two daemons could both speak every boundary. Fix the permissions of \(stateDirectory) or pass --state-dir with a directory you own.")
    }
}
