import CAlsa
import Glibc
import Playback
import TalkingClockCore

/// Recording from an ALSA capture PCM (a microphone: `default`, `plughw:1`, or for tests a
/// `file` PCM with an `infile`): interleaved S16_LE at the requested rate and channels, with
/// ALSA resampling where the device needs it.
///
/// Blocking and single-threaded: one owner (the `record-pack` command) calls every method. Reads
/// block until a period is captured; there is no event loop to return to. Errors reuse
/// `SinkError` (`.notFound`, `.busy` from opening; `.failed` when the stream breaks), with
/// messages that say "capture" and point to `arecord -L`.
public final class ALSACapture {
    public let deviceName: String
    public let format: StreamFormat
    private var pcm: OpaquePointer?
    /// Overruns recovered so far (audio was lost because it was not read in time).
    public private(set) var overruns = 0

    public static let bufferMicroseconds: UInt32 = 500_000
    public static let periodMicroseconds: UInt32 = 20_000

    public init(device: String, format: StreamFormat) throws(SinkError) {
        tc_alsa_silence_errors()
        self.deviceName = device
        self.format = format
        var handle: OpaquePointer?
        // snd_pcm_open (capture, blocking)
        let rc = snd_pcm_open(&handle, device, SND_PCM_STREAM_CAPTURE, 0)
        guard rc >= 0, let handle else { throw Self.openError(device: device, code: rc) }
        do throws(SinkError) { try Self.configure(handle, device: device, format: format) } catch {
            snd_pcm_close(handle)
            throw error
        }
        pcm = handle
    }

    deinit { close() }

    private static func configure(_ pcm: OpaquePointer, device: String, format: StreamFormat) throws(SinkError) {
        var hw: OpaquePointer?
        // snd_pcm_hw_params_malloc
        guard snd_pcm_hw_params_malloc(&hw) >= 0, let hw else {
            throw SinkError(.failed, "Could not configure ALSA capture device \"\(device)\": out of memory.")
        }
        defer { snd_pcm_hw_params_free(hw) }
        func check(_ code: Int32, _ call: String) throws(SinkError) {
            if code < 0 {
                throw SinkError(
                    .unsupported,
                    "ALSA capture device \"\(device)\" cannot record \(format) 16-bit: \(call) failed: \(ALSASink.strerror(code)) (\(code)). Use a 'plug:' device such as plughw:1 or 'default' (list them with 'arecord -L')."
                )
            }
        }
        try check(snd_pcm_hw_params_any(pcm, hw), "snd_pcm_hw_params_any")
        try check(snd_pcm_hw_params_set_rate_resample(pcm, hw, 1), "snd_pcm_hw_params_set_rate_resample")
        try check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access")
        try check(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE), "snd_pcm_hw_params_set_format(S16_LE)")
        try check(
            snd_pcm_hw_params_set_channels(pcm, hw, UInt32(format.channels)),
            "snd_pcm_hw_params_set_channels(\(format.channels))")
        var rate = UInt32(format.sampleRate)
        try check(
            snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, nil),
            "snd_pcm_hw_params_set_rate_near(\(format.sampleRate))")
        guard rate == UInt32(format.sampleRate) else {
            throw SinkError(
                .unsupported,
                "ALSA capture device \"\(device)\" records at \(rate) Hz, not \(format.sampleRate) Hz, and will not resample; use a 'plug:' device such as plughw:1 or 'default', or pass --rate \(rate)."
            )
        }
        var bufferTime = bufferMicroseconds
        var periodTime = periodMicroseconds
        // Devices that refuse these sizes keep their own; reads are merely longer or shorter.
        _ = snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &bufferTime, nil)
        _ = snd_pcm_hw_params_set_period_time_near(pcm, hw, &periodTime, nil)
        try check(snd_pcm_hw_params(pcm, hw), "snd_pcm_hw_params")
    }

    /// Throws away whatever was captured so far and makes the next `read` start a fresh
    /// recording (used before each take, after the person pressed Enter).
    public func restart() throws(SinkError) {
        guard let pcm else { return }
        // snd_pcm_drop, snd_pcm_prepare
        snd_pcm_drop(pcm)
        let code = snd_pcm_prepare(pcm)
        if code < 0 { throw failure(code, call: "snd_pcm_prepare") }
    }

    /// Reads up to `buffer.count / channels` frames into `buffer`, blocking until some are
    /// captured; returns the number of frames. 0 means the device has no more audio (a `file`
    /// PCM at the end of its `infile`). Overruns and suspends are recovered, not errors.
    public func read(into buffer: inout [Int16]) throws(SinkError) -> Int {
        guard let pcm else { return 0 }
        let frames = buffer.count / format.channels
        while true {
            // snd_pcm_readi
            let n = buffer.withUnsafeMutableBufferPointer {
                snd_pcm_readi(pcm, $0.baseAddress, snd_pcm_uframes_t(frames))
            }
            if n >= 0 { return Int(n) }
            let code = Int32(n)
            switch code {
            case -EAGAIN, -EINTR:
                continue
            case -EPIPE:
                overruns += 1
                let r = snd_pcm_prepare(pcm)
                if r < 0 { throw failure(r, call: "snd_pcm_prepare") }
            case -ESTRPIPE:
                // snd_pcm_resume: -EAGAIN while the hardware is still resuming.
                var r = snd_pcm_resume(pcm)
                while r == -EAGAIN {
                    usleep(10_000)
                    r = snd_pcm_resume(pcm)
                }
                if r < 0, snd_pcm_prepare(pcm) < 0 { throw failure(code, call: "snd_pcm_readi") }
            default:
                throw failure(code, call: "snd_pcm_readi")
            }
        }
    }

    public func close() {
        // snd_pcm_close
        if let pcm { snd_pcm_close(pcm) }
        pcm = nil
    }

    private func failure(_ code: Int32, call: String) -> SinkError {
        SinkError(
            .failed,
            "ALSA capture device \"\(deviceName)\" failed while recording: \(call) failed: \(ALSASink.strerror(code)) (\(code)). Check that the microphone is still connected (list capture devices with 'arecord -L')."
        )
    }

    static func openError(device: String, code: Int32) -> SinkError {
        let text =
            "Could not open ALSA capture device \"\(device)\": \(ALSASink.strerror(code)) (snd_pcm_open: \(code))."
        switch -code {
        case EBUSY:
            return SinkError(
                .busy,
                text
                    + " Another program is recording from it: close that program, or use a shared device such as 'default' (list them with 'arecord -L')."
            )
        case ENOENT, ENODEV, ENXIO:
            return SinkError(.notFound, text + " List capture devices with 'arecord -L' and pass one with --device.")
        default:
            return SinkError(
                .notFound,
                text
                    + " Check the name with 'arecord -L'; for PulseAudio or PipeWire check that the sound server is running (e.g. XDG_RUNTIME_DIR is set)."
            )
        }
    }
}
