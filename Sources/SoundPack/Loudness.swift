import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// Level measurements and edits on 16-bit audio: what `check` reports and what `record-pack`
/// trims and normalises. Pure functions; levels are in dBFS, where a full-scale square wave is
/// 0 dBFS (a full-scale sine is −3 dBFS).
public enum Loudness {
    /// Reference for 0 dBFS.
    public static let fullScale = 32768.0
    /// What a frame of digital silence reads as (instead of −∞).
    public static let silence = -120.0

    /// Frame length for the active-speech level. Short enough that a short word ("it's", about
    /// 0.2 s) is not under-read because its frames straddle the word's edges; 50 ms frames read
    /// the default pack's "it's" 1.6 dB low.
    public static let analysisFrameMs = 20.0
    /// Frames more than this far below the loudest frame are pauses or silence, not speech.
    public static let activeBelowLoudestDb = 30.0
    /// Every recorded voice clip is brought to this active-speech level (the default pack's too).
    public static let targetLevel = -18.0
    /// … unless that would put a sample above this.
    public static let peakCap = -1.0
    /// `check` reports voice clips further than this from the pack's median level.
    public static let maxDeviationDb = 1.5

    /// Converts a mean square (in units of full scale²) to dBFS.
    static func db(meanSquare: Double) -> Double {
        meanSquare > 0 ? max(silence, 10 * log10(meanSquare)) : silence
    }

    /// The level of each frame of `frameLength` frames (the last one may be shorter), in dBFS,
    /// averaged over all channels.
    public static func frameLevels(_ samples: [Int16], channels: Int = 1, frameLength: Int) -> [Double] {
        let step = max(1, frameLength) * max(1, channels)
        var levels: [Double] = []
        levels.reserveCapacity(samples.count / step + 1)
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + step)
            var sum = 0.0
            for i in start..<end {
                let v = Double(samples[i])
                sum += v * v
            }
            levels.append(db(meanSquare: sum / Double(end - start) / (fullScale * fullScale)))
            start = end
        }
        return levels
    }

    /// Frames in `milliseconds` at `sampleRate` (at least one).
    static func frames(_ milliseconds: Double, rate: Int) -> Int {
        max(1, Int((milliseconds * Double(rate) / 1000).rounded()))
    }

    /// Active-speech level: the power mean of the 20 ms frames within 30 dB of the loudest one,
    /// in dBFS; nil for a clip without any sound.
    public static func activeLevel(_ samples: [Int16], format: StreamFormat) -> Double? {
        let levels = frameLevels(
            samples, channels: format.channels, frameLength: frames(analysisFrameMs, rate: format.sampleRate))
        guard let loudest = levels.max(), loudest > silence else { return nil }
        let active = levels.filter { $0 > loudest - activeBelowLoudestDb }
        let power = active.reduce(0.0) { $0 + pow(10, $1 / 10) } / Double(active.count)
        return db(meanSquare: power)
    }

    /// The highest sample magnitude, in dBFS.
    public static func peak(_ samples: [Int16]) -> Double {
        let maxMagnitude = samples.reduce(0) { max($0, abs(Int($1))) }
        return maxMagnitude == 0 ? silence : 20 * log10(Double(maxMagnitude) / fullScale)
    }

    /// Samples at full scale (32767 or −32768): where the signal was clipped.
    public static func clippedSamples(_ samples: [Int16]) -> Int {
        samples.reduce(0) { $0 + ($1 == .max || $1 == .min ? 1 : 0) }
    }

    /// Multiplies every sample by `gainDb`, rounding and saturating.
    public static func scaled(_ samples: [Int16], gainDb: Double) -> [Int16] {
        let gain = pow(10, gainDb / 20)
        return samples.map { Int16(clamping: Int((Double($0) * gain).rounded())) }
    }

    /// The gain that brings the active-speech level to `target` without putting any sample
    /// above `peakCap`; nil for silence.
    public static func normalisingGain(
        _ samples: [Int16], format: StreamFormat, target: Double = targetLevel, peakCap: Double = peakCap
    ) -> (gainDb: Double, limitedByPeak: Bool)? {
        guard let level = activeLevel(samples, format: format) else { return nil }
        let wanted = target - level
        let allowed = peakCap - peak(samples)
        return wanted <= allowed ? (wanted, false) : (allowed, true)
    }

    /// Raised-cosine fades at both ends (only the margins kept around the speech are affected).
    public static func faded(_ samples: [Int16], format: StreamFormat, inMs: Double = 5, outMs: Double = 10) -> [Int16]
    {
        var out = samples
        let total = samples.count / max(1, format.channels)
        let fadeIn = min(total, frames(inMs, rate: format.sampleRate))
        let fadeOut = min(total, frames(outMs, rate: format.sampleRate))
        for f in 0..<total {
            var g = 1.0
            if f < fadeIn { g *= 0.5 - 0.5 * cos(Double.pi * (Double(f) + 0.5) / Double(fadeIn)) }
            if f >= total - fadeOut { g *= 0.5 - 0.5 * cos(Double.pi * (Double(total - f) - 0.5) / Double(fadeOut)) }
            if g < 1 {
                for c in 0..<format.channels {
                    let i = f * format.channels + c
                    out[i] = Int16(clamping: Int((Double(out[i]) * g).rounded()))
                }
            }
        }
        return out
    }
}

