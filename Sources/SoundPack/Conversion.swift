import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// Converting clips to the pack's one stream format, once, at load time.
public enum Conversion {
    /// Mono ↔ stereo (mono is duplicated; stereo is averaged).
    public static func channels(_ audio: ClipAudio, to channels: Int) -> ClipAudio {
        let from = audio.format.channels
        guard from != channels else { return audio }
        let frames = audio.frames
        // `audio.samples` converts 16-bit storage to a new float array on every read: read it
        // once. Indexing it inside the loop made this quadratic (93 s for one `say`).
        let samples = audio.samples
        var out = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            if from == 1 {
                for c in 0..<channels { out[f * channels + c] = samples[f] }
            } else {
                var sum: Float = 0
                for c in 0..<from { sum += samples[f * from + c] }
                let mixed = sum / Float(from)
                for c in 0..<channels { out[f * channels + c] = mixed }
            }
        }
        return ClipAudio(format: StreamFormat(sampleRate: audio.format.sampleRate, channels: channels), samples: out)
    }

    /// Band-limited resampling: a windowed-sinc interpolator (Blackman window, 32 zero crossings
    /// each side), with the cut-off lowered to the output's Nyquist when downsampling so that
    /// nothing aliases.
    ///
    /// Polyphase: an output sample falls at input position `o · inRate / rate`, whose fraction
    /// takes only `rate / gcd` values (320 for 22 050 → 48 000 Hz), so the kernel is tabulated once
    /// per phase and each output sample is a dot product. Ratios with more than `maxPhases` phases
    /// use the nearest of `maxPhases` (a timing error below 1/8192 of an input sample). A 1.2 MB
    /// pack converted to 48 kHz took 6.1 s with the kernel evaluated per tap; see ResampleTests.
    public static func resample(_ audio: ClipAudio, to rate: Int) -> ClipAudio {
        let inRate = audio.format.sampleRate
        guard inRate != rate, audio.frames > 0 else { return audio }
        let channels = audio.format.channels
        let frames = audio.frames
        let ratio = Double(rate) / Double(inRate)
        let kernel = Kernel(cutoff: min(1.0, ratio) * 0.97)
        let g = gcd(inRate, rate)
        let exactPhases = rate / g
        let phases = min(exactPhases, maxPhases)
        // Taps t = 0 ..< taps sit at input index base - reach + t, i.e. at x = t - reach - fraction.
        let reach = Int(kernel.halfWidth.rounded(.up))
        let taps = 2 * reach + 2
        var table = [Double](repeating: 0, count: phases * taps)
        for p in 0..<phases {
            let fraction = Double(p) / Double(phases)
            for t in 0..<taps { table[p * taps + t] = kernel.weight(at: Double(t - reach) - fraction) }
        }
        let outFrames = Int((Double(frames) * ratio).rounded())
        var out = [Float](repeating: 0, count: outFrames * channels)
        audio.samples.withUnsafeBufferPointer { src in
            table.withUnsafeBufferPointer { k in
                out.withUnsafeMutableBufferPointer { dst in
                    for o in 0..<outFrames {
                        let position = o * inRate  // < 2^63: o ≤ 30 s · 192 kHz · ratio, inRate ≤ 192 kHz
                        var base = position / rate
                        var p: Int
                        if phases == exactPhases {
                            p = (position % rate) / g
                        } else {
                            p = Int((Double(position % rate) / Double(rate) * Double(phases)).rounded())
                            if p == phases { (p, base) = (0, base + 1) }
                        }
                        let row = p * taps
                        let start = base - reach
                        let lo = max(0, -start)
                        let hi = min(taps, frames - start)
                        guard lo < hi else { continue }
                        var a0 = 0.0
                        var a1 = 0.0
                        var weightSum = 0.0
                        if channels == 1 {
                            for t in lo..<hi {
                                let w = k[row + t]
                                a0 += w * Double(src[start + t])
                                weightSum += w
                            }
                        } else {
                            for t in lo..<hi {
                                let w = k[row + t]
                                let i = (start + t) * 2
                                a0 += w * Double(src[i])
                                a1 += w * Double(src[i + 1])
                                weightSum += w
                            }
                        }
                        // Normalise by the sum of weights near the edges only, where the kernel is truncated.
                        let center = Double(base) + Double(p) / Double(phases)
                        let truncated = (center - kernel.halfWidth).rounded(.up) <= 0
                            || (center + kernel.halfWidth).rounded(.down) >= Double(frames - 1)
                        let scale = truncated && weightSum > 0.5 ? 1.0 / weightSum : 1.0
                        dst[o * channels] = Float(a0 * scale)
                        if channels == 2 { dst[o * channels + 1] = Float(a1 * scale) }
                    }
                }
            }
        }
        return ClipAudio(format: StreamFormat(sampleRate: rate, channels: channels), samples: out)
    }

    /// Most kernel phases tabulated (4096 × ~70 taps × 8 bytes ≈ 2.3 MB at most, for odd rates).
    public static let maxPhases = 4096

    /// The Blackman-windowed sinc low-pass, `cutoff` as a fraction of the input's Nyquist.
    public struct Kernel: Sendable {
        public let cutoff: Double
        /// Half the kernel's support, in input samples (32 zero crossings of the sinc).
        public let halfWidth: Double

        public init(cutoff: Double) {
            self.cutoff = cutoff
            self.halfWidth = 32.0 / cutoff
        }

        /// The weight of an input sample `x` input samples away from the output position.
        public func weight(at x: Double) -> Double {
            guard abs(x) <= halfWidth else { return 0 }
            let arg = x * cutoff
            let sinc = abs(arg) < 1e-12 ? 1.0 : sin(Double.pi * arg) / (Double.pi * arg)
            let window = 0.42 + 0.5 * cos(Double.pi * x / halfWidth) + 0.08 * cos(2 * Double.pi * x / halfWidth)
            return sinc * window * cutoff
        }
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// Converts to `format` (channels first, then rate).
    public static func convert(_ audio: ClipAudio, to format: StreamFormat) -> ClipAudio {
        resample(channels(audio, to: format.channels), to: format.sampleRate)
    }
}
