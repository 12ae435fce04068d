import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// RIFF/WAVE encoding of 16-bit PCM (for `say --output`).
public enum WAV {
    public static func encode(_ samples: [Int16], format: StreamFormat) -> Data {
        var data = Data(capacity: 44 + samples.count * 2)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        let bytes = UInt32(samples.count * 2)
        data.append(contentsOf: Array("RIFF".utf8)); u32(36 + bytes)
        data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(UInt16(format.channels))
        u32(UInt32(format.sampleRate)); u32(UInt32(format.sampleRate * format.channels * 2))
        u16(UInt16(format.channels * 2)); u16(16)
        data.append(contentsOf: Array("data".utf8)); u32(bytes)
        // WAV's samples are little-endian: the buffer's bytes as they are on a little-endian host.
        if 1.littleEndian == 1 {
            samples.withUnsafeBytes { data.append(contentsOf: $0) }
        } else {
            samples.withUnsafeBufferPointer { buffer in
                for s in buffer { withUnsafeBytes(of: s.littleEndian) { data.append(contentsOf: $0) } }
            }
        }
        return data
    }
}
