import TalkingClockCore

/// Renders a timeline into one block of interleaved 16-bit samples.
///
/// Overlapping clips (a bell ringing on under the next strike, or under the voice) are added.
/// If the sum would clip, the whole announcement is scaled down once so its peak sits just
/// under full scale: the relative levels stay as designed and nothing distorts. Where no clips
/// overlap and the gain is 1, the output equals the clips sample for sample.
public enum Mixer {
    /// Peak after headroom scaling, as a fraction of full scale.
    public static let peakCeiling: Float = 32767.0 / 32768.0

    /// - Parameters:
    ///   - gain: linear gain applied to every clip (volume, quiet-hours "lower volume").
    ///   - audio: the clip's samples, already in `timeline.format`.
    public static func render(_ timeline: Timeline, gain: Float = 1, audio: (String) -> [Float]) -> [Int16] {
        render(timeline, gain: gain, clips: { .float(audio($0)) })
    }

    /// The same, with clips as stored (16-bit clips are turned into float while they are added:
    /// the same values as float clips, so the same output).
    public static func render(_ timeline: Timeline, gain: Float = 1, clips: (String) -> ClipSamples?) -> [Int16] {
        let channels = timeline.format.channels
        var mix = [Float](repeating: 0, count: timeline.totalFrames * channels)
        let duck = bellEnvelope(timeline)
        mix.withUnsafeMutableBufferPointer { out in
            for item in timeline.items {
                guard let samples = clips(item.clip) else { continue }
                let count = min(samples.count, item.frames * channels)
                let base = item.start * channels
                let ducked = item.role == .chime ? duck : nil
                /// Adds the clip, each sample as `value` gives it as float, ducked if it is a bell.
                @inline(__always) func add<Sample>(_ clip: UnsafeBufferPointer<Sample>, _ value: (Sample) -> Float) {
                    if let duck = ducked {
                        for i in 0..<count { out[base + i] += value(clip[i]) * duck[item.start + i / channels] }
                    } else {
                        for i in 0..<count { out[base + i] += value(clip[i]) }
                    }
                }
                switch samples {
                case .float(let s):
                    s.withUnsafeBufferPointer { add($0) { $0 } }
                case .pcm16(let s):
                    let k = ClipSamples.scale16
                    s.withUnsafeBufferPointer { add($0) { Float($0) * k } }
                }
            }
        }
        var peak: Float = 0
        for s in mix { peak = max(peak, abs(s)) }
        var scale = gain
        if peak * gain > peakCeiling { scale = peakCeiling / peak }
        return mix.map { Int16(clamping: Int(($0 * scale * 32768).rounded())) }
    }

    /// Length of the fades into and out of a duck: 60 ms.
    static func rampFrames(_ format: StreamFormat) -> Int { max(1, format.sampleRate * 60 / 1000) }

    /// Per-frame gain for bells: `timeline.bellGainUnderVoice` while a voice clip plays (fading
    /// down in the 60 ms before it and up in the 60 ms after), 1 elsewhere. Nil when nothing is
    /// ducked (then bells are added exactly as they are).
    static func bellEnvelope(_ timeline: Timeline) -> [Float]? {
        let low = timeline.bellGainUnderVoice
        guard low < 1 else { return nil }
        let voice = timeline.items.filter { $0.role == .voice }.sorted { $0.start < $1.start }
        let bells = timeline.items.filter { $0.role == .chime }
        guard !voice.isEmpty, !bells.isEmpty else { return nil }
        let ramp = rampFrames(timeline.format)
        // Voice spans, with pauses shorter than two ramps bridged so the bells do not pump
        // between words.
        var spans: [(Int, Int)] = []
        for item in voice {
            if let last = spans.last, item.start - last.1 < 2 * ramp {
                spans[spans.count - 1].1 = max(last.1, item.end)
            } else {
                spans.append((item.start, item.end))
            }
        }
        guard bells.contains(where: { bell in spans.contains { bell.start < $0.1 + ramp && bell.end > $0.0 - ramp } }) else {
            return nil
        }
        var envelope = [Float](repeating: 1, count: timeline.totalFrames)
        for (start, end) in spans {
            for f in max(0, start - ramp)..<min(envelope.count, end + ramp) {
                let g: Float
                if f < start {
                    g = 1 - (1 - low) * Float(f - (start - ramp)) / Float(ramp)
                } else if f >= end {
                    g = low + (1 - low) * Float(f - end) / Float(ramp)
                } else {
                    g = low
                }
                envelope[f] = min(envelope[f], g)
            }
        }
        return envelope
    }
}
