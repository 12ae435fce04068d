import Foundation
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

    /// Creates the directory if needed (0700) and takes the lock, or throws `Held` when another
    /// process has it. Returns nil (no guard) when the directory can neither be created nor opened:
    /// the state cannot be saved there either, which the state store reports on its own.
    public static func acquire(directory: String) throws(Held) -> StateLock? {
        _ = Self.makeDirectories(directory)
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

    private static func makeDirectories(_ path: String) -> Bool {
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return true }
        guard errno == ENOENT else { return false }
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != path, makeDirectories(parent) else { return false }
        return mkdir(path, 0o700) == 0 || errno == EEXIST
    }
}
