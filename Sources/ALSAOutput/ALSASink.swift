import CAlsa
import Glibc
import Playback
import TalkingClockCore

/// An `AudioSink` over an ALSA PCM (any name: `default`, `pulse`, `plughw:1`, `file:FILE=x.wav`).
///
/// Opens non-blocking, asks for interleaved S16_LE at the stream's rate and channels and lets
/// ALSA resample where the device needs it. Recovers from underrun (-EPIPE) and suspend
/// (-ESTRPIPE) the way alsa-utils' `aplay` does, without sleeping. Errors carry the ALSA call,
/// its code and `snd_strerror` text.
public final class ALSASink: AudioSink {
    public let deviceName: String
    public let format: StreamFormat
    public let periodFrames: Int
    public let bufferFrames: Int
    private var pcm: OpaquePointer?
    private var pollFDs: [pollfd] = []

    /// Requested device buffer: short enough that a cut is quick, long enough to ride out a busy CPU.
    public static let bufferMicroseconds: UInt32 = 100_000
    public static let periodMicroseconds: UInt32 = 10_000

    /// A device opened but not yet configured: the sound-server connection and the ALSA
    /// configuration are done (most of the cost of opening: ~4 ms with PulseAudio), nothing
    /// plays, and no stream exists yet. The daemon keeps one between announcements when the
    /// device is a sound-server plugin, so that a `say` starts sooner.
    public final class Opened {
        public let deviceName: String
        fileprivate var handle: OpaquePointer?

        /// Opens `device` (non-blocking). Throws `.notFound` or `.busy`.
        public init(device: String) throws(SinkError) {
            ALSASink.silenceLibraryMessages
            deviceName = device
            var pcm: OpaquePointer?
            // snd_pcm_open
            let rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
            guard rc >= 0, let pcm else { throw ALSASink.openError(device: device, code: rc) }
            handle = pcm
        }

        /// Whether the PCM is a plugin that talks to a sound server (PulseAudio, PipeWire, JACK:
        /// ALSA "ioplug"/"extplug" types). Holding such a PCM open takes no hardware from other
        /// programs; holding `hw:` or `dmix` open would.
        public var isSoundServerPlugin: Bool {
            guard let handle else { return false }
            let type = snd_pcm_type(handle)
            return type == SND_PCM_TYPE_IOPLUG || type == SND_PCM_TYPE_EXTPLUG
        }

        fileprivate func take() -> OpaquePointer? {
            defer { handle = nil }
            return handle
        }

        deinit {
            // snd_pcm_close
            if let handle { snd_pcm_close(handle) }
        }
    }

    /// Opens and configures the device. Throws `.notFound`, `.busy` or `.unsupported`.
    public convenience init(device: String, format: StreamFormat) throws(SinkError) {
        try self.init(opened: try Opened(device: device), format: format)
    }

    /// Configures a device opened earlier (and consumes it).
    public init(opened: Opened, format: StreamFormat) throws(SinkError) {
        let device = opened.deviceName
        self.deviceName = device
        guard let handle = opened.take() else {
            throw SinkError(.notFound, "ALSA device \"\(device)\" was already used; open it again.")
        }
        do throws(SinkError) {
            let (period, buffer, rate) = try Self.configure(handle, device: device, format: format)
            self.periodFrames = period
            self.bufferFrames = buffer
            self.format = StreamFormat(sampleRate: rate, channels: format.channels)
        } catch {
            snd_pcm_close(handle)
            throw error
        }
        self.pcm = handle
        let count = Int(snd_pcm_poll_descriptors_count(handle))
        if count > 0 {
            pollFDs = [pollfd](repeating: pollfd(), count: count)
            // snd_pcm_poll_descriptors
            _ = snd_pcm_poll_descriptors(handle, &pollFDs, UInt32(count))
        }
    }

    deinit { close() }

    fileprivate static let silenceLibraryMessages: Void = tc_alsa_silence_errors()