/// Finding the spoken part of a recording, relative to the recording's own level.
///
/// A fixed threshold (say −45 dBFS) cuts the quiet "f" off "fifteen"; this one follows the
/// clip: a 5 ms frame is sound when it is louder than 50 dB below the loudest frame and, so that
/// room noise is not taken for speech, when both it and the 25 ms around it are 3 dB above the
/// room (the quietest tenth of the 25 ms levels). Averaging over 25 ms steadies the noise enough
/// that 3 dB is a clear step, so a fricative only a few dB above the noise still counts; asking
/// the frame itself too keeps a sharp onset from being smeared 10 ms earlier. The speech is
/// the run of sound around the loudest frame, bridging pauses up to 300 ms (the closure of a
/// "t", the gap in "the time is"); a click or a breath further away is left out. 20 ms are kept
/// before and 40 ms after.
public struct SpeechTrim: Hashable, Sendable {
    public var frameMs = 5.0
    public var belowLoudestDb = 50.0
    public var aboveRoomDb = 3.0
    /// Frames on each side averaged for the comparison with the room.
    public var roomSmoothingFrames = 2
    /// The room test never asks for more than this below the loudest frame.
    public var roomNeverAboveLoudestDb = 20.0
    public var maxPauseMs = 300.0
    public var keepBeforeMs = 20.0
    public var keepAfterMs = 40.0

    public init() {}

    /// What was found: the frames to keep and the levels that decided it.
    public struct Result: Hashable, Sendable {
        /// Frames (not samples) of the recording to keep.
        public var range: Range<Int>
        /// Frames of the sound itself, without the margins.
        public var speech: Range<Int>
        public var loudestFrameLevel: Double
        /// The room: the quietest tenth of the 25 ms levels.
        public var noiseFloor: Double
        /// The effective threshold (the higher of the two tests).
        public var threshold: Double
    }

    /// The part of `samples` to keep; nil if there is no sound at all.
    public func apply(to samples: [Int16], format: StreamFormat) -> Result? {
        let n = Loudness.frames(frameMs, rate: format.sampleRate)
        let levels = Loudness.frameLevels(samples, channels: format.channels, frameLength: n)
        guard let loudest = levels.max(), loudest > Loudness.silence else { return nil }
        let k = roomSmoothingFrames
        let smoothed = levels.indices.map { i in
            let window = levels[max(0, i - k)...min(levels.count - 1, i + k)]
            return 10 * log10(window.reduce(0.0) { $0 + pow(10, $1 / 10) } / Double(window.count))
        }
        let floor = smoothed.sorted()[smoothed.count / 10]
        let roomThreshold = min(floor + aboveRoomDb, loudest - roomNeverAboveLoudestDb)
        let isSound = levels.indices.map {
            levels[$0] > max(loudest - belowLoudestDb, roomThreshold) && smoothed[$0] > roomThreshold
        }
        let peakIndex = levels.firstIndex(of: loudest)!
        let maxPause = Int((maxPauseMs / frameMs).rounded())
        var first = peakIndex
        var last = peakIndex
        var gap = 0
        var i = peakIndex - 1
        while i >= 0 {
            if isSound[i] {
                first = i
                gap = 0
            } else {
                gap += 1
                if gap > maxPause { break }
            }
            i -= 1
        }
        gap = 0
        i = peakIndex + 1
        while i < levels.count {
            if isSound[i] {
                last = i
                gap = 0
            } else {
                gap += 1
                if gap > maxPause { break }
            }
            i += 1
        }
        let total = samples.count / max(1, format.channels)
        let speechStart = first * n
        let speechEnd = min(total, (last + 1) * n)
        let start = max(0, speechStart - Loudness.frames(keepBeforeMs, rate: format.sampleRate))
        let end = min(total, speechEnd + Loudness.frames(keepAfterMs, rate: format.sampleRate))
        return Result(
            range: start..<end, speech: speechStart..<speechEnd, loudestFrameLevel: loudest, noiseFloor: floor,
            threshold: max(loudest - belowLoudestDb, roomThreshold))
    }
}
