import Foundation

/// The 16-bit samples of a WAV file: one written by `say --output`, or what ALSA's
/// `file:FILE=…,FORMAT=wav` device recorded (exactly the samples a program wrote).
public enum WAVSamples {
    /// The samples of the file's `data` chunk, found by walking the chunks; nil if it has none. A
    /// length of 0 (ALSA's file plugin may leave it so) or past the end means "to the end of the file".
    public static func int16(at url: URL) throws -> [Int16]? {
        let bytes = [UInt8](try Data(contentsOf: url))
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            if id == "data" {
                let end = size == 0 ? bytes.count : min(bytes.count, offset + 8 + size)
                return stride(from: offset + 8, to: end - 1, by: 2).map {
                    Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
                }
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }
}