    private static func configure(_ pcm: OpaquePointer, device: String, format: StreamFormat) throws(SinkError) -> (Int, Int, Int) {
        var hw: OpaquePointer?
        // snd_pcm_hw_params_malloc (the _alloca variant is a macro Swift cannot call)
        guard snd_pcm_hw_params_malloc(&hw) >= 0, let hw else {
            throw SinkError(.failed, "Could not configure ALSA device \"\(device)\": out of memory.")
        }
        defer { snd_pcm_hw_params_free(hw) }
        func check(_ code: Int32, _ call: String, _ kind: SinkError.Kind = .unsupported) throws(SinkError) {
            if code < 0 {
                throw SinkError(kind, "ALSA device \"\(device)\" cannot play \(format): \(call) failed: \(strerror(code)) (\(code)). Try a 'plug:' device such as plughw:0 or 'default'.")
            }
        }
        try check(snd_pcm_hw_params_any(pcm, hw), "snd_pcm_hw_params_any")
        try check(snd_pcm_hw_params_set_rate_resample(pcm, hw, 1), "snd_pcm_hw_params_set_rate_resample")
        try check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access")
        try check(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE), "snd_pcm_hw_params_set_format(S16_LE)")
        try check(snd_pcm_hw_params_set_channels(pcm, hw, UInt32(format.channels)), "snd_pcm_hw_params_set_channels(\(format.channels))")
        var rate = UInt32(format.sampleRate)
        try check(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, nil), "snd_pcm_hw_params_set_rate_near(\(format.sampleRate))")
        guard rate == UInt32(format.sampleRate) else {
            throw SinkError(.unsupported, "ALSA device \"\(device)\" offers \(rate) Hz instead of \(format.sampleRate) Hz and will not resample; use a 'plug:' device such as plughw:0 or 'default'.")
        }
        var bufferTime = bufferMicroseconds
        var periodTime = periodMicroseconds
        // Devices that refuse these sizes keep their own; that only changes latency, not correctness.
        _ = snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &bufferTime, nil)
        _ = snd_pcm_hw_params_set_period_time_near(pcm, hw, &periodTime, nil)
        try check(snd_pcm_hw_params(pcm, hw), "snd_pcm_hw_params", .failed)
        var period: snd_pcm_uframes_t = 0
        var buffer: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_period_size(hw, &period, nil)
        snd_pcm_hw_params_get_buffer_size(hw, &buffer)

        var sw: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&sw) >= 0, let sw else {
            throw SinkError(.failed, "Could not configure ALSA device \"\(device)\": out of memory.")
        }
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(pcm, sw), "snd_pcm_sw_params_current", .failed)
        // Start with the first frame written: the first sample goes out as early as possible.
        try check(snd_pcm_sw_params_set_start_threshold(pcm, sw, 1), "snd_pcm_sw_params_set_start_threshold", .failed)
        try check(snd_pcm_sw_params_set_avail_min(pcm, sw, period), "snd_pcm_sw_params_set_avail_min", .failed)
        try check(snd_pcm_sw_params(pcm, sw), "snd_pcm_sw_params", .failed)
        return (Int(max(1, period)), Int(buffer), Int(rate))
    }

    public func write(_ frames: UnsafeBufferPointer<Int16>) throws(SinkError) -> Int {
        guard let pcm, let base = frames.baseAddress, frames.count > 0 else { return 0 }
        let count = frames.count / format.channels
        while true {
            // snd_pcm_writei
            let n = snd_pcm_writei(pcm, base, snd_pcm_uframes_t(count))
            if n >= 0 { return Int(n) }
            let code = Int32(n)
            if code == -EAGAIN { return 0 }
            try recover(code, call: "snd_pcm_writei")
            if code == -ESTRPIPE { return 0 }
        }
    }

    /// The last delay the device reported, and how many queries in a row have failed since.
    private var lastDelay = 0
    private var delayFailures = 0
    /// Consecutive failed delay queries tolerated before the device counts as broken.
    static let maxDelayFailures = 8

    public func delay() throws(SinkError) -> Int {
        guard let pcm else { return 0 }
        var frames: snd_pcm_sframes_t = 0
        // snd_pcm_delay
        let code = snd_pcm_delay(pcm, &frames)
        if code < 0 {
            if code == -EPIPE || code == -ESTRPIPE {
                try recover(code, call: "snd_pcm_delay")
                lastDelay = 0
                return 0
            }
            // The pulse plugin answers -EIO now and then while its stream's latency is being
            // updated (seen once in 20 announcements, scripts/bench onset): a transient error
            // must not cost the announcement. Use the last value; only a run of failures is fatal.
            delayFailures += 1
            if delayFailures >= Self.maxDelayFailures {
                try recover(code, call: "snd_pcm_delay")
            }
            return lastDelay
        }
        delayFailures = 0
        lastDelay = max(0, Int(frames))
        return lastDelay
    }

    /// Underrun: prepare again and go on. Suspend: resume if the driver can, else prepare.
    /// Anything else means the device is gone or broken.
    private func recover(_ code: Int32, call: String) throws(SinkError) {
        guard let pcm else { return }
        switch code {
        case -EPIPE:
            // snd_pcm_prepare
            if snd_pcm_prepare(pcm) >= 0 { return }
        case -ESTRPIPE:
            // snd_pcm_resume: -EAGAIN while the hardware is still resuming; try again on the next write.
            let r = snd_pcm_resume(pcm)
            if r == 0 || r == -EAGAIN { return }
            if snd_pcm_prepare(pcm) >= 0 { return }
        default:
            break
        }
        throw SinkError(.failed, "ALSA device \"\(deviceName)\" failed while playing: \(call) failed: \(Self.strerror(code)) (\(code)). Check that the device is still connected and that its sound server is running.")
    }

    public func pollDescriptors() -> [PollDescriptor] {
        pollFDs.map { PollDescriptor(fd: $0.fd, events: $0.events) }
    }

    public func acknowledge(revents: [Int16]) {
        guard let pcm, revents.count == pollFDs.count, !pollFDs.isEmpty else { return }
        var fds = pollFDs
        for i in fds.indices { fds[i].revents = revents[i] }
        var result: UInt16 = 0
        // snd_pcm_poll_descriptors_revents: lets plugins (pulse, ioplug) consume their wake-ups.
        _ = snd_pcm_poll_descriptors_revents(pcm, &fds, UInt32(fds.count), &result)
    }

    public func stop() {
        // snd_pcm_drop
        if let pcm { snd_pcm_drop(pcm) }
    }

    /// Plays what is queued (blocking, at most one buffer) and closes; used at the end of a
    /// one-shot `say` so the last frames are not cut.
    public func drainAndClose() {
        if let pcm {
            snd_pcm_nonblock(pcm, 0)
            snd_pcm_drain(pcm)
        }
        close()
    }

    public func close() {
        // snd_pcm_close
        if let pcm { snd_pcm_close(pcm) }
        pcm = nil
    }

    static func strerror(_ code: Int32) -> String { String(cString: snd_strerror(code)) }

    static func openError(device: String, code: Int32) -> SinkError {
        let text = "Could not open ALSA device \"\(device)\": \(strerror(code)) (snd_pcm_open: \(code))."
        switch -code {
        case EBUSY:
            return SinkError(.busy, text + " Another program is using it: use a shared device such as 'default', or stop the other program.")
        case ENOENT, ENODEV, ENXIO:
            return SinkError(.notFound, text + " List devices with 'aplay -L' and pass one with --device.")
        default:
            return SinkError(.notFound, text + " Check the name with 'aplay -L'; for PulseAudio or PipeWire check that the sound server is running (e.g. XDG_RUNTIME_DIR is set).")
        }
    }

    /// Just opens and closes the device (for `check --device`).
    public static func probe(device: String, format: StreamFormat) throws(SinkError) {
        let sink = try ALSASink(device: device, format: format)
        sink.close()
    }
}

