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

/// Decoded audio of one clip: interleaved samples in [-1, 1], kept as 16-bit where that is exact
/// (see `ClipSamples`).
public struct ClipAudio: Sendable {
    public var format: StreamFormat
    public var storage: ClipSamples

    public init(format: StreamFormat, samples: [Float]) {
        self.format = format
        self.storage = .float(samples)
    }

    public init(format: StreamFormat, storage: ClipSamples) {
        self.format = format
        self.storage = storage
    }

    /// The samples as float (converted from 16-bit storage on each call: for conversion and
    /// analysis, not for playback).
    public var samples: [Float] {
        get { storage.floats }
        set { storage = .float(newValue) }
    }

    public var frames: Int { format.channels == 0 ? 0 : storage.count / format.channels }
}

/// What libsndfile says about a file without decoding it.
public struct ClipInfo: Hashable, Sendable {
    public var frames: Int
    public var format: StreamFormat

    public init(frames: Int, format: StreamFormat) {
        self.frames = frames
        self.format = format
    }
}

/// Decoding with libsndfile: the only place that calls it.
public enum ClipDecoder {
    /// Longest clip a pack may contain.
    public static let maxSeconds = 30

    /// Largest magnitude a decoded sample may have. Full scale is 1.0; a float clip may go a
    /// little over it (it is clipped when played), but NaN, an infinity or 1e30 is a damaged or
    /// hostile file: such a sample crashed the player (a float-to-integer conversion traps), so
    /// the clip is refused at load, naming it, rather than clamped into a full-scale square wave.
    public static let maxSampleMagnitude: Float = 2

    /// Reads the header. Names the file and the clip id in every error.
    public static func info(path: String, clip: String) throws(PackError) -> ClipInfo {
        try requireLibrary()
        var sfinfo = SF_INFO()
        // sf_open: opens and parses the header.
        guard let file = tc_sf_open(path, Int32(SFM_READ), &sfinfo) else {
            throw undecodable(path: path, clip: clip)
        }
        tc_sf_close(file)
        return try validate(sfinfo, path: path, clip: clip)
    }

    /// Decodes the whole clip: 16-bit samples when every decoded float sample is exactly
    /// s / 32768 (a 16-bit source), float samples otherwise.
    public static func decode(path: String, clip: String) throws(PackError) -> ClipAudio {
        try requireLibrary()
        var sfinfo = SF_INFO()
        guard let file = tc_sf_open(path, Int32(SFM_READ), &sfinfo) else {
            throw undecodable(path: path, clip: clip)
        }
        defer { tc_sf_close(file) }
        let info = try validate(sfinfo, path: path, clip: clip)
        let channels = info.format.channels
        // Read in blocks through a small float buffer straight into 16-bit storage; the first
        // sample that is not exactly 16-bit switches to float storage (what was read is converted
        // back exactly).
        var pcm = [Int16](repeating: 0, count: info.frames * channels)
        var floats: [Float]? = nil
        let blockFrames = 4096
        var block = [Float](repeating: 0, count: blockFrames * channels)
        var read = 0
        while read < info.frames {
            let want = min(blockFrames, info.frames - read)
            // sf_readf_float: reads frames, normalised to [-1, 1).
            let got = Int(block.withUnsafeMutableBufferPointer { tc_sf_readf_float(file, $0.baseAddress, sf_count_t(want)) })
            if got <= 0 { break }
            let base = read * channels
            for i in 0..<(got * channels) {
                if floats == nil, let s = ClipSamples.exact16(block[i]) {
                    pcm[base + i] = s
                } else {
                    // Only float sources get here (16-bit ones are exact); NaN fails both tests.
                    guard abs(block[i]) <= maxSampleMagnitude else {
                        throw badSample(block[i], index: base + i, channels: channels, rate: info.format.sampleRate, path: path, clip: clip)
                    }
                    if floats == nil {
                        floats = pcm[..<(base + i)].map { Float($0) * ClipSamples.scale16 }
                        floats!.reserveCapacity(pcm.count)
                        pcm = []
                    }
                    floats!.append(block[i])
                }
            }
            read += got
        }
        guard read == info.frames else {
            let reason = String(cString: tc_sf_strerror(file))
            throw PackError(
                .undecodable, clip: clip,
                "Clip '\(clip)' (\(path)) is truncated or damaged: its header promises \(info.frames) frames but only \(max(0, Int(read))) could be decoded (\(reason)). Re-export or regenerate the file.")
        }
        return ClipAudio(format: info.format, storage: floats.map { .float($0) } ?? .pcm16(pcm))
    }

