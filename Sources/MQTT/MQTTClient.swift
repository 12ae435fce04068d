import CMosquitto
import Glibc

/// A message as MQTT carries it: the payload is bytes (not necessarily UTF-8).
public struct MQTTMessage: Equatable, Sendable, CustomStringConvertible {
    public var topic: String
    public var payload: [UInt8]
    /// 0, 1 or 2.
    public var qos: Int
    /// Published with the retain flag, or (received) a retained message the broker replayed on subscribe.
    public var retained: Bool

    public init(topic: String, payload: [UInt8], qos: Int = 0, retained: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retained = retained
    }

    public init(topic: String, text: String, qos: Int = 0, retained: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retained: retained)
    }

    /// The payload as UTF-8 (invalid bytes replaced).
    public var text: String { String(decoding: payload, as: UTF8.self) }

    public var description: String { "\(topic) \(retained ? "(retained) " : "")q\(qos): \(text)" }
}

/// What to connect to and how. The password is a value, never a path: the caller reads it from
/// its password file (and refuses a file others can read).
public struct MQTTOptions: Sendable {
    public var host: String
    public var port: Int
    public var clientID: String
    /// Seconds between keepalive pings while idle (MQTT keepalive); also the only periodic wake-up.
    public var keepalive: Int
    public var username: String?
    public var password: String?
    /// TLS with this CA file; the broker's certificate and host name are verified against it.
    public var caFile: String?
    /// Published by the broker if the connection ends without DISCONNECT (process killed, network gone).
    public var will: MQTTMessage?
    /// A connection that has not been accepted (CONNACK) this many seconds after it started is dropped.
    public var connectTimeout: Double = 10
    /// Reconnect delays: `backoffInitial`, doubled after each failure, at most `backoffMax`.
    public var backoffInitial: Double = 1
    public var backoffMax: Double = 60
    /// The fraction of each reconnect delay taken off at random (0…1), so that rooms that lost the
    /// same broker do not all come back in the same instant. 0: exactly the backoff.
    public var jitter: Double = 0
    /// Largest payload handed to `onMessage`: a longer one is reported to `onOversized` by its
    /// length and never copied. (libmosquitto 2.0's client has already read the whole packet
    /// into its own buffer by then and frees it after the callback: it has no limit of its own
    /// for incoming packets, so the broker's `max_packet_size` is what bounds that buffer.)
    public var maximumPayload = 65_536
    /// A connection that ends sooner than this after it was accepted counts as a takeover
    /// suspect (see `MQTTClient.shortSessions`), and the backoff goes on growing from where it
    /// was before that connection.
    public var stableAfter: Double = 10

    public init(
        host: String, port: Int, clientID: String, keepalive: Int = 300, username: String? = nil,
        password: String? = nil,
        caFile: String? = nil, will: MQTTMessage? = nil
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.keepalive = keepalive
        self.username = username
        self.password = password
        self.caFile = caFile
        self.will = will
    }

    /// The wait before a reconnect attempt: `backoff`, less up to `jitter` of it; `random` in 0..<1.
    public func retryDelay(backoff: Double, random: Double) -> Double {
        backoff * (1 - min(max(jitter, 0), 1) * min(max(random, 0), 1))
    }

    /// `mqtt://host:port` or `mqtts://host:port`, for messages.
    public var brokerName: String { "\(caFile == nil ? "mqtt" : "mqtts")://\(host):\(port)" }
}

