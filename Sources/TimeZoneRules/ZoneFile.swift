#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a zone file's bytes: the module's only I/O, kept apart from the parsers so that they stay
/// pure. A daemon may as well read the file its own way and hand the bytes to `TZif(bytes:)`.
public enum ZoneFile {
    /// Zone files are a few kilobytes; anything larger than this is refused unread.
    public static let maximumSize = 1 << 20

    /// The whole file at `path`.
    public static func read(path: String) throws(ZoneFileError) -> [UInt8] {
        // open(2), read(2), close(2).
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ZoneFileError(path: path, reason: lastError()) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ZoneFileError(path: path, reason: lastError())
            }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
            guard bytes.count <= maximumSize else {
                throw ZoneFileError(path: path, reason: "larger than \(maximumSize) bytes, so not a zone file")
            }
        }
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

/// read(2), under another name than `ZoneFile.read(path:)`.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Why a zone file could not be read: the path and the system's reason.
public struct ZoneFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "Could not read the zone file \(path): \(reason)." }
}
