import CLinux
import Glibc

/// A `sockaddr_un` for `path` (a server binds it, a client connects to it).
public func makeAddress(_ path: String) throws(SystemError) -> (sockaddr_un, socklen_t) {
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let limit = MemoryLayout.size(ofValue: addr.sun_path) - 1
    guard bytes.count <= limit else {
        throw SystemError(
            "bind", code: ENAMETOOLONG,
            context: "the socket path \(path) is \(bytes.count) bytes, but a Unix socket path may have at most \(limit); use a shorter --socket (or XDG_RUNTIME_DIR)")
    }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
        for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    return (addr, socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1))
}

public func withSockaddr<R>(_ addr: inout sockaddr_un, _ body: (UnsafePointer<sockaddr>) -> R) -> R {
    withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
}

/// Who is on the other end of a connected Unix socket (`getsockopt(SO_PEERCRED)`), or nil.
public func peerCredentials(_ fd: Int32) -> (pid: Int32, uid: uid_t, gid: gid_t)? {
    var cred = tc_peer_credentials()
    // getsockopt(SO_PEERCRED)
    guard tc_peer_credentials(fd, &cred) == 0 else { return nil }
    return (cred.pid, cred.uid, cred.gid)
}

/// Bytes malloc has handed out and not taken back (`mallinfo2`: main arena + mmapped chunks).
/// Unlike RSS it does not count freed memory the allocator keeps, so a leak shows and
/// fragmentation does not (memory-growth measurements).
public func heapInUseBytes() -> Int { Int(tc_heap_in_use_bytes()) }

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
