import ALSAOutput
import Playback
import SnapcastOutput
import TalkingClockCore

/// Every kind of sound output, in one list (MPD's `output/Registry.cxx`): the daemon, `say`,
/// `check` and `record-pack` open devices only through it. A new output is its target plus one
/// line in `drivers`, before ALSA (which serves every name it is given).
public enum OutputRegistry {
    public static let drivers: [any OutputDriver] = [
        SnapcastOutputDriver(),
        ALSAOutputDriver(),
    ]

    /// The driver for `device`: the first that serves it.
    public static func driver(for device: String) -> any OutputDriver {
        drivers.first { $0.serves(device) } ?? drivers[drivers.count - 1]
    }

    /// A sink for `device` in `format` (opened now).
    public static func open(_ device: String, format: StreamFormat) throws(SinkError) -> any AudioSink {
        try driver(for: device).sink(device, format: format, prepared: nil)
    }

    /// Opens `device` without a stream (the expensive part of opening, e.g. on another thread while
    /// the pack decodes); `open(_:format:prepared:)` makes the stream.
    public static func prepare(_ device: String) throws(SinkError) -> any PreparedOutput {
        try driver(for: device).prepare(device)
    }

    public static func open(_ device: String, format: StreamFormat, prepared: (any PreparedOutput)?) throws(SinkError)
        -> any AudioSink
    {
        try driver(for: device).sink(device, format: format, prepared: prepared)
    }

    /// Labels the process's streams for the sound server (application name and id, and `role` as
    /// `media.role`) so users can route or duck the clock's voice. Call before any thread exists:
    /// it sets environment variables the sound-server plugins read when they connect.
    public static func labelStreams(role: String?, environment: [String: String]) {
        StreamLabel.apply(role: role, environment: environment)
    }

    /// Seconds ahead of its anchor a sink for `device` must be opened (0: any lead will do); the
    /// daemon wakes at least this early for a boundary.
    public static func leadTime(_ device: String) -> Double {
        driver(for: device).leadTime(device)
    }

    /// Whether `device` can play `format` now (`check`).
    public static func probe(_ device: String, format: StreamFormat) throws(SinkError) {
        try driver(for: device).probe(device, format: format)
    }
}

/// The one device connection a long-running process keeps open between announcements, when the
/// driver says holding it is free (a sound-server plugin): the next announcement skips the ~4 ms
/// connection. Not thread-safe: its owner (the daemon's device thread) uses it from one thread.
public final class WarmOutput {
    private var held: (any PreparedOutput)?
    /// A device found not worth keeping: not opened ahead again (unless checked).
    private var cold: String?

    public init() {}

    /// A sink for `device`, from the held connection if it is for this device (a fresh open if it
    /// went stale, e.g. the sound server restarted).
    public func sink(_ device: String, format: StreamFormat) throws(SinkError) -> any AudioSink {
        let prepared = held?.deviceName == device ? held : nil
        held = nil
        return try OutputRegistry.open(device, format: format, prepared: prepared)
    }

    /// Opens `device` ahead of the next announcement if it is worth keeping. With `check`, a device
    /// not worth keeping is opened (and closed) again to see whether it can be opened now.
    /// Returns why it could not be opened.
    @discardableResult
    public func warmUp(_ device: String, check: Bool = false) -> SinkError? {
        if held?.deviceName == device { return nil }
        if cold == device && !check { return nil }
        held = nil
        do {
            adopt(try OutputRegistry.prepare(device), for: device)
        } catch { return error }
        return nil
    }

    /// Takes a connection opened elsewhere (a reload's job) as the one held.
    public func adopt(_ prepared: (any PreparedOutput)?, for device: String) {
        if let prepared, prepared.worthKeeping {
            held = prepared
            cold = nil
        } else {
            held = nil
            cold = device
        }
    }

    /// Lets go of the held connection (a device that stopped answering).
    public func drop() { held = nil }
}