/// A libmosquitto failure or a refusal by the broker, as a sentence that names the broker and the fix.
public struct MQTTError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// A libmosquitto call failed: `MOSQ_ERR_*` code (with errno when it is `MOSQ_ERR_ERRNO`).
        case library(call: String, code: Int32, errno: Int32)
        /// The broker answered CONNACK with this non-zero return code.
        case refused(code: Int32)
        /// No CONNACK within `connectTimeout`.
        case timedOut
        /// libmosquitto.so.1 could not be loaded (it is loaded on first use, not linked); `reason`
        /// is the loader's sentence, with the fix.
        case unavailable
    }

    public var kind: Kind
    /// `mosquitto_strerror`, `mosquitto_connack_string` or strerror text (`.unavailable`: why
    /// libmosquitto could not be loaded and how to install it).
    public var reason: String
    public var broker: String

    public var description: String { describe(daemon: true) }

    /// The sentence for a short-lived client (the CLI's `rooms`, `--everywhere`): the same, without
    /// what the daemon does next ("the clock keeps speaking and reconnects").
    public var clientDescription: String { describe(daemon: false) }

    func describe(daemon: Bool) -> String {
        let text = sentence
        guard !daemon else { return text }
        for clause in ["; the clock keeps speaking and reconnects.", "; the clock keeps speaking and retries."]
        where text.hasSuffix(clause) {
            return String(text.dropLast(clause.count)) + "."
        }
        return text
    }

    private var sentence: String {
        switch kind {
        case .refused(let code):
            // 4/5 under MQTT 3.1.1; 134 (bad user name or password) and 135 (not authorized) under MQTT 5.
            let fix =
                [4, 5, 134, 135].contains(code)
                ? "check the username and the password file, and the broker's password_file and ACL"
                : "check the broker's listener and the client id"
            return "The MQTT broker \(broker) refused the connection: \(reason) (CONNACK \(code)); \(fix)."
        case .unavailable:
            return "MQTT broker \(broker): \(reason)."
        case .timedOut:
            return
                "The MQTT broker \(broker) accepted the connection but did not answer it in time; check that it is an MQTT listener and not overloaded."
        case .library(let call, let code, let number):
            let fix: String
            switch Int(code) {
            case Int(MOSQ_ERR_ERRNO.rawValue) where number == EAFNOSUPPORT:
                // The socket could not even be made: nothing reached the broker.
                fix =
                    "this process may not open network sockets, so the broker was never reached; a sandbox forbids it, such as a systemd unit whose RestrictAddressFamilies= lacks AF_INET and AF_INET6 (the shipped unit allows them: reinstall it, or add them to your override)"
            case Int(MOSQ_ERR_TLS.rawValue):
                fix =
                    "check that the broker speaks TLS there and that its certificate is signed by the ca-file and names the host"
            case Int(MOSQ_ERR_ERRNO.rawValue), Int(MOSQ_ERR_NO_CONN.rawValue), Int(MOSQ_ERR_CONN_LOST.rawValue):
                fix =
                    "check that the broker runs and listens on that host and port; the clock keeps speaking and reconnects"
            case Int(MOSQ_ERR_EAI.rawValue):
                // getaddrinfo failed: the broker was never reached, so its log has nothing.
                fix =
                    "the broker's host name could not be resolved: check the host in the broker address (or use its IP address) and this machine's DNS; the clock keeps speaking and retries"
            case Int(MOSQ_ERR_INVAL.rawValue):
                fix = "check the broker address, topic and file names in the configuration"
            case Int(Mosquitto.aborted), Int(MOSQ_ERR_PROTOCOL.rawValue), Int(MOSQ_ERR_MALFORMED_PACKET.rawValue),
                Int(MOSQ_ERR_MALFORMED_UTF8.rawValue), Int(MOSQ_ERR_DUPLICATE_PROPERTY.rawValue):
                // Whatever answered on that address sent bytes that are not MQTT as libmosquitto reads it.
                fix =
                    "what answers on that address is not speaking MQTT as expected: check that the host and port are an MQTT broker's listener (not another service, or a TLS port without ca-file); the clock keeps speaking and reconnects"
            default:
                fix = "see the broker's log"
            }
            return "MQTT broker \(broker): \(call) failed: \(reason); \(fix)."
        }
    }

    /// `savedErrno`: the errno of a call made on another thread (errno is per thread).
    static func library(_ call: String, _ code: Int32, broker: String, savedErrno: Int32? = nil) -> MQTTError {
        let e = savedErrno ?? errno
        let reason =
            code == Mosquitto.aborted
            ? "libmosquitto gave up on a packet it could not read (it aborts the process on an MQTT 5 property it does not know; the clock caught that and closed the connection)"
            : code == Mosquitto.errErrno ? String(cString: Glibc.strerror(e)) + " (errno \(e))" : Mosquitto.strerror(code)
        return MQTTError(
            kind: .library(call: call, code: code, errno: code == Mosquitto.errErrno ? e : 0), reason: trimmed(reason),
            broker: broker)
    }
}

