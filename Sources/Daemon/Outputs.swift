import ConfigFiles
import ALSAOutput
import Playback
import TalkingClockCore

/// One kind of sound output: how a device name is opened, and whether a handle may be held open
/// between announcements. MPD's output registry in small: a new output is one more entry in
/// `Outputs.all`, and nothing else in the daemon changes.
protocol OutputDriver: Sendable {
    /// A name for logs ("alsa").
    var name: String { get }
    /// Whether this driver serves `device` (the first that does is used).
    func serves(_ device: String) -> Bool
    /// Opens `device` ahead of use; nil when this driver keeps nothing open (the handle would hold
    /// hardware, or cost wake-ups). Throws when the device cannot be opened now.
    func openAhead(_ device: String) throws(SinkError) -> AnyObject?
    /// A sink for `device` in `format`, from the handle opened ahead if there is one.
    func sink(_ device: String, format: StreamFormat, ahead: AnyObject?) throws(SinkError) -> any AudioSink
}

/// ALSA: every device name. A sound-server plugin (PulseAudio, PipeWire) is held open between
/// announcements, which holds no hardware and costs no wake-ups (measured: 0 context switches in 30 s);
/// `hw:` and `dmix` devices are closed again, so other programs can use them.
struct ALSAOutputDriver: OutputDriver {
    var name: String { "alsa" }
    func serves(_ device: String) -> Bool { true }

    func openAhead(_ device: String) throws(SinkError) -> AnyObject? {
        let opened = try ALSASink.Opened(device: device)
        return opened.isSoundServerPlugin ? opened : nil
    }

    func sink(_ device: String, format: StreamFormat, ahead: AnyObject?) throws(SinkError) -> any AudioSink {
        if let opened = ahead as? ALSASink.Opened, opened.deviceName == device,
            let sink = try? ALSASink(opened: opened, format: format)
        {
            return sink
        }
        return try ALSASink(device: device, format: format)
    }
}

/// The outputs the daemon knows, and the one handle it may hold open ahead of the next announcement.
final class Outputs {
    static let all: [any OutputDriver] = [ALSAOutputDriver()]

    private var ahead: (device: String, handle: AnyObject)?
    /// A device found not to keep a handle: not opened ahead again (unless checked).
    private var cold: String?

    static func driver(for device: String) -> any OutputDriver { all.first { $0.serves(device) } ?? all[0] }

    /// A sink for `device`: the handle opened ahead if it is for this device (falling back to a
    /// fresh open if it went stale, e.g. the sound server restarted).
    func sink(_ device: String, format: StreamFormat) throws(SinkError) -> any AudioSink {
        let handle = ahead?.device == device ? ahead?.handle : nil
        ahead = nil
        return try Self.driver(for: device).sink(device, format: format, ahead: handle)
    }

    /// Opens `device` ahead of the next announcement, so it skips the ~4 ms connection. With
    /// `check`, a device that keeps no handle is opened (and closed) again to see whether it can be
    /// opened now. Returns why it could not be opened.
    @discardableResult
    func warmUp(_ device: String, check: Bool = false) -> SinkError? {
        if ahead?.device == device { return nil }
        if cold == device && !check { return nil }
        ahead = nil
        do {
            if let handle = try Self.driver(for: device).openAhead(device) {
                ahead = (device, handle)
            } else {
                cold = device
            }
        } catch { return error }
        return nil
    }

    /// Opens `device` ahead on any thread (a reload's job): the handle to keep (nil: the driver
    /// keeps none), or why it cannot be opened now. `adopt` hands the handle to the loop.
    static func openAhead(_ device: String) -> Result<AnyObject?, SinkError> {
        do { return .success(try driver(for: device).openAhead(device)) } catch { return .failure(error) }
    }

    /// Takes what `openAhead` opened for `device` as the handle held until the next announcement.
    func adopt(_ device: String, _ opened: AnyObject?) {
        if let opened {
            ahead = (device, opened)
        } else {
            ahead = nil
            cold = device
        }
    }
}
