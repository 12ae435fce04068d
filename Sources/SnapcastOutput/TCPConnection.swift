#if canImport(Glibc)
    import Glibc
#endif
import Playback

/// A resolved address of a TCP peer (IPv4 or IPv6).
public struct ResolvedAddress: @unchecked Sendable {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    public var family: Int32 { Int32(storage.ss_family) }

    /// Resolves `host` (a numeric address without a lookup; a name with getaddrinfo, which may
    /// block on DNS: call it off the event loop).
    public static func resolve(host: String, port: Int) throws(SinkError) -> ResolvedAddress {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        // getaddrinfo
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            let why = rc == 0 ? "no address" : String(cString: gai_strerror(rc))
            throw SinkError(.notFound, "Could not find the Snapcast server \"\(host)\": \(why). Check the host name in the device (snapcast://HOST:PORT) or use its IP address.")
        }
        defer { freeaddrinfo(list) }
        var result = ResolvedAddress()
        withUnsafeMutableBytes(of: &result.storage) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        result.length = first.pointee.ai_addrlen
        return result
    }
}

/// A non-blocking TCP connection (the sink's stream to snapserver, and JSON-RPC requests).
final class TCPConnection {
    private(set) var fd: Int32
    let peer: String

    /// Starts connecting (non-blocking). Throws `.notFound` when the peer refuses at once.
    init(to address: ResolvedAddress, peer: String) throws(SinkError) {
        self.peer = peer
        fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SinkError(.failed, "Could not create a socket for \(peer): \(Self.text(errno)).") }
        var one: Int32 = 1
        // No Nagle delay: a chunk goes out when it is written.
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // A fixed, small send buffer (the kernel doubles it; no autotuning): with autotuning a
        // stopped reader absorbed 22 s of audio before a send blocked, with this about 1 s.
        var size: Int32 = 32 * 1024
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = address
        let rc = withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if rc != 0 && errno != EINPROGRESS {
            let code = errno
            close()
            throw Self.connectError(code, peer: peer)
        }
    }

    deinit { close() }

    static func connectError(_ code: Int32, peer: String) -> SinkError {
        SinkError(.notFound, "Could not connect to \(peer): \(text(code)).")
    }

    /// Whether the connection is established now (nil: still connecting); throws if it failed.
    func established() throws(SinkError) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&p, 1, 0) > 0 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        if error != 0 { throw Self.connectError(error, peer: peer) }
        return true
    }

    /// Waits (blocking) until connected, at most `timeout` seconds.
    func waitEstablished(timeout: Double) throws(SinkError) {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let n = poll(&p, 1, Int32(max(1, timeout * 1000)))
        if n == 0 {
            throw SinkError(.notFound, "Could not connect to \(peer): no answer within \(Self.seconds(timeout)) s.")
        }
        guard try established() else {
            throw SinkError(.notFound, "Could not connect to \(peer): no answer within \(Self.seconds(timeout)) s.")
        }
    }

    enum SendResult { case sent(Int), wouldBlock }

    /// Sends what the kernel takes now of `bytes[offset...]` (never SIGPIPE).
    func send(_ bytes: [UInt8], from offset: Int) throws(SinkError) -> SendResult {
        guard offset < bytes.count else { return .sent(0) }
        let n = bytes.withUnsafeBytes { all in
            Glibc.send(fd, all.baseAddress! + offset, all.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        if n >= 0 { return .sent(n) }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .wouldBlock }
        throw closedError(code)
    }

    /// Reads what is there without waiting: nil when nothing is, throws when the peer closed.
    func receive(into buffer: inout [UInt8]) throws(SinkError) -> Int? {
        let n = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if n > 0 { return n }
        if n == 0 { throw closedError(nil) }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return nil }
        throw closedError(code)
    }

    func closedError(_ code: Int32?) -> SinkError {
        SinkError(.failed, "\(peer) closed the connection" + (code.map { " (\(Self.text($0)))" } ?? "") + ".")
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    static func text(_ code: Int32) -> String { String(cString: strerror(code)) }

    static func seconds(_ s: Double) -> String {
        let tenths = Int((s * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
