import Foundation
import TalkingClockCore

/// Converting clips to the pack's one stream format, once, at load time.
public enum Conversion {
    /// Mono ↔ stereo (mono is duplicated; stereo is averaged).
    public static func channels(_ audio: ClipAudio, to channels: Int) -> ClipAudio {
        let from = audio.format.channels
        guard from != channels else { return audio }
        let frames = audio.frames
        var out = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            if from == 1 {
                for c in 0..<channels { out[f * channels + c] = audio.samples[f] }
            } else {
                var sum: Float = 0
                for c in 0..<from { sum += audio.samples[f * from + c] }
                let mixed = sum / Float(from)
                for c in 0..<channels { out[f * channels + c] = mixed }
            }
        }
        return ClipAudio(format: StreamFormat(sampleRate: audio.format.sampleRate, channels: channels), samples: out)
    }

    /// Band-limited resampling: a windowed-sinc interpolator (Blackman window, 32 zero crossings
    /// each side), with the cut-off lowered to the output's Nyquist when downsampling so that
    /// nothing aliases. Quality matters more than speed here: it runs once per clip at load.
    public static func resample(_ audio: ClipAudio, to rate: Int) -> ClipAudio {
        let inRate = audio.format.sampleRate
        guard inRate != rate, audio.frames > 0 else { return audio }
        let channels = audio.format.channels
        let ratio = Double(rate) / Double(inRate)
        let cutoff = min(1.0, ratio) * 0.97
        let zeroCrossings = 32.0
        let halfWidth = zeroCrossings / cutoff  // in input samples
        let outFrames = Int((Double(audio.frames) * ratio).rounded())
        var out = [Float](repeating: 0, count: outFrames * channels)
        for o in 0..<outFrames {
            let center = Double(o) / ratio
            let first = max(0, Int((center - halfWidth).rounded(.up)))
            let last = min(audio.frames - 1, Int((center + halfWidth).rounded(.down)))
            guard first <= last else { continue }
            var acc = [Double](repeating: 0, count: channels)
            var weightSum = 0.0
            for i in first...last {
                let x = Double(i) - center
                let arg = x * cutoff
                let sinc = abs(arg) < 1e-12 ? 1.0 : sin(Double.pi * arg) / (Double.pi * arg)
                let w = 0.42 + 0.5 * cos(Double.pi * x / halfWidth) + 0.08 * cos(2 * Double.pi * x / halfWidth)
                let k = sinc * w * cutoff
                weightSum += k
                for c in 0..<channels { acc[c] += k * Double(audio.samples[i * channels + c]) }
            }
            // Normalise by the sum of weights near the edges only, where the kernel is truncated.
            let scale = (first == 0 || last == audio.frames - 1) && weightSum > 0.5 ? 1.0 / weightSum : 1.0
            for c in 0..<channels { out[o * channels + c] = Float(acc[c] * scale) }
        }
        return ClipAudio(format: StreamFormat(sampleRate: rate, channels: channels), samples: out)
    }

    /// Converts to `format` (channels first, then rate).
    public static func convert(_ audio: ClipAudio, to format: StreamFormat) -> ClipAudio {
        resample(channels(audio, to: format.channels), to: format.sampleRate)
    }
}
