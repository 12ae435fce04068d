/// The decoded samples of one clip, interleaved, in [-1, 1]: 16-bit where that is exact (sample
/// value = s / 32768, what libsndfile gives for 16-bit sources: half the memory of float), float
/// otherwise (24-bit or float sources, resampled clips). The mixer turns 16-bit samples into the
/// same float values while it mixes one announcement, so the output does not change.
public enum ClipSamples: Sendable, Equatable {
    case pcm16([Int16])
    case float([Float])

    /// 1 / 32768: an exact power of two, so `Float(s) * scale16` is exactly s / 32768.
    public static let scale16: Float = 1.0 / 32768

    /// 16-bit when every sample is exactly s / 32768 for an Int16 s, float otherwise.
    public static func compact(_ samples: [Float]) -> ClipSamples {
        var pcm = [Int16](repeating: 0, count: samples.count)
        for (i, x) in samples.enumerated() {
            guard let s = exact16(x) else { return .float(samples) }
            pcm[i] = s
        }
        return .pcm16(pcm)
    }

    /// The Int16 whose value / 32768 is exactly `x`, if there is one (-0.0 has none: it would come
    /// back as +0.0).
    @inline(__always)
    public static func exact16(_ x: Float) -> Int16? {
        let scaled = x * 32768  // exact: a power of two
        guard scaled >= -32768, scaled <= 32767, scaled == scaled.rounded(), x.sign == .plus || x != 0 else { return nil }
        return Int16(scaled)
    }

    public var count: Int {
        switch self {
        case .pcm16(let s): s.count
        case .float(let s): s.count
        }
    }

    /// The samples as float (a copy for 16-bit storage).
    public var floats: [Float] {
        switch self {
        case .pcm16(let s): s.map { Float($0) * Self.scale16 }
        case .float(let s): s
        }
    }

    /// Bytes of sample memory held.
    public var byteCount: Int {
        switch self {
        case .pcm16(let s): s.count * 2
        case .float(let s): s.count * 4
        }
    }
}
