import EventLoop
import ConfigFiles
import FoundationEssentials
import Glibc
import TalkingClockCore

/// The CLI's end: one request line, one reply line.
public enum ControlClient {
    public enum Failure: Error, CustomStringConvertible {
        case noDaemon(String)
        /// It is listening but did not reply in time (stopped with SIGSTOP, or hung).
        case noAnswer(String)
        case io(String)
        /// The socket is not one to trust or use: its directory or the process serving it
        /// belongs to another user, connecting was not permitted, or the path is too long.
        case refused(String)

        public var description: String {
            switch self {
            case .noDaemon(let path): "No talking-clock daemon is running (nothing listens on \(path)); start it with 'talking-clock run' or 'systemctl --user start talking-clock'."
            case .io(let text), .noAnswer(let text), .refused(let text): text
            }
        }
    }

    public static func isListening(_ path: String) -> Bool {
        guard let fd = try? connect(path) else { return false }
        Glibc.close(fd)
        return true
    }

    /// Connects to the daemon at `path`, trusting it only if it is ours: the socket's directory
    /// must belong to us (or root), and the process that accepted the connection must run as
    /// our uid (`SO_PEERCRED`). Without this, another local user who creates
    /// `/tmp/talking-clock-UID` first (the fallback when there is no runtime directory) could
    /// answer every command with forged replies.
    static func connect(_ path: String) throws -> Int32 {
        let limit = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
        guard path.utf8.count <= limit else {
            throw Failure.refused(
                "The control socket path \(path) is \(path.utf8.count) bytes, but a Unix socket path may have at most \(limit); use a shorter --socket (or XDG_RUNTIME_DIR).")
        }
        let me = getuid()
        let dir = Format.parentDirectory(of: path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
        var st = stat()
        if stat(dir, &st) == 0, st.st_uid != me, st.st_uid != 0 {
            throw Failure.refused(
                "Refusing the control socket \(path): its directory \(dir) belongs to uid \(st.st_uid), not to you (uid \(me)), so another user may have planted it. Remove that directory (or ask its owner to), or set XDG_RUNTIME_DIR to a private directory of yours.")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure.io("socket: \(String(cString: strerror(errno)))") }
        var (addr, len) = try makeAddress(path)
        guard withSockaddr(&addr, { Glibc.connect(fd, $0, len) }) == 0 else {
            let code = errno
            Glibc.close(fd)
            switch code {
            case EACCES, EPERM:
                throw Failure.refused(
                    "Permission denied connecting to the control socket \(path): it (or its directory) belongs to another user, or is not writable by you. Check with 'ls -ld \(dir) \(path)'; your own daemon's socket is under $XDG_RUNTIME_DIR/talking-clock.")
            case ENOENT, ECONNREFUSED, ENOTDIR:
                throw Failure.noDaemon(path)
            default:
                throw Failure.io("Could not connect to the control socket \(path): \(String(cString: strerror(code))).")
            }
        }
        guard let cred = peerCredentials(fd) else {
            let code = errno
            Glibc.close(fd)
            throw Failure.io("Could not check who serves the control socket \(path): \(String(cString: strerror(code))).")
        }
        guard cred.uid == me else {
            Glibc.close(fd)
            throw Failure.refused(
                "Refusing the control socket \(path): it is served by process \(cred.pid) of uid \(cred.uid), not by your own daemon (uid \(me)); its replies cannot be trusted. Remove \(dir) if it is not yours, or set XDG_RUNTIME_DIR to a private directory of yours.")
        }
        return fd
    }

    /// Sends `request` and returns the reply line (without the newline).
    ///
    /// - Parameters:
    ///   - timeout: the longest wait for the reply, in seconds.
    ///   - waitingFor: what the daemon does before it replies, for the messages ("the reload:
    ///     reading the config and decoding every clip of the pack"); nil for a request answered
    ///     at once.
    ///   - noteAfter: after this many seconds without a reply, `note` is called once (the CLI
    ///     says that it is still waiting and for what), then the wait goes on up to `timeout`.
    public static func send(
        _ request: String, path: String, timeout: Double = 10, waitingFor: String? = nil, noteAfter: Double? = nil,
        note: (() -> Void)? = nil
    ) throws -> String {
        let fd = try connect(path)
        defer { Glibc.close(fd) }
        func receiveTimeout(_ seconds: Double) {
            let s = max(0.001, seconds)
            var tv = timeval(tv_sec: Int(s), tv_usec: Int((s - s.rounded(.down)) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
        let start = WallClock.monotonic()
        var noted = noteAfter == nil || note == nil
        receiveTimeout(noted ? timeout : min(noteAfter!, timeout))
        let bytes = Array((request + "\n").utf8)
        // The daemon may answer and close before reading (e.g. refusing another user); a failed
        // send is reported only if no reply can be read either.
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let sendError = sent == bytes.count ? nil : String(cString: strerror(errno))
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !reply.contains(10) {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 {
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    let waited = WallClock.monotonic() - start
                    if !noted && waited < timeout {
                        noted = true
                        note?()
                        receiveTimeout(timeout - waited)
                        continue
                    }
                    let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : Format.fixed(timeout, 1)
                    let doing = waitingFor.map { " to finish \($0)" } ?? ""
                    throw Failure.noAnswer(
                        "The daemon at \(path) did not answer within \(seconds) s\(doing); it may be stopped or hung "
                            + "(check 'systemctl --user status talking-clock', or restart it).")
                }
                if let sendError { throw Failure.io("Could not send to the daemon at \(path): \(sendError).") }
                throw Failure.io("The daemon at \(path) closed the connection without a reply.")
            }
            reply += buffer[0..<n]
        }
        return String(decoding: reply[..<reply.firstIndex(of: 10)!], as: UTF8.self)
    }
}
