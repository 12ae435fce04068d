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

    deinit { Glibc.close(fd) }
}
