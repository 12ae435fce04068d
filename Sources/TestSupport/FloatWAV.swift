import Foundation

/// A WAV file of 32-bit IEEE float samples (format 3), written byte by byte so that a test can
/// put any value in it: NaN, an infinity, 1e30 (what a damaged or hostile float clip holds).
public enum FloatWAV {
    public static func encode(_ samples: [Float], sampleRate: Int, channels: Int = 1) -> Data {
        var data = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        let bytes = UInt32(samples.count * 4)
        data.append(contentsOf: Array("RIFF".utf8)); u32(4 + 26 + 12 + 8 + bytes); data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); u32(18); u16(3); u16(UInt16(channels))
        u32(UInt32(sampleRate)); u32(UInt32(sampleRate * channels * 4)); u16(UInt16(channels * 4)); u16(32); u16(0)
        data.append(contentsOf: Array("fact".utf8)); u32(4); u32(UInt32(samples.count / channels))
        data.append(contentsOf: Array("data".utf8)); u32(bytes)
        for s in samples { u32(s.bitPattern) }
        return data
    }
}
