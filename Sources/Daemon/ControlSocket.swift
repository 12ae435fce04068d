import ConfigFiles
import EventLoop
import FoundationEssentials
import Glibc
import TalkingClockCore

/// The daemon's end of the control socket: a listening Unix stream socket in a private
/// directory (0700, socket 0600), peer credentials checked on every connection, one line
/// protocol per client with bounded memory, stalled clients dropped after `idleTimeout`.
public final class ControlServer {
    /// Answers one request line: the reply now, or nil when it calls `reply` later (once, on the
    /// loop thread). Replies to one client go out in the order of its requests: lines that arrive
    /// while a reply is owed wait for it.
    public typealias Handler = (_ line: [UInt8], _ reply: @escaping (String) -> Void) -> String?

    public let path: String
    public static let maxClients = 64
    public static let maxPendingOutput = 64 * 1024
    public static let idleTimeout = 10.0

    private let loop: EventLoop
    private let handler: Handler
    private let listenFD: Int32
    private let sweep: TimerFD
    private var clients: [Int32: Client] = [:]

    final class Client {
        var framer = LineFramer()
        var output: [UInt8] = []
        var deadline: Double
        /// The client has ended its half of the connection (end-of-file): nothing more is read,
        /// and the connection is closed once every reply has been sent.
        var inputEnded = false
        /// A reply is owed (`announce`, `reload`): later lines wait in `held`, and the client is
        /// not dropped as stalled meanwhile.
        var awaiting = false
        var held: [FramedLine] = []
        init(deadline: Double) { self.deadline = deadline }
    }

    /// Requests one client may queue behind an owed reply before it is dropped as a flood.
    static let maxHeldLines = 64

    /// Creates the directory and socket. Fails with a sentence if another daemon is listening or
    /// the directory belongs to someone else.
    /// Whether a process accepts connections on `path` now (a live daemon, not a stale file).
    static func someoneListens(_ path: String) -> Bool {
        guard var (addr, len) = try? makeAddress(path) else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        return withSockaddr(&addr) { Glibc.connect(fd, $0, len) } == 0
    }

    public init(path: String, loop: EventLoop, handler: @escaping Handler) throws(SystemError) {
        self.path = path
        self.loop = loop
        self.handler = handler
        // A relative path is read in the working directory; a bare name ("rel.sock") has no
        // directory part, so the directory is derived from the absolute path.
        let dir = Format.parentDirectory(of: path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
        try Self.preparePrivateDirectory(dir)
        if FileManager.default.fileExists(atPath: path) {
            if Self.someoneListens(path) {
                throw SystemError("bind", code: EADDRINUSE, context: "another talking-clock daemon is already listening on \(path) (stop it first, or use its 'status')")
            }
            unlink(path)
        }
        let listenFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listenFD >= 0 else { throw SystemError("socket", context: "control socket") }
        self.listenFD = listenFD
        var (addr, len) = try makeAddress(path)
        let oldMask = umask(0o177)  // the socket is created 0600
        let bound = withSockaddr(&addr) { bind(listenFD, $0, len) }
        umask(oldMask)
        guard bound == 0 else {
            let e = errno
            Glibc.close(listenFD)
            throw SystemError("bind", code: e, context: "control socket \(path)")
        }
        chmod(path, 0o600)
        guard listen(listenFD, 16) == 0 else {
            let e = errno
            Glibc.close(listenFD)
            throw SystemError("listen", code: e, context: "control socket \(path)")
        }
        sweep = try TimerFD(realtime: false)
        try loop.watch(listenFD, events: .readable) { [unowned self] _ in self.acceptAll() }
        try loop.watch(sweep.fd, events: .readable) { [unowned self] _ in
            _ = self.sweep.read()
            self.dropStalled()
        }
    }

    /// Number of connected clients (for tests and status).
    public var clientCount: Int { clients.count }

    public func close() {
        for fd in Array(clients.keys) { drop(fd) }
        loop.unwatch(listenFD)
        loop.unwatch(sweep.fd)
        Glibc.close(listenFD)
        unlink(path)
    }

    /// Creates the socket's directory 0700, or accepts an existing one only if it is ours and
    /// private. It never changes the mode of a directory it did not create (a `--socket` in /tmp
    /// must not make /tmp private).
    static func preparePrivateDirectory(_ dir: String) throws(SystemError) {
        if mkdir(dir, 0o700) == 0 { return }
        guard errno == EEXIST else {
            throw SystemError("mkdir", context: "control directory \(dir) (check that XDG_RUNTIME_DIR exists and is yours)")
        }
        var st = stat()
        guard lstat(dir, &st) == 0 else { throw SystemError("stat", context: dir) }
        guard (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == getuid() else {
            throw SystemError.refusal("\(dir) is not a directory owned by you; remove it or set XDG_RUNTIME_DIR")
        }
        guard st.st_mode & 0o077 == 0 else {
            throw SystemError.refusal(
                "the control socket's directory \(dir) is open to other users; put the socket in a private (0700) directory such as $XDG_RUNTIME_DIR/talking-clock")
        }
    }

    private func acceptAll() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 { return }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard let peer = peerCredentials(fd), peer.uid == getuid() else {
                let reply = Array(ControlReply.error("permission denied: this talking-clock belongs to uid \(getuid())").render().utf8)
                _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Glibc.close(fd)
                continue
            }
            guard clients.count < Self.maxClients || reapDeparted() else {
                let reply = Array(ControlReply.error("too many clients; try again", kind: .busy).render().utf8)
                _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Glibc.close(fd)
                continue
            }
            let client = Client(deadline: WallClock.monotonic() + Self.idleTimeout)
            clients[fd] = client
            do {
                try loop.watch(fd, events: .readable) { [unowned self] events in self.service(fd, events: events) }
            } catch {
                drop(fd)
            }
            armSweep()
        }
    }

