import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP or Unix-socket peer that is not what it claims to be: it accepts each connection on its
/// own thread, reads what the client sends first (up to 4 KiB, waiting at most `readTimeout`),
/// answers with `answer(n)` for the n-th connection (0-based), and then closes, or (`nil`
/// answer) never answers and holds the connection until `stop()`. Stands in for "anyone who can
/// answer on the broker's address" (MQTT) and for a speech-dispatcher that accepts and never
/// replies (SSIP).
public final class HostilePeer: @unchecked Sendable {
    /// The loopback TCP port (0 for a Unix socket).
    public private(set) var port = 0
    /// The Unix socket's path, when it listens on one.
    public let path: String?
    /// Connections accepted so far.
    public var connections: Int { tally["accepted"] }
    /// Bytes of the first read of each connection, in order.
    public var firstReads: [[UInt8]] {
        lock.lock()
        defer { lock.unlock() }
        return reads
    }

    private let fd: Int32
    private let answer: @Sendable (Int) -> [UInt8]?
    private let readTimeout: Double
    /// Seconds between the first read and the answer (a daemon busy with a long reload).
    public var answerDelay: Double = 0
    private let tally = Tally()
    private let lock = NSLock()
    private var reads: [[UInt8]] = []
    private var held: [Int32] = []
    private var stopped = false

    /// Listens on 127.0.0.1 at a free port.
    public init(readTimeout: Double = 2, answer: @escaping @Sendable (Int) -> [UInt8]?) throws {
        self.answer = answer
        self.readTimeout = readTimeout
        path = nil
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonProcess.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
                bind(fd, p, len) == 0 && listen(fd, 16) == 0 && getsockname(fd, p, &len) == 0
            }
        }
        guard bound else {
            close(fd)
            throw DaemonProcess.Failure(description: "bind 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        port = Int(UInt16(bigEndian: addr.sin_port))
        startAccepting()
    }

    /// Listens on a Unix socket at `path` (removed first if it exists).
    public init(unixPath: String, readTimeout: Double = 2, answer: @escaping @Sendable (Int) -> [UInt8]?) throws {
        self.answer = answer
        self.readTimeout = readTimeout
        path = unixPath
        unlink(unixPath)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonProcess.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { buf in
            for (i, b) in unixPath.utf8.enumerated() where i < buf.count - 1 { buf[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 && listen(fd, 16) == 0
            }
        }
        guard bound else {
            close(fd)
            throw DaemonProcess.Failure(description: "bind \(unixPath): \(String(cString: strerror(errno)))")
        }
        startAccepting()
    }

    deinit { stop() }

    /// Stops accepting and closes every connection it holds.
    public func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        let open = held
        held = []
        lock.unlock()
        guard !wasStopped else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        for c in open { close(c) }
        if let path { unlink(path) }
    }

    private func startAccepting() {
        let thread = Thread { [self] in
            while true {
                let c = accept(fd, nil, nil)
                if c < 0 {
                    if errno == EINTR { continue }
                    return
                }
                let n = tally["accepted"]
                tally.add("accepted")
                Thread { [self] in serve(c, index: n) }.start()
            }
        }
        thread.start()
    }

    private func serve(_ c: Int32, index: Int) {
        var tv = timeval(tv_sec: Int(readTimeout), tv_usec: Int((readTimeout - readTimeout.rounded(.down)) * 1e6))
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let got = recv(c, &buffer, buffer.count, 0)
        lock.lock()
        reads.append(got > 0 ? Array(buffer[0..<got]) : [])
        lock.unlock()
        guard let bytes = answer(index) else {
            // Hold it, never answering, until stop().
            lock.lock()
            if stopped {
                lock.unlock()
                close(c)
            } else {
                held.append(c)
                lock.unlock()
            }
            return
        }
        if answerDelay > 0 { usleep(useconds_t(answerDelay * 1_000_000)) }
        SocketClient.send(c, bytes)
        close(c)
    }
}

/// A seeded generator (SplitMix64): the same answers in every run, chosen by the test's seed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
