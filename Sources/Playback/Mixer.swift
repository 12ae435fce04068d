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
        let channels = timeline.format.channels
        var mix = [Float](repeating: 0, count: timeline.totalFrames * channels)
        mix.withUnsafeMutableBufferPointer { out in
            for item in timeline.items {
                let samples = audio(item.clip)
                let count = min(samples.count, item.frames * channels)
                let base = item.start * channels
                samples.withUnsafeBufferPointer { clip in
                    for i in 0..<count { out[base + i] += clip[i] }
                }
            }
        }
        var peak: Float = 0
        for s in mix { peak = max(peak, abs(s)) }
        var scale = gain
        if peak * gain > peakCeiling { scale = peakCeiling / peak }
        return mix.map { Int16(clamping: Int(($0 * scale * 32768).rounded())) }
    }
}
