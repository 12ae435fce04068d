import Foundation

/// Deterministic test signals in floating point (full scale = 1.0), and their conversion to
/// 16-bit samples. Levels are given in dBFS as `Loudness` measures them (RMS re full scale).
public enum SyntheticAudio {
    /// A fixed-seed generator, so every run builds the same signals.
    public struct Noise {
        private var state: UInt64

        public init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

        /// Uniform in [-1, 1).
        public mutating func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }

        /// Approximately Gaussian with unit variance (sum of 12 uniforms).
        public mutating func gaussian() -> Double {
            var sum = 0.0
            for _ in 0..<12 { sum += uniform() }
            return sum / 2  // each uniform in [-1, 1) has variance 1/3
        }
    }

    /// Amplitude factor for a level in dB.
    public static func gain(_ db: Double) -> Double { pow(10, db / 20) }

    /// Silence.
    public static func silence(_ seconds: Double, rate: Int) -> [Double] {
        [Double](repeating: 0, count: Int(seconds * Double(rate)))
    }

    /// White noise at an RMS level in dBFS.
    public static func noise(_ seconds: Double, level: Double, rate: Int, seed: UInt64) -> [Double] {
        var noise = Noise(seed: seed)
        let a = gain(level)
        return (0..<Int(seconds * Double(rate))).map { _ in noise.gaussian() * a }
    }

    /// A vowel-like tone: a fundamental and decaying harmonics, at an RMS level in dBFS.
    public static func vowel(_ seconds: Double, level: Double, rate: Int, fundamental: Double = 180) -> [Double] {
        let n = Int(seconds * Double(rate))
        let harmonics = [1.0, 0.6, 0.4, 0.25, 0.15]
        let power = harmonics.reduce(0) { $0 + $1 * $1 } / 2
        let scale = gain(level) / power.squareRoot()
        return (0..<n).map { i in
            let t = Double(i) / Double(rate)
            return harmonics.enumerated().reduce(0.0) { sum, h in
                sum + h.element * sin(2 * .pi * fundamental * Double(h.offset + 1) * t)
            } * scale
        }
    }

    /// Adds `b` into `a` starting at `offset` (extending `a` if needed).
    public static func mix(_ a: [Double], _ b: [Double], at offset: Int) -> [Double] {
        var out = a
        if out.count < offset + b.count { out += [Double](repeating: 0, count: offset + b.count - out.count) }
        for i in b.indices { out[offset + i] += b[i] }
        return out
    }

    /// Rounds to 16 bit, saturating at full scale (as an overdriven converter does).
    public static func int16(_ x: [Double]) -> [Int16] {
        x.map { Int16(clamping: Int(($0 * 32768).rounded())) }
    }

    /// 16-bit samples back to floating point.
    public static func double(_ x: [Int16]) -> [Double] { x.map { Double($0) / 32768 } }

    /// Little-endian bytes, as a raw S16_LE file.
    public static func rawBytes(_ x: [Int16]) -> Data {
        var data = Data(capacity: x.count * 2)
        for s in x {
            let u = UInt16(bitPattern: s)
            data.append(UInt8(u & 0xFF))
            data.append(UInt8(u >> 8))
        }
        return data
    }
}
