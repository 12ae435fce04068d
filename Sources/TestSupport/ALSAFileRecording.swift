import Foundation

/// What ALSA's `file:FILE=…,FORMAT=wav` device recorded: exactly the samples a program wrote.
public enum ALSAFileRecording {
    /// The 16-bit samples of the file's `data` chunk; nil if it has none. The plugin may leave the
    /// header's lengths at 0, so the chunk runs to the end of the file.
    public static func samples(at url: URL) throws -> [Int16]? {
        let data = try Data(contentsOf: url)
        var offset = 12
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            let size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            if id == "data" {
                let body = data[(offset + 8)...]
                return stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map {
                    Int16(bitPattern: UInt16(body[$0]) | UInt16(body[$0 + 1]) << 8)
                }
            }
            offset += 8 + size
        }
        return nil
    }
}
