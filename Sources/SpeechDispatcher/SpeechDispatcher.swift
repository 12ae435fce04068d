import CSpeechd

/// How handing a phrase to speech-dispatcher ended: one value for the daemon's outcome, its log
/// and `status` (the daemon says "failed" or "skipped" naming speech-dispatcher unless `queued`).
public enum SpeechResult: Equatable, Sendable {
    /// speech-dispatcher accepted the text into its queue (SSIP `225 OK MESSAGE QUEUED`) with this
    /// message id. It speaks it when its turn comes, behind a screen reader's `message`; SSIP has
    /// no "is speaking" question, so this is as far as the clock can know that it spoke.
    case queued(messageID: Int)
    /// No answer within `seconds` (a server that hangs, is stopped, or a peer that never replies);
    /// the connection was dropped and the next use opens another.
    case timedOut(seconds: Double, reason: String)
    /// speech-dispatcher answered with an error.
    case refused(reason: String)
    /// Nothing speech-dispatcher at the address (not started, autospawn off or failed), it closed
    /// the connection, or libspeechd is not installed.
    case notRunning(reason: String)

    /// One sentence naming speech-dispatcher, the reason and the fix.
    public var text: String {
        switch self {
        case .queued(let id):
            "speech-dispatcher queued the text (message \(id))"
        case .timedOut(_, let reason):
            "\(reason); it may be hung or stopped (check 'spd-say test'), the clock tries a new connection next time"
        case .refused(let reason):
            "\(reason); see speech-dispatcher's log (~/.cache/speech-dispatcher/log)"
        case .notRunning(let reason):
            "\(reason); start it ('speech-dispatcher', Debian/Ubuntu package speech-dispatcher) or set voice-output = \"clips\""
        }
    }

    public var isQueued: Bool { if case .queued = self { true } else { false } }
}

/// `voice-output = "speech-dispatcher"`: the phrase text through libspeechd at SSIP priority
/// `message`, which queues behind a screen reader (Orca speaks at `message` too) instead of
/// cutting it off, and is never dropped the way `notification` is. The only importer of CSpeechd.
///
/// Blocking, but bounded: every exchange (the connect and its greeting, each message) ends within
/// `timeout` seconds, plus at most one run of libspeechd's autospawn. Call it off the event loop,
/// one call at a time (not thread-safe). A connection that failed is closed, and the next `speak`
/// opens a new one, so a speech-dispatcher that comes back is used again.
public final class SpeechDispatcher {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public var result: SpeechResult
    }

    /// A bound for one exchange: SSIP replies come in milliseconds; autospawn takes longer and is
    /// not under this bound's control beyond its connect.
    public static let defaultTimeout = 2.0

    public let clientName: String
    public let autospawn: Bool
    public let timeout: Double
    /// The server's Unix socket; nil: libspeechd's default ($SPEECHD_ADDRESS, or
    /// $XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock).
    public let socketPath: String?
    private var connection: UnsafeMutableRawPointer?

    /// Does not connect: the first `speak` does.
    public init(clientName: String = "talking-clock", socketPath: String? = nil, autospawn: Bool = true, timeout: Double) {
        self.clientName = clientName
        self.socketPath = socketPath
        self.autospawn = autospawn
        self.timeout = timeout
    }

    /// Connects now (`spd_open2`), within `defaultTimeout`; `autospawn` lets libspeechd start the
    /// server. Throws with the reason.
    public convenience init(clientName: String = "talking-clock", autospawn: Bool = true) throws(Failure) {
        self.init(clientName: clientName, autospawn: autospawn, timeout: Self.defaultTimeout)
        if let failure = open() { throw Failure(description: failure.text, result: failure) }
    }

    deinit { close() }

    /// Whether a connection is open (it may still turn out dead at the next exchange).
    public var isConnected: Bool { connection != nil }

    /// Hands `text` to speech-dispatcher at priority `message` (`spd_say(…, SPD_MESSAGE, …)`),
    /// connecting first if needed. Any failure closes the connection.
    public func speak(_ text: String) -> SpeechResult {
        if connection == nil, let failure = open() { return failure }
        var status: Int32 = 0
        var err = [CChar](repeating: 0, count: 512)
        let id = tc_speechd_say_message(connection, text, timeout, &status, &err, err.count)
        if id > 0 { return .queued(messageID: Int(id)) }
        close()
        return result(status, Self.text(err))
    }

    /// `speak`, throwing on anything but `queued`; returns the message id.
    @discardableResult
    public func say(_ text: String) throws(Failure) -> Int {
        let r = speak(text)
        guard case .queued(let id) = r else { throw Failure(description: r.text, result: r) }
        return id
    }

    /// Closes the connection (`spd_close`); the next `speak` opens another.
    public func close() {
        if let c = connection { tc_speechd_close(c) }
        connection = nil
    }

    private func open() -> SpeechResult? {
        var status: Int32 = 0
        var err = [CChar](repeating: 0, count: 512)
        connection = tc_speechd_open(clientName, socketPath, autospawn ? 1 : 0, timeout, &status, &err, err.count)
        return connection == nil ? result(status, Self.text(err)) : nil
    }

    /// A C string in a buffer, up to its terminator.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func result(_ status: Int32, _ reason: String) -> SpeechResult {
        switch UInt32(bitPattern: status) {
        case TC_SPEECHD_TIMED_OUT.rawValue: .timedOut(seconds: timeout, reason: reason)
        case TC_SPEECHD_REFUSED.rawValue: .refused(reason: reason)
        default: .notRunning(reason: reason)
        }
    }
}

extension SpeechDispatcher {
    /// `SpeechResult` by a name that the class (which shares the module's name) can be asked for.
    public typealias Result = SpeechResult
}
