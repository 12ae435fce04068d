import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The built `talking-clock run` in the background, as fault and hostile-input tests need it: its
/// log in a file, its control socket, its descriptors and memory from `/proc`.
public final class DaemonProcess {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public let process: Process
    public let socket: String
    public let logURL: URL
    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Starts `talking-clock ARGUMENTS --socket SOCKET` and waits (up to `timeout`) until it answers
    /// `status`; throws with its log if it exits first.
    ///
    /// - Parameters:
    ///   - launcher: a command that execs the rest of its arguments (e.g. `unshare -m wrapper`),
    ///     so the daemon keeps the launcher's pid.
    ///   - unset: environment variables to remove (e.g. `TZ`).
    public init(
        _ arguments: [String], socket: String, environment: [String: String] = [:], unset: [String] = [],
        launcher: [String] = [], logURL: URL, timeout: Double = 20
    ) throws {
        self.socket = socket
        self.logURL = logURL
        process = Process()
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments =
                Array(launcher.dropFirst()) + [BinaryRunner.binary.path] + arguments + ["--socket", socket]
        } else {
            process.executableURL = BinaryRunner.binary
            process.arguments = arguments + ["--socket", socket]
        }
        var env = ProcessInfo.processInfo.environment
        for k in unset { env.removeValue(forKey: k) }
        for (k, v) in environment { env[k] = v }
        process.environment = env
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        log.seekToEndOfFile()
        process.standardError = log
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        try? log.close()
        let deadline = Date().addingTimeInterval(timeout)
        while (try? SocketClient.request("status", path: socket, timeout: 1)) == nil {
            guard process.isRunning else {
                process.waitUntilExit()
                throw Failure(description: "the daemon exited with \(process.terminationStatus): \(self.log)")
            }
            guard Date() < deadline else {
                stop()
                throw Failure(description: "the daemon did not answer within \(timeout) s: \(self.log)")
            }
            usleep(10_000)
        }
    }

    /// Everything the daemon logged so far.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// The log lines that contain `fragment`.
    public func logLines(containing fragment: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains(fragment) }
    }

    /// Waits until the log holds `count` lines containing `fragment`; returns whether it did.
    @discardableResult
    public func waitForLog(_ fragment: String, count: Int = 1, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while logLines(containing: fragment).count < count {
            if Date() >= deadline { return false }
            usleep(20_000)
        }
        return true
    }

    /// One request line, one reply line (without its newline).
    /// Waits until `status json` says an announcement is opening or playing; throws with the
    /// daemon's log if none does within `timeout`.
    public func waitUntilPlaying(timeout: Double = 20) throws {
        guard try waitUntil(timeout: timeout, { try request("status json").contains(#""playing":true"#) }) else {
            throw Failure(description: "it never played: \(log)")
        }
    }

    public func request(_ line: String, timeout: Double = 5) throws -> String {
        try SocketClient.request(line, path: socket, timeout: timeout)
    }

    /// Entries in `/proc/PID/fd`.
    public var openDescriptors: Int { Self.openDescriptors(pid: pid) }

    /// `VmRSS` of `/proc/PID/status`, in kB.
    public var residentKB: Int { Self.residentKB(pid: pid) }

    public static func openDescriptors(pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    public static func residentKB(pid: Int32) -> Int { statusField("VmRSS", pid: pid) ?? 0 }

    static func statusField(_ name: String, pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    /// SIGTERM, then wait for the exit; returns the exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits (up to `timeout`) until the log holds a line containing `fragment`, then stops the
    /// daemon (SIGTERM) either way: for tests that end when an event happens, not after a fixed
    /// time. Returns whether the line came, and the exit status.
    public func stop(whenLogged fragment: String, timeout: Double) -> (logged: Bool, status: Int32) {
        let logged = waitForLog(fragment, timeout: timeout)
        return (logged, stop())
    }

    /// SIGKILL, then reap it.
    public func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Counters shared by the threads of a test (hostile clients, samplers).
public final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Int] = [:]

    public init() {}

    public subscript(key: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return values[key, default: 0]
    }

    public func add(_ key: String, _ n: Int = 1) {
        lock.lock()
        values[key, default: 0] += n
        lock.unlock()
    }

    public func raise(_ key: String, to value: Int) {
        lock.lock()
        values[key] = max(values[key, default: 0], value)
        lock.unlock()
    }

    /// Sets `key` only the first time.
    public func setOnce(_ key: String, _ value: Int) {
        lock.lock()
        if values[key] == nil { values[key] = value }
        lock.unlock()
    }
}

/// A raw client of the control socket, for tests that must send what the CLI never would.
public enum SocketClient {
    /// Connects (blocking) to the Unix socket at `path`; the caller closes the descriptor.
    public static func connect(_ path: String, receiveTimeout: Double = 5) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonProcess.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { buf in
            for (i, b) in path.utf8.enumerated() where i < buf.count - 1 { buf[i] = b }
        }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard ok == 0 else {
            let code = errno
            close(fd)
            throw DaemonProcess.Failure(description: "connect \(path): \(String(cString: strerror(code)))")
        }
        var tv = timeval(
            tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - receiveTimeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Sends all of `bytes` (or as much as the peer takes before closing); returns the count sent.
    @discardableResult
    public static func send(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        return sent
    }

    /// Reads until `lines` newlines arrived, the peer closed, or the receive timeout passed.
    public static func receive(_ fd: Int32, lines: Int = 1) -> String {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while out.lazy.filter({ $0 == 10 }).count < lines {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One request, one reply line without its newline; throws if no full line came back.
    ///
    /// It returns only once the daemon has let the connection go (it ends its half of the
    /// connection after the reply and waits for the daemon to close the other), so a test that
    /// counts the daemon's clients or descriptors next never sees this one still held.
    public static func request(_ line: String, path: String, timeout: Double = 5) throws -> String {
        let fd = try connect(path, receiveTimeout: timeout)
        defer { close(fd) }
        send(fd, Array((line + "\n").utf8))
        let reply = receive(fd)
        guard reply.hasSuffix("\n") else {
            throw DaemonProcess.Failure(
                description: "no reply to \(line.debugDescription) (got \(reply.debugDescription))")
        }
        waitForClose(fd)
        return String(reply.dropLast())
    }

    /// Ends our half of the connection (`shutdown(SHUT_WR)`) and reads until the daemon closes
    /// its own, which it does only after freeing the client's slot; returns whether it did
    /// within the receive timeout.
    @discardableResult
    public static func waitForClose(_ fd: Int32) -> Bool {
        shutdown(fd, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return true }
            if n < 0 { return false }
        }
    }
}
