import TalkingClockCore

/// Why a sink operation failed. Messages name the device and, for ALSA, the call and
/// `snd_strerror` text.
public struct SinkError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The device does not exist (e.g. a wrong name, an unplugged card).
        case notFound
        /// Another program holds the device.
        case busy
        /// The device disappeared or failed while playing.
        case failed
        /// The device cannot play the stream's format.
        case unsupported
        /// The device stopped consuming frames while some were queued (a sound server corked the
        /// stream, e.g. PulseAudio's module-role-cork or a WirePlumber "cork" rule when a call
        /// starts). Reported by `PlaybackSession`, never by a sink.
        case stalled
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// A descriptor the event loop must watch on the sink's behalf.
public struct PollDescriptor: Hashable, Sendable {
    public var fd: Int32
    public var events: Int16

    public init(fd: Int32, events: Int16) {
        self.fd = fd
        self.events = events
    }
}

/// A sound output that plays one continuous stream of interleaved S16 frames.
///
/// Contract (modelled on MPD's `AudioOutput`):
/// - One owner calls every method from one thread (the daemon's loop thread or the CLI's).
/// - `open` happens in the initialiser of a concrete sink; after `close()` no other call is made.
/// - `write` never blocks: it accepts as many frames as fit now (possibly 0) and returns that count.
///   The stream starts playing by itself with the first write.
/// - `delay()` is the number of frames written but not yet played (ALSA's `snd_pcm_delay`).
///   A frame written when `delay()` is `d` plays `d / rate` seconds from now. A sink without a
///   clock (a file) reports 0.
/// - Errors are `SinkError`s: `.notFound` and `.busy` come from opening; `.failed` means the
///   stream broke (device gone) and the owner should report the announcement failed and close.
///   Underruns and suspends are recovered inside the sink and are not errors.
public protocol AudioSink: AnyObject {
    /// The device's name as the user gave it.
    var deviceName: String { get }
    var format: StreamFormat { get }
    /// Frames the device plays per wake-up; completions are reported within one period.
    var periodFrames: Int { get }

    func write(_ frames: UnsafeBufferPointer<Int16>) throws(SinkError) -> Int
    func delay() throws(SinkError) -> Int
    /// Descriptors to wait on for "ready for more frames".
    func pollDescriptors() -> [PollDescriptor]
    /// Lets the sink consume the events (ALSA plugins need this) after a wake-up.
    func acknowledge(revents: [Int16])
    /// Discards anything not yet played (used to cut an announcement).
    func stop()
    /// Releases the device.
    func close()
}
