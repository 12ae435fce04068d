import FoundationEssentials
import TalkingClockCore
import Glibc

/// Writing files with the system calls themselves, so a failure names the path and the system's
/// reason ("Permission denied"), never Foundation's "The operation could not be completed.
/// (NSCocoaErrorDomain error 512.)".
public enum FileOutput {
    /// A file or directory could not be written: the path, the step and `errno`.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        /// true: creating the directory `path` failed; false: writing the file `path`.
        public var directory: Bool
        public var code: Int32

        public var description: String {
            let reason = String(cString: strerror(code))
            let what = directory ? "create the directory \(path)" : "write \(path)"
            let parent = Format.parentDirectory(of: path)
            let hint: String
            switch code {
            case ENOENT where !parent.isEmpty && !FileManager.default.fileExists(atPath: parent):
                hint = "the directory \(parent) does not exist; create it or choose another path"
            case EISDIR: hint = "give a file name inside it"
            case ENOTDIR: hint = "part of the path is a file; choose another path"
            case ENOSPC, EDQUOT: hint = "free some space or choose another disk"
            default: hint = directory ? "choose a directory you can write to" : "choose a writable path"
            }
            return "Could not \(what): \(reason); \(hint)."
        }
    }

    /// Creates or replaces the file at `path` with `bytes` (mode 0644 before the umask).
    public static func write(_ bytes: some Collection<UInt8>, to path: String) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(path: path, directory: false, code: errno) }
        var written = 0
        let data = Array(bytes)
        while written < data.count {
            let n = data[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                throw Failure(path: path, directory: false, code: code)
            }
            written += n
        }
        // close reports a deferred write error (NFS, a full disk on some file systems).
        guard close(fd) == 0 else { throw Failure(path: path, directory: false, code: errno) }
    }

    /// `mkdir -p`: creates `path` and any missing parents (mode 0755 before the umask).
    public static func createDirectories(_ path: String) throws(Failure) {
        var isDirectory = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory { return }
        let parent = Format.parentDirectory(of: path)
        if !parent.isEmpty, parent != path { try createDirectories(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw Failure(path: path, directory: true, code: errno)
        }
        // EEXIST: another process made it meanwhile, or it is a file (then the next step fails with ENOTDIR).
    }
}
