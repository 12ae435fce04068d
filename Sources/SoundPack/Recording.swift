import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// Decides, while a take is being captured, when the speaker has finished: after speech was
/// heard and then `trailingSilence` seconds of quiet, or at `maxSeconds` in any case.
///
/// Works on 20 ms frames. The room's level is the quietest frame so far. Speech has begun once
/// three frames in a row (60 ms; a key click is shorter) are 15 dB above the room and louder
/// than −50 dBFS; after that a frame is quiet when it is 35 dB below the loudest frame of the
/// take or within 10 dB of the room.
public struct SpeechEndpointDetector: Sendable {
    /// Speech quieter than this (20 ms frame level) counts as no speech: the gain is too low.
    public static let minimumSpeechLevel = -50.0
    static let aboveRoomDb = 15.0
    static let framesToStart = 3
    static let quietBelowLoudestDb = 35.0
    static let quietAboveRoomDb = 10.0

    public let format: StreamFormat
    public let trailingSilence: Double
    public let maxSeconds: Double
    public private(set) var speechHeard = false
    /// Frames fed so far.
    public private(set) var framesSeen = 0
    public private(set) var roomLevel = 0.0
    public private(set) var loudestLevel = Loudness.silence

    private let frameLength: Int
    private var pending: [Int16] = []
    private var loudRun = 0
    private var quietRun = 0

    public init(format: StreamFormat, trailingSilence: Double = 0.8, maxSeconds: Double = 5) {
        self.format = format
        self.trailingSilence = trailingSilence
        self.maxSeconds = maxSeconds
        self.frameLength = Loudness.frames(Loudness.analysisFrameMs, rate: format.sampleRate)
    }

    /// Takes the next interleaved samples; returns true once the take should stop.
    public mutating func feed(_ samples: ArraySlice<Int16>) -> Bool {
        pending += samples
        let step = frameLength * format.channels
        var consumed = 0
        var stop = false
        while pending.count - consumed >= step, !stop {
            let frame = Array(pending[consumed..<consumed + step])
            consumed += step
            framesSeen += frameLength
            stop = analyse(Loudness.frameLevels(frame, channels: format.channels, frameLength: frameLength)[0])
        }
        pending.removeFirst(consumed)
        if Double(framesSeen + pending.count / format.channels) >= maxSeconds * Double(format.sampleRate) {
            stop = true
        }
        return stop
    }

    private mutating func analyse(_ level: Double) -> Bool {
        roomLevel = framesSeen == frameLength ? level : min(roomLevel, level)
        if !speechHeard {
            if level >= max(roomLevel + Self.aboveRoomDb, Self.minimumSpeechLevel) {
                loudRun += 1
                loudestLevel = max(loudestLevel, level)
                if loudRun >= Self.framesToStart { speechHeard = true }
            } else {
                loudRun = 0
                loudestLevel = Loudness.silence
            }
            return false
        }
        loudestLevel = max(loudestLevel, level)
        if level < max(loudestLevel - Self.quietBelowLoudestDb, roomLevel + Self.quietAboveRoomDb) {
            quietRun += frameLength
        } else {
            quietRun = 0
        }
        return Double(quietRun) >= trailingSilence * Double(format.sampleRate)
    }
}

/// Turning one captured take into a pack clip: refuse a clipped or silent take, trim it around
/// the speech, bring it to the common level, fade the margins.
public enum TakeProcessor {
    /// Why a take cannot be used, with what the speaker should change.
    public enum Problem: Error, Hashable, Sendable {
        /// Samples hit full scale: the capture gain is too high.
        case clipped(samples: Int)
        /// Nothing loud enough to be speech.
        case noSpeech(loudest: Double, room: Double)
    }

    /// A usable clip and what was done to it.
    public struct Clip: Hashable, Sendable {
        public var samples: [Int16]
        /// Seconds of speech found (without the margins).
        public var speechSeconds: Double
        /// The take's loudest 20 ms frame and its quietest tenth (the room), before any change.
        public var loudestLevel: Double
        public var roomLevel: Double
        /// The gain applied, and the active-speech level after it.
        public var gainDb: Double
        public var level: Double
        /// The peak cap, not the target level, decided the gain (the clip ends up quieter).
        public var limitedByPeak: Bool
        /// The speech runs up to the end of the take: the take was probably cut off.
        public var reachesEnd: Bool
    }

    public static func process(_ take: [Int16], format: StreamFormat, trim: SpeechTrim = SpeechTrim()) -> Result<
        Clip, Problem
    > {
        let clipped = Loudness.clippedSamples(take)
        if clipped > 0 { return .failure(.clipped(samples: clipped)) }
        let levels = Loudness.frameLevels(
            take, channels: format.channels,
            frameLength: Loudness.frames(Loudness.analysisFrameMs, rate: format.sampleRate))
        let loudest = levels.max() ?? Loudness.silence
        let room = levels.isEmpty ? Loudness.silence : levels.sorted()[levels.count / 10]
        guard loudest >= SpeechEndpointDetector.minimumSpeechLevel,
            loudest >= room + SpeechEndpointDetector.aboveRoomDb,
            let found = trim.apply(to: take, format: format)
        else {
            return .failure(.noSpeech(loudest: loudest, room: room))
        }
        let c = format.channels
        let kept = Array(take[found.range.lowerBound * c..<found.range.upperBound * c])
        guard let (gain, limited) = Loudness.normalisingGain(kept, format: format) else {
            return .failure(.noSpeech(loudest: loudest, room: room))
        }
        let finished = Loudness.faded(Loudness.scaled(kept, gainDb: gain), format: format)
        return .success(
            Clip(
                samples: finished, speechSeconds: Double(found.speech.count) / Double(format.sampleRate),
                loudestLevel: loudest, roomLevel: room, gainDb: gain,
                level: Loudness.activeLevel(finished, format: format) ?? Loudness.silence, limitedByPeak: limited,
                reachesEnd: found.speech.upperBound >= take.count / c
                    - Loudness.frames(trim.frameMs, rate: format.sampleRate)))
    }
}
