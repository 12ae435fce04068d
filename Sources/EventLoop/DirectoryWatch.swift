import CLinux
import Glibc

/// Names in one directory being replaced, created, written or removed: an `inotify` descriptor on
/// the directory, which sees a file (or symlink) replaced by rename — `timedatectl set-timezone`
/// and `ln -sf` replace /etc/localtime that way, and a watch on the link itself would not see it.
///
/// Only the given names count; other files changing in the directory wake the loop for nothing
/// more than a read.
public final class DirectoryWatch {
    public let fd: Int32
    public let directory: String
    public let names: Set<String>

    public init(directory: String, names: Set<String>) throws(SystemError) {
        self.directory = directory
        self.names = names
        // inotify_init1
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SystemError("inotify_init1") }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)
        // inotify_add_watch
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let error = SystemError("inotify_add_watch", context: "watching \(directory)")
            Glibc.close(fd)
            throw error
        }
    }

    deinit { Glibc.close(fd) }

    /// Drains the pending events; returns whether one concerned a watched name.
    public func read() -> Bool {
        var relevant = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return relevant }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let length = buffer.withUnsafeBytes { raw in
                    Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))  // inotify_event.len
                }
                let nameBytes = buffer[(offset + header)..<min(n, offset + header + length)].prefix { $0 != 0 }
                if names.contains(String(decoding: nameBytes, as: UTF8.self)) { relevant = true }
                offset += header + length
            }
        }
    }
}
