import CSpeechd

/// `voice-output = "speech-dispatcher"`: the phrase text through libspeechd at SSIP priority
/// `message`, which queues behind a screen reader (Orca speaks at `message` too) instead of
/// cutting it off, and is never dropped the way `notification` is. Blocking (a local socket);
/// call off the event loop. The only importer of CSpeechd.
public final class SpeechDispatcher {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let connection: UnsafeMutableRawPointer

    /// Connects (`spd_open2`); `autospawn` lets libspeechd start the server.
    public init(clientName: String = "talking-clock", autospawn: Bool = true) throws(Failure) {
        var err = [CChar](repeating: 0, count: 512)
        guard let c = tc_speechd_open(clientName, autospawn ? 1 : 0, &err, err.count) else {
            throw Failure(description: String(cString: err))
        }
        connection = c
    }

    deinit { tc_speechd_close(connection) }

    /// Queues `text` at priority `message` (`spd_say(…, SPD_MESSAGE, …)`); returns its id.
    @discardableResult
    public func say(_ text: String) throws(Failure) -> Int {
        var err = [CChar](repeating: 0, count: 512)
        let id = tc_speechd_say_message(connection, text, &err, err.count)
        guard id > 0 else { throw Failure(description: String(cString: err)) }
        return Int(id)
    }
}
