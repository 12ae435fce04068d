#if canImport(Glibc)
    import Glibc
#endif
import TalkingClockCore

/// Converts an interleaved S16 stream to another rate and channel count as it arrives: a Snapcast
/// stream has one fixed `sampleformat` (48000:16:2 usually), and a pack has its own (the default
/// pack is 22050 Hz mono).
///
/// Rates: a band-limited windowed-sinc interpolator (Blackman window, 32 zero crossings each side,
/// cut-off at 0.97 of the lower Nyquist), polyphase: the fraction of an output sample's input
/// position takes `outRate / gcd` values, tabulated once (at most `maxPhases`, then the nearest).
/// The filter is symmetric, so input frame i lands at output position `i · outRate / inRate`
/// exactly: the converter holds back `reach` input frames until the samples after them arrive,
/// which delays when they are sent, not when they are heard. Equal rates are copied exactly.
/// Channels: mono is copied to every channel; several channels to mono are averaged; otherwise
/// output channel c takes input channel min(c, inputs − 1).
public struct StreamConverter {
    public let input: StreamFormat
    public let output: StreamFormat
    /// Channels the rate conversion runs on (1 when the output is mono).
    private let work: Int
    private let num: Int  // input position of output o = o · num / den
    private let den: Int
    private let phases: Int
    public let reach: Int
    private let taps: Int
    private let table: [Float]
    /// Input samples (work channels, interleaved) from absolute input frame `base` on.
    private var history: [Float]
    private var base: Int
    /// Input frames pushed so far.
    public private(set) var pushed = 0
    /// The next output frame to produce.
    public private(set) var produced = 0

    public static let maxPhases = 4096

    public init(from input: StreamFormat, to output: StreamFormat) {
        self.input = input
        self.output = output
        work = output.channels == 1 ? 1 : input.channels
        let g = Self.gcd(input.sampleRate, output.sampleRate)
        num = input.sampleRate / g
        den = output.sampleRate / g
        if input.sampleRate == output.sampleRate {
            phases = 1
            reach = 0
            taps = 1
            table = [1]
        } else {
            phases = min(den, Self.maxPhases)
            let cutoff = min(1.0, Double(output.sampleRate) / Double(input.sampleRate)) * 0.97
            let zeroCrossings = 32.0
            let halfWidth = zeroCrossings / cutoff
            reach = Int(halfWidth.rounded(.up))
            taps = 2 * reach + 2
            var t = [Float](repeating: 0, count: phases * taps)
            for p in 0..<phases {
                let fraction = Double(p) / Double(phases)
                var row = [Double](repeating: 0, count: taps)
                var sum = 0.0
                for k in 0..<taps {
                    let x = Double(k - reach) - fraction  // distance from the output position
                    guard abs(x) < halfWidth else { continue }
                    let a = cutoff * x
                    let sinc = a == 0 ? 1 : sin(Double.pi * a) / (Double.pi * a)
                    let w = 0.42 + 0.5 * cos(Double.pi * x / halfWidth) + 0.08 * cos(2 * Double.pi * x / halfWidth)
                    row[k] = cutoff * sinc * w
                    sum += row[k]
                }
                // Unity gain at DC for every phase: a constant stays exactly constant.
                for k in 0..<taps { t[p * taps + k] = Float(row[k] / sum) }
            }
            table = t
        }
        // Silence before the first frame, so the first outputs have their left-hand taps.
        history = [Float](repeating: 0, count: reach * work)
        base = -reach
    }

    /// Output frames that `frames` input frames make, from the start of the stream.
    public func outputPosition(ofInput frame: Int) -> Double {
        Double(frame) * Double(output.sampleRate) / Double(input.sampleRate)
    }

    /// Adds input frames (interleaved, `input.channels`).
    public mutating func push(_ samples: UnsafeBufferPointer<Int16>) {
        let c = input.channels
        let frames = samples.count / c
        history.reserveCapacity(history.count + frames * work)
        for f in 0..<frames {
            if work == 1 && c > 1 {
                var sum: Float = 0
                for ch in 0..<c { sum += Float(samples[f * c + ch]) }
                history.append(sum / Float(c))
            } else {
                for ch in 0..<work { history.append(Float(samples[f * c + ch])) }
            }
        }
        pushed += frames
    }

    /// Appends every output frame that the input so far determines (interleaved,
    /// `output.channels`), at most `limit` frames.
    public mutating func pull(into out: inout [Int16], limit: Int = .max) {
        let oc = output.channels
        var made = 0
        while made < limit {
            // Input position of output frame `produced`: whole part and phase.
            let scaled = produced * num
            let whole = scaled / den
            let last = whole - reach + taps - 1  // the newest input frame this output needs
            guard last < pushed else { break }
            let phase = phases == den ? scaled % den : (scaled % den) * phases / den
            let row = phase * taps
            let first = (whole - reach - base) * work
            for ch in 0..<oc {
                let wc = work == 1 ? 0 : min(ch, work - 1)
                var acc: Float = 0
                if taps == 1 {
                    acc = history[first + wc]
                } else {
                    for k in 0..<taps { acc += table[row + k] * history[first + k * work + wc] }
                }
                out.append(Int16(max(-32768, min(32767, acc.rounded()))))
            }
            produced += 1
            made += 1
        }
        // Drop input no later output needs.
        let needed = (produced * num) / den - reach
        if needed - base > 4096 {
            history.removeFirst((needed - base) * work)
            base = needed
        }
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