    private static func badSample(
        _ x: Float, index: Int, channels: Int, rate: Int, path: String, clip: String
    ) -> PackError {
        let value = x.isNaN ? "NaN (not a number)" : x.isInfinite ? (x < 0 ? "-infinity" : "+infinity") : "\(x)"
        let frame = index / channels
        let place = "frame \(frame) (\(Format.fixed(Double(frame) / Double(rate), 3)) s\(channels > 1 ? ", channel \(index % channels + 1)" : ""))"
        return PackError(
            .badSamples, clip: clip,
            "Clip '\(clip)' (\(path)) has a sample of \(value) at \(place); samples must be numbers within ±\(Int(maxSampleMagnitude)) (full scale is ±1), so the file is damaged or was not written as audio. Re-export or regenerate it.")
    }

    private static func validate(_ sfinfo: SF_INFO, path: String, clip: String) throws(PackError) -> ClipInfo {
        let channels = Int(sfinfo.channels)
        let rate = Int(sfinfo.samplerate)
        guard (1...2).contains(channels) else {
            throw PackError(
                .badChannels, clip: clip,
                "Clip '\(clip)' (\(path)) has \(channels) channels; pack clips must be mono or stereo. Convert it, e.g. 'sox in.wav -c 1 out.flac'.")
        }
        guard (8000...192_000).contains(rate) else {
            throw PackError(.undecodable, clip: clip, "Clip '\(clip)' (\(path)) claims a sample rate of \(rate) Hz; use 8000-192000 Hz.")
        }
        let frames = Int(sfinfo.frames)
        guard frames > 0 else {
            throw PackError(.emptyClip, clip: clip, "Clip '\(clip)' (\(path)) is empty (no audio frames); record or regenerate it.")
        }
        // Checked from the header, before any sample buffer is allocated: a header that claims
        // hours of audio (damaged or hostile) costs nothing.
        guard frames <= maxSeconds * rate else {
            throw PackError(
                .tooLong, clip: clip,
                "Clip '\(clip)' (\(path)) is \(overLimit(frames: frames, rate: rate)) s long by its header (\(frames) frames at \(rate) Hz); clips may be at most \(maxSeconds) s (\(maxSeconds * rate) frames). Trim it (or re-encode it if its header is damaged).")
        }
        return ClipInfo(frames: frames, format: StreamFormat(sampleRate: rate, channels: channels))
    }

    /// A length over the limit with one decimal, or, close to the limit, to within half a frame:
    /// 30.00005 s printed with one decimal read "30.0 s … at most 30 s".
    static func overLimit(frames: Int, rate: Int) -> String {
        let seconds = Double(frames) / Double(rate)
        for digits in 1...9 {
            let text = Format.fixed(seconds, digits)
            guard let shown = Double(text), shown > Double(maxSeconds) else { continue }
            if shown >= Double(maxSeconds) + 0.1 || abs(shown - seconds) < 0.5 / Double(rate) {
                return text
            }
        }
        return Format.fixed(seconds, 9)
    }

    /// libsndfile is loaded on first use (see CSndfile); without it no clip can be read or written.
    static func requireLibrary() throws(PackError) {
        // tc_sf_load (dlopen of libsndfile.so.1, once)
        if let why = tc_sf_load() { throw PackError(.codecLibrary, String(cString: why) + ".") }
    }

    private static func undecodable(path: String, clip: String) -> PackError {
        var reason = String(cString: tc_sf_strerror(nil))
        while reason.hasSuffix(".") { reason.removeLast() }  // libsndfile ends some texts with a period
        return PackError(
            .undecodable, clip: clip,
            "Clip '\(clip)' (\(path)) cannot be decoded: \(reason). Use WAV, FLAC, Ogg/Vorbis, AIFF or CAF.")
    }
}