    /// Serves, now, every client with input waiting, so that those that have hung up (their
    /// end-of-file not yet taken from the event queue) give their slots back before a newcomer is
    /// refused: "too many clients" is said only when 64 clients that are still there hold them.
    /// Returns whether a slot is free.
    private func reapDeparted() -> Bool {
        var fds = clients.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), 0) > 0 else { return false }
        for entry in fds where entry.revents != 0 {
            service(entry.fd, events: .readable)
        }
        return clients.count < Self.maxClients
    }

    private func service(_ fd: Int32, events: IOEvents) {
        guard let client = clients[fd] else { return }
        let readable = IOEvents([.readable, .hangUp, .error])
        if client.held.count >= Self.maxHeldLines && !events.isDisjoint(with: [.hangUp, .error]) {
            drop(fd)  // gone while its requests wait unread: nobody is left for the replies
            return
        }
        if !client.inputEnded && !events.isDisjoint(with: readable) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            // Bounded reads per wake-up, so one flooding client cannot starve the loop. While
            // `maxHeldLines` requests wait behind an owed reply nothing more is read (the client's
            // writes block): every request is answered in turn, none is dropped.
            for _ in 0..<16 where client.held.count < Self.maxHeldLines {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n < 0 {
                    if errno == EAGAIN || errno == EINTR { break }
                    drop(fd)
                    return
                }
                if n == 0 {
                    endOfInput(fd, client)
                    break
                }
                let lines = client.framer.append(buffer[0..<n])
                // Only a whole request earns more time: a client that trickles one byte every
                // few seconds is dropped `idleTimeout` after its last complete line.
                if !lines.isEmpty { client.deadline = WallClock.monotonic() + Self.idleTimeout }
                client.held += lines
                process(fd, client)
                guard clients[fd] != nil else { return }
                // Replies the socket does not take at once wait here; past `maxPendingOutput` the
                // client sends but does not read.
                if client.output.count > Self.maxPendingOutput
                    && (!sendPending(fd, client) || client.output.count > Self.maxPendingOutput)
                {
                    drop(fd)
                    return
                }
            }
            guard clients[fd] != nil else { return }
        }
        flush(fd, client)
    }

    /// A reply the handler may give during its own call or later.
    private final class Owed {
        var handlerReturned = false
        var inlineReply: String?
    }

    /// Answers the client's held lines in order, stopping at one whose reply comes later.
    private func process(_ fd: Int32, _ client: Client) {
        while !client.awaiting, !client.held.isEmpty {
            switch client.held.removeFirst() {
            case .line(let line):
                let owed = Owed()
                let answer = handler(line) { [weak self, weak client] reply in
                    guard owed.handlerReturned else {
                        owed.inlineReply = reply  // answered before the handler returned
                        return
                    }
                    guard let self, let client, self.clients[fd] === client else { return }  // it left meanwhile
                    client.awaiting = false
                    client.deadline = WallClock.monotonic() + Self.idleTimeout
                    client.output += Array(reply.utf8)
                    self.process(fd, client)
                    self.flush(fd, client)
                    self.armSweep()
                }
                owed.handlerReturned = true
                if let reply = answer ?? owed.inlineReply {
                    client.output += Array(reply.utf8)
                } else {
                    client.awaiting = true
                    client.deadline = .infinity
                }
            case .tooLong:
                client.output += Array(
                    ControlReply.error(
                        "request too long (at most \(LineFramer.maxLineLength - 1) bytes before the newline); send one command such as 'status'"
                    ).render().utf8)
            }
        }
    }

    /// The client sent end-of-file. One that only ended its half of the connection
    /// (`shutdown(SHUT_WR)`, as `echo status | socat - UNIX-CONNECT:…` and `nc -N` do) still
    /// reads: it gets a reply to every request, an unfinished last line counting as a request,
    /// and then the daemon closes. One that closed the whole connection reads nothing more: it is
    /// dropped at once, and its unfinished line is not run (a client that died in the middle of
    /// "mute for 30m" must not leave the clock muted by "mute").
    private func endOfInput(_ fd: Int32, _ client: Client) {
        client.inputEnded = true
        var probe = pollfd(fd: fd, events: 0, revents: 0)
        if poll(&probe, 1, 0) == 1 && probe.revents & Int16(POLLHUP) != 0 {
            drop(fd)
            return
        }
        if let last = client.framer.finish() {
            client.held.append(last)
            process(fd, client)
        }
    }

    /// Sends what the socket takes now; false when the client is gone.
    private func sendPending(_ fd: Int32, _ client: Client) -> Bool {
        while !client.output.isEmpty {
            let n = client.output.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno != EAGAIN && errno != EINTR { return false }  // EPIPE, ECONNRESET
            if n <= 0 { break }
            client.output.removeFirst(n)
        }
        return true
    }

    private func flush(_ fd: Int32, _ client: Client) {
        guard sendPending(fd, client) else {
            drop(fd)  // nobody is left to read
            return
        }
        if client.inputEnded && client.output.isEmpty && !client.awaiting && client.held.isEmpty {
            drop(fd)  // every request answered
            return
        }
        let reading = !client.inputEnded && client.held.count < Self.maxHeldLines
        let want: IOEvents = (reading ? IOEvents.readable : []).union(client.output.isEmpty ? [] : IOEvents.writable)
        try? loop.watch(fd, events: want) { [unowned self] events in self.service(fd, events: events) }
    }

    private func drop(_ fd: Int32) {
        loop.unwatch(fd)
        clients.removeValue(forKey: fd)
        Glibc.close(fd)
    }

    private func dropStalled() {
        let now = WallClock.monotonic()
        for (fd, client) in clients where client.deadline <= now { drop(fd) }
        armSweep()
    }

    /// The sweep timer runs only while clients are connected: no idle wake-ups otherwise.
    private func armSweep() {
        // A client owed a reply (deadline infinity) is not swept.
        guard let next = clients.values.map(\.deadline).filter({ $0.isFinite }).min() else {
            sweep.disarm()
            return
        }
        sweep.arm(after: max(0.01, next - WallClock.monotonic()))
    }
}

