import CSndfile
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// Writing clips (for recorded packs and tests), through libsndfile.
public enum ClipEncoder {
    public enum Container: Sendable {
        case flac, wav

        var sfFormat: Int32 {
            switch self {
            case .flac: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
            case .wav: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
            }
        }
    }

    /// Writes interleaved 16-bit samples to `path`.
    public static func write(_ samples: [Int16], format: StreamFormat, to path: String, as container: Container = .flac) throws(PackError) {
        try ClipDecoder.requireLibrary()
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate)
        info.channels = Int32(format.channels)
        info.format = container.sfFormat
        // sf_open (write mode)
        guard let file = tc_sf_open(path, Int32(SFM_WRITE), &info) else {
            throw PackError(.undecodable, "Could not write \(path): \(String(cString: tc_sf_strerror(nil))). Check that the directory exists and is writable.")
        }
        let frames = samples.count / max(1, format.channels)
        // sf_writef_short
        let written = samples.withUnsafeBufferPointer { tc_sf_writef_short(file, $0.baseAddress, sf_count_t(frames)) }
        let reason = String(cString: tc_sf_strerror(file))
        tc_sf_close(file)
        guard written == frames else {
            throw PackError(.undecodable, "Could not write \(path): only \(written) of \(frames) frames were written (\(reason)).")
        }
    }
}