extension ALSASink.Opened: PreparedOutput {
    public var worthKeeping: Bool { isSoundServerPlugin }
}

/// ALSA in the output registry: every device name (`default`, `pulse`, `hw:1,0`, `file:…`).
/// A sound-server plugin is worth holding open between announcements (no hardware, no wake-ups:
/// measured 0 context switches in 30 s); `hw:` and `dmix` are closed again for other programs.
public struct ALSAOutputDriver: OutputDriver {
    public init() {}
    public var name: String { "alsa" }
    public func serves(_ device: String) -> Bool { true }

    public func prepare(_ device: String) throws(SinkError) -> any PreparedOutput {
        try ALSASink.Opened(device: device)
    }

    /// How long before its anchor a sound server's sink chosen by name (`pulse:NAME`) starts its
    /// stream. Such a sink may be a network sink (a tunnel, AirPlay) whose latency the server
    /// learns from the far side only once the stream runs: a `module-tunnel-sink` with 250 ms
    /// showed it in 50 ms steps over the first 0.2–0.8 s, and once, on a busy machine, not
    /// within 1.5 s, so the anchor was placed without it and heard 261 ms late (NamedSinkTests).
    public static let namedSinkLead = 2.5

    public func leadTime(_ device: String) -> Double { device.hasPrefix("pulse:") ? Self.namedSinkLead : 0 }

    public func sink(_ device: String, format: StreamFormat, prepared: (any PreparedOutput)?) throws(SinkError)
        -> any AudioSink
    {
        if let opened = prepared as? ALSASink.Opened, opened.deviceName == device,
            let sink = try? ALSASink(opened: opened, format: format)
        {
            return sink
        }
        return try ALSASink(device: device, format: format)
    }
}