/// libmosquitto's texts end in a full stop; ours continue the sentence.
func trimmed(_ text: String) -> String { text.hasSuffix(".") ? String(text.dropLast()) : text }

/// Where the client stands; reported through `MQTTClient.onState` on every change.
public enum MQTTState: Equatable, Sendable {
    case idle
    /// TCP (and TLS) connect and CONNECT sent; waiting for CONNACK.
    case connecting
    case connected
    /// The last attempt failed or the connection was lost; the next attempt is `retryIn` seconds after the failure.
    case waiting(error: MQTTError, retryIn: Double)
    case stopped
}

/// What the owner's event loop must watch for the client: the socket (and whether for writing),
/// and one deadline on CLOCK_MONOTONIC (keepalive, connect timeout or the next reconnect).
public struct MQTTWatch: Equatable, Sendable {
    /// -1: no socket.
    public var fd: Int32
    public var writable: Bool
    /// Seconds on CLOCK_MONOTONIC (`MQTTClient.now()`); nil: no timer.
    public var deadline: Double?

    public static let none = MQTTWatch(fd: -1, writable: false, deadline: nil)
}

/// An MQTT client over libmosquitto in external-loop mode: no library thread, no timer of its own.
///
/// The owner (the daemon's one epoll loop) drives it, like libcurl's multi-socket API:
/// - `onWatch(old, new)` is called whenever the socket, the write interest or the deadline
///   changes: stop watching `old.fd` (it may already be closed), watch `new.fd` for reading (and
///   writing when `new.writable`), and arm one monotonic timer at `new.deadline` (disarm on nil);
/// - on socket events call `handle(readable:writable:)`, when the timer fires `handleDeadline()`.
///
/// Everything runs on the owner's thread; callbacks (`onState`, `onConnect`, `onMessage`) are
/// called from inside those calls and may publish and subscribe. While connected and idle, the
/// only deadline is the keepalive: one `mosquitto_loop_misc` (a PINGREQ) per `keepalive` seconds.
public final class MQTTClient {
    public let options: MQTTOptions
    public var onState: ((MQTTState) -> Void)?
    /// Called on each accepted connection, first and re-connections alike: (re)subscribe and
    /// (re)publish availability and retained state here.
    public var onConnect: (() -> Void)?
    public var onMessage: ((MQTTMessage) -> Void)?
    /// A message whose payload is longer than `options.maximumPayload`: its topic and length.
    public var onOversized: ((_ topic: String, _ bytes: Int) -> Void)?
    public var onWatch: ((_ old: MQTTWatch, _ new: MQTTWatch) -> Void)? {
        didSet {
            reported = .none
            sync()
        }
    }

    public private(set) var state: MQTTState = .idle
    /// The delay before the next reconnect attempt (grows after each failure, reset on CONNACK).
    public private(set) var backoff: Double
    /// Consecutive failed attempts since the last accepted connection.
    public private(set) var failures = 0
    /// Consecutive connections the broker accepted and then closed within `stableAfter`
    /// seconds. MQTT 3.1.1 says nothing on the wire when the broker drops a client because
    /// another connected with the same client id, so a run of these is how a second daemon with
    /// the same room shows; each such connection also doubles the backoff, so the two stop
    /// taking the connection from each other every second.
    public private(set) var shortSessions = 0

    private let mosq: Mosquitto.Handle
    private var reported = MQTTWatch.none
    private var connectStarted = 0.0
    private var retryAt = 0.0
    /// Last time a read or a keepalive happened: the next keepalive is `keepalive` after the later.
    private var lastRead = 0.0
    private var lastMisc = 0.0
    /// Set by the C callbacks during a loop call, acted on after it returns.
    private var refusal: Int32?
    private var tried = false
    /// A connect call is running off the loop (see `offLoop`): nothing touches `mosq` meanwhile.
    private var resolving = false

