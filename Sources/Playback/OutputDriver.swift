import TalkingClockCore

/// A device connection made ahead of its stream: the expensive part of opening (a sound server's
/// connection, the device's configuration space) done, nothing playing yet.
public protocol PreparedOutput: AnyObject {
    /// The device name it was opened for.
    var deviceName: String { get }
    /// Whether holding it between announcements costs nothing: no hardware taken from other
    /// programs, no wake-ups (a sound-server plugin), so the next announcement can skip the open.
    var worthKeeping: Bool { get }
}

/// One kind of sound output: which device names it serves and how they are opened. MPD's output
/// plugin in small: the registry (`OutputRegistry` in the `Outputs` target) lists one of these per
/// kind, and every caller (the daemon, `say`, `check`, `record-pack`) opens devices through it.
///
/// Contract: every method may block for as long as the device takes to open (a sound server's
/// connection); the daemon calls them on its device thread, never on its event loop.
public protocol OutputDriver: Sendable {
    /// A name for logs and `outputs` ("alsa").
    var name: String { get }
    /// Whether this driver serves `device` (the registry asks each in order; the last serves all).
    func serves(_ device: String) -> Bool
    /// Opens `device` without a stream yet. Throws `.notFound` or `.busy`.
    func prepare(_ device: String) throws(SinkError) -> any PreparedOutput
    /// A sink for `device` playing `format`, from `prepared` if it is for that device and still
    /// good (else a fresh open). Throws `.notFound`, `.busy` or `.unsupported`.
    func sink(_ device: String, format: StreamFormat, prepared: (any PreparedOutput)?) throws(SinkError) -> any AudioSink
    /// Whether `device` can play `format` now (`check`); by default, opens a sink and closes it.
    /// An output whose sink only starts connecting (Snapcast) waits for the connection here.
    func probe(_ device: String, format: StreamFormat) throws(SinkError)
    /// Seconds before its anchor at which a sink for `device` must be opened for the anchor to be
    /// heard on time, when that is more than a sound card needs (whose delay the session handles
    /// within any lead): a network output's end-to-end latency and start-up. Pure: no I/O.
    func leadTime(_ device: String) -> Double
}

extension OutputDriver {
    public func leadTime(_ device: String) -> Double { 0 }

    /// Opens, configures and closes `device` for `format`: whether it can play it now.
    public func probe(_ device: String, format: StreamFormat) throws(SinkError) {
        try sink(device, format: format, prepared: nil).close()
    }
}