    /// Runs a call that may block off the owner's thread, and calls `done` back on it. The connect
    /// call is one: libmosquitto resolves the broker's name on the calling thread (measured: 10 s
    /// per attempt when the DNS server does not answer), and the owner's loop must never wait on
    /// the network. nil: the call runs inline (a one-connection probe has nothing else to do).
    public var offLoop: ((_ work: @escaping () -> Int32, _ done: @escaping (Int32) -> Void) -> Void)?
    private var connectedAt = 0.0
    /// The backoff when the current connection was accepted: restored if it ends at once.
    private var backoffBeforeConnect = 0.0

    public init(_ options: MQTTOptions) throws(MQTTError) {
        self.options = options
        self.backoff = options.backoffInitial
        if let why = Mosquitto.loadFailure {
            throw MQTTError(kind: .unavailable, reason: why, broker: options.brokerName)
        }
        guard let m = Mosquitto.new(clientID: options.clientID) else {
            throw MQTTError.library("mosquitto_new", Mosquitto.errErrno, broker: options.brokerName)
        }
        mosq = m
        Mosquitto.setUserData(m, Unmanaged.passUnretained(self).toOpaque())
        let broker = options.brokerName
        func check(_ call: String, _ rc: Int32) throws(MQTTError) {
            if rc != Mosquitto.success {
                Mosquitto.destroy(m)
                throw MQTTError.library(call, rc, broker: broker)
            }
        }
        // MQTT 5: a subscription may ask for the retain flag as the publisher set it (MQTT 3.1.1
        // clears it on everything but the replay at subscribe), so a command retained while the
        // room is connected is recognised too.
        try check("mosquitto_int_option", Mosquitto.useMQTT5(m))
        if let will = options.will {
            try check(
                "mosquitto_will_set",
                Mosquitto.willSet(
                    m, topic: will.topic, payload: will.payload, qos: Int32(will.qos), retain: will.retained))
        }
        if let user = options.username {
            try check(
                "mosquitto_username_pw_set",
                Mosquitto.usernamePasswordSet(m, username: user, password: options.password))
        }
        if let ca = options.caFile { try check("mosquitto_tls_set", Mosquitto.tlsSet(m, caFile: ca)) }
        Mosquitto.connectCallbackSet(m) { _, obj, rc in
            guard let obj else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().connack(rc)
        }
        Mosquitto.disconnectCallbackSet(m) { _, _, _ in
            // Acted on after the loop call returns (the socket is closed by then).
        }
        Mosquitto.messageCallbackSet(m) { _, obj, msg in
            guard let obj, let msg else { return }
            let m = msg.pointee
            let client = Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue()
            let topic = m.topic.map { String(cString: $0) } ?? ""
            guard Int(m.payloadlen) <= client.options.maximumPayload else {
                client.onOversized?(topic, Int(m.payloadlen))
                return
            }
            let payload =
                m.payloadlen > 0 && m.payload != nil
                ? Array(UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen))) : []
            let message = MQTTMessage(topic: topic, payload: payload, qos: Int(m.qos), retained: m.retain)
            client.onMessage?(message)
        }
    }

    deinit { Mosquitto.destroy(mosq) }

    /// Seconds on CLOCK_MONOTONIC, the clock of `MQTTWatch.deadline`.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Starts connecting; failures are reported through `onState` and retried with backoff,
    /// never thrown (the broker may come later).
    public func start() {
        guard state == .idle || state == .stopped else { return }
        attempt()
        sync()
    }

    /// Sends DISCONNECT (so the broker does not publish the Last Will) and stops reconnecting.
    public func stop() {
        if !resolving {
            if state == .connected { _ = Mosquitto.disconnect(mosq) }
            if Mosquitto.socket(mosq) >= 0 { _ = Mosquitto.disconnect(mosq) }
        }
        setState(.stopped)
        sync()
    }

    /// The socket is readable (or has an error/hang-up) and/or writable.
    public func handle(readable: Bool, writable: Bool) {
        guard !resolving else { return }
        if readable && Mosquitto.socket(mosq) >= 0 {
            lastRead = Self.now()
            let rc = Mosquitto.loopRead(mosq)
            if rc != Mosquitto.success || Mosquitto.socket(mosq) < 0 { lost("mosquitto_loop_read", rc) }
        }
        if writable && Mosquitto.socket(mosq) >= 0 {
            let rc = Mosquitto.loopWrite(mosq)
            if rc != Mosquitto.success || Mosquitto.socket(mosq) < 0 { lost("mosquitto_loop_write", rc) }
        }
        sync()
    }

    /// The deadline of the last `MQTTWatch` has come.
    public func handleDeadline() {
        guard !resolving else { return }
        let now = Self.now()
        switch state {
        case .connected:
            lastMisc = now
            let rc = Mosquitto.loopMisc(mosq)
            if rc != Mosquitto.success || Mosquitto.socket(mosq) < 0 { lost("mosquitto_loop_misc", rc) }
        case .connecting where now >= connectStarted + options.connectTimeout:
            _ = Mosquitto.disconnect(mosq)
            fail(MQTTError(kind: .timedOut, reason: "no CONNACK", broker: options.brokerName))
        case .waiting where now >= retryAt:
            attempt()
        default:
            break
        }
        sync()
    }

    /// Publishes (QoS 0 unless said otherwise). Fails with `MOSQ_ERR_NO_CONN` while not connected:
    /// republish from `onConnect` instead of queueing.
    public func publish(_ message: MQTTMessage) throws(MQTTError) {
        guard !resolving else { throw MQTTError.library("mosquitto_publish", Int32(MOSQ_ERR_NO_CONN.rawValue), broker: options.brokerName) }
        let rc = Mosquitto.publish(
            mosq, topic: message.topic, payload: message.payload, qos: Int32(message.qos), retain: message.retained)
        defer { sync() }
        if rc != Mosquitto.success { throw MQTTError.library("mosquitto_publish", rc, broker: options.brokerName) }
    }

    /// Subscribes to a topic filter (`+` and `#` wildcards). With `retainAsPublished` each
    /// message keeps the retain flag its publisher set (MQTT 5), not only those replayed now.
    public func subscribe(_ pattern: String, qos: Int = 0, retainAsPublished: Bool = false) throws(MQTTError) {
        guard !resolving else { throw MQTTError.library("mosquitto_subscribe", Int32(MOSQ_ERR_NO_CONN.rawValue), broker: options.brokerName) }
        let rc = Mosquitto.subscribe(
            mosq, pattern: pattern, qos: Int32(qos), options: retainAsPublished ? Mosquitto.retainAsPublished : 0)
        defer { sync() }
        if rc != Mosquitto.success { throw MQTTError.library("mosquitto_subscribe", rc, broker: options.brokerName) }
    }

    // MARK: - State machine

    /// `mosquitto_connect_async` the first time (it records host, port and keepalive), then
    /// `mosquitto_reconnect_async`.
    private func attempt() {
        connectStarted = Self.now()
        refusal = nil
        let first = !tried
        tried = true
        let call = first ? "mosquitto_connect_async" : "mosquitto_reconnect_async"
        let handle = SendableHandle(mosq: mosq, client: self)
        let (host, port, keepalive) = (options.host, Int32(options.port), Int32(options.keepalive))
        let callErrno = ErrnoBox()
        let work: () -> Int32 = {
            let rc =
                first
                ? Mosquitto.connectAsync(handle.mosq, host: host, port: port, keepalive: keepalive)
                : Mosquitto.reconnectAsync(handle.mosq)
            callErrno.value = errno  // errno is the calling thread's: keep it for the message
            return rc
        }
        setState(.connecting)
        guard let offLoop else { return connectReturned(call, work(), errno: callErrno.value) }
        resolving = true
        sync()
        offLoop(work) { [self] rc in
            resolving = false
            connectReturned(call, rc, errno: callErrno.value)
            sync()
        }
    }

    /// The connect call returned (the name resolved, the TCP connect under way): from now the
    /// connect timeout runs; a stop asked for meanwhile is carried out now.
    private func connectReturned(_ call: String, _ rc: Int32, errno savedErrno: Int32) {
        connectStarted = Self.now()
        if state == .stopped {
            if Mosquitto.socket(mosq) >= 0 { _ = Mosquitto.disconnect(mosq) }
            return
        }
        if rc != Mosquitto.success { fail(MQTTError.library(call, rc, broker: options.brokerName, savedErrno: savedErrno)) }
    }

    /// CONNACK arrived (from inside `mosquitto_loop_read`).
    private func connack(_ rc: Int32) {
        guard rc == 0 else {
            refusal = rc
            return
        }
        failures = 0
        backoffBeforeConnect = backoff
        backoff = options.backoffInitial
        connectedAt = Self.now()
        lastMisc = connectedAt
        setState(.connected)
        onConnect?()
    }

    /// A loop call failed or closed the socket.
    private func lost(_ call: String, _ rc: Int32) {
        if state == .stopped { return }
        if state == .connected {
            // The backoff starts again only after a connection that lasted; one closed at once
            // (a takeover by the same client id, a broker that drops us) keeps it growing.
            if Self.now() - connectedAt >= options.stableAfter {
                shortSessions = 0
            } else {
                shortSessions += 1
                backoff = backoffBeforeConnect
            }
        }
        if Mosquitto.socket(mosq) >= 0 { _ = Mosquitto.disconnect(mosq) }
        if let code = refusal {
            refusal = nil
            fail(
                MQTTError(
                    kind: .refused(code: code),
                    reason: trimmed(code >= 128 ? Mosquitto.reasonString(code) : Mosquitto.connackString(code)),
                    broker: options.brokerName))
        } else {
            let code = rc == Mosquitto.success ? Int32(MOSQ_ERR_CONN_LOST.rawValue) : rc
            fail(MQTTError.library(call, code, broker: options.brokerName))
        }
    }

    private func fail(_ error: MQTTError) {
        failures += 1
        let delay = options.retryDelay(backoff: backoff, random: Double.random(in: 0..<1))
        retryAt = Self.now() + delay
        backoff = min(options.backoffMax, backoff * 2)
        setState(.waiting(error: error, retryIn: delay))
    }

    /// Reports every change, and every failed attempt (two in a row may look alike).
    private func setState(_ s: MQTTState) {
        if case .waiting = s {} else { guard s != state else { return } }
        state = s
        onState?(s)
    }

    /// Computes what the owner must watch and reports it if it changed.
    private func sync() {
        var w = MQTTWatch.none
        // While a connect runs off the loop, `mosq` is that thread's: nothing to watch, no deadline
        // (the resolver's own time-outs end it).
        let fd = resolving ? -1 : Mosquitto.socket(mosq)
        if fd >= 0 {
            w.fd = fd
            w.writable = Mosquitto.wantWrite(mosq)
        }
        switch state {
        case .connecting where resolving: w.deadline = nil
        case .connecting: w.deadline = connectStarted + options.connectTimeout
        case .connected: w.deadline = max(lastRead, lastMisc) + Double(options.keepalive)
        case .waiting: w.deadline = retryAt
        default: w.deadline = nil
        }
        guard w != reported else { return }
        let old = reported
        reported = w
        onWatch?(old, w)
    }
}

/// The handle and its client, kept alive by the connect running off the loop (the client cannot be
/// destroyed under it); used only by that thread while `resolving` is set.
private struct SendableHandle: @unchecked Sendable {
    let mosq: Mosquitto.Handle
    let client: MQTTClient
}

/// The errno of the connect call, carried from the thread that made it (read after the job ends).
private final class ErrnoBox: @unchecked Sendable {
    var value: Int32 = 0
}
