import FoundationEssentials
import JSON
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// A file of a pack could not be written; names the file and the fix.
public struct PackWriteError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Any JSON value, so a manifest can be edited without losing keys this version does not know.
public indirect enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// A value of a `JSONTree` parse, as `init(from:)` reads the same JSON: a whole number
    /// (`15`, and `15.0` or `1.5e1`) is `.int`.
    public init(tree: Any) {
        switch tree {
        case let b as Bool: self = .bool(b)
        case let s as String: self = .string(s)
        case let o as [String: Any]: self = .object(o.mapValues(JSONValue.init(tree:)))
        case let a as [Any]: self = .array(a.map(JSONValue.init(tree:)))
        default:
            if let i = ManifestObject.wholeNumber(tree) {
                self = .int(i)
            } else if let d = tree as? Double {
                self = .double(d)
            } else {
                self = .null
            }
        }
    }

    /// A JSON document read as `PackManifest.parse` reads one (no `JSONDecoder`); nil if it is not JSON.
    public init?(parsing data: Data) {
        guard let text = PackManifest.utf8([UInt8](data)), let tree = try? JSONTree.parse(text, duplicateKeys: .keepFirst)
        else { return nil }
        self.init(tree: tree)
    }

    public subscript(key: String) -> JSONValue? {
        get { if case .object(let o) = self { o[key] } else { nil } }
        set {
            guard case .object(var o) = self else { return }
            o[key] = newValue
            self = .object(o)
        }
    }

    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var intValue: Int? { if case .int(let i) = self { i } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    /// Every string inside this value (for finding the clip ids a "bells" object names).
    public var allStrings: [String] {
        switch self {
        case .string(let s): [s]
        case .array(let a): a.flatMap(\.allStrings)
        case .object(let o): o.keys.sorted().flatMap { o[$0]!.allStrings }
        default: []
        }
    }

    /// Indented JSON, two spaces, keys in the order of `keyOrder` (deterministic: equal values
    /// give equal bytes).
    public func rendered(indent: String = "", keyOrder: (String) -> (Int, String)) -> String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? "\(d)" : "null"
        case .string(let s): return Self.quote(s)
        case .array(let a):
            if a.isEmpty { return "[]" }
            let inner = indent + "  "
            return "[\n" + a.map { inner + $0.rendered(indent: inner, keyOrder: keyOrder) }.joined(separator: ",\n")
                + "\n\(indent)]"
        case .object(let o):
            if o.isEmpty { return "{}" }
            let inner = indent + "  "
            let keys = o.keys.sorted { keyOrder($0) < keyOrder($1) }
            return "{\n"
                + keys.map { inner + Self.quote($0) + ": " + o[$0]!.rendered(indent: inner, keyOrder: keyOrder) }
                .joined(separator: ",\n")
                + "\n\(indent)}"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += Format.c("\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Writes a pack's files so that a reader never sees a half-written one: each file is written
/// to a temporary name in the same directory, flushed to disk and renamed over the old one.
public struct PackWriter: Sendable {
    public let directory: URL

    public init(directory: URL) { self.directory = directory.standardizedFileURL }

    public var manifestURL: URL { directory.appendingPathComponent(PackManifest.fileName) }

    /// The manifest as it is on disk, nil if there is none yet.
    public func readManifest() throws(PackError) -> JSONValue? {
        guard let data = FileManager.default.contents(atPath: manifestURL.path) else { return nil }
        return JSONValue(tree: try PackManifest.read(data, path: manifestURL.path).document)
    }

    /// Key order for pack.json: the manifest's own fields first, clip ids in spoken order.
    public static func keyOrder(_ key: String) -> (Int, String) {
        let fields = [
            "format", "name", "description", "license", "language", "phrasings", "sample_rate", "channels", "spacing", "word_gap_ms",
            "lead_in_gap_ms", "chime_gap_ms", "clips", "bells", "quarter", "hour",
        ]
        if let i = fields.firstIndex(of: key) { return (i, "") }
        if RecordingScript.allWords.contains(key) {
            let (rank, word) = RecordingScript.order(key)
            return (1000 + rank, word)
        }
        return (10_000, key)
    }

    public func writeManifest(_ manifest: JSONValue) throws(PackWriteError) {
        try createDirectory(directory)
        let text = manifest.rendered(keyOrder: Self.keyOrder) + "\n"
        try atomicWrite(path: manifestURL.path) { (temporary: String) throws(PackWriteError) in
            do throws(FileOutput.Failure) { try FileOutput.write(Array(text.utf8), to: temporary) } catch {
                throw PackWriteError(error.description)
            }
        }
    }

    /// Encodes a clip as FLAC at `relativePath` inside the pack.
    public func writeClip(_ samples: [Int16], format: StreamFormat, relativePath: String) throws(PackWriteError) {
        let url = directory.appendingPathComponent(relativePath)
        try createDirectory(url.deletingLastPathComponent())
        try atomicWrite(path: url.path) { (temporary: String) throws(PackWriteError) in
            do throws(PackError) { try ClipEncoder.write(samples, format: format, to: temporary, as: .flac) } catch {
                throw PackWriteError(error.description)
            }
        }
    }

    /// Copies a file into the pack (for the bells of a new pack).
    public func copyFile(from source: URL, to relativePath: String) throws(PackWriteError) {
        let url = directory.appendingPathComponent(relativePath)
        try createDirectory(url.deletingLastPathComponent())
        guard let data = FileManager.default.contents(atPath: source.path) else {
            throw PackWriteError("Could not read \(source.path) to copy it into the pack; check that the file exists.")
        }
        try atomicWrite(path: url.path) { (temporary: String) throws(PackWriteError) in
            do throws(FileOutput.Failure) { try FileOutput.write(data, to: temporary) } catch {
                throw PackWriteError(error.description)
            }
        }
    }

    func createDirectory(_ url: URL) throws(PackWriteError) {
        do throws(FileOutput.Failure) { try FileOutput.createDirectories(url.path) } catch {
            throw PackWriteError(error.description)
        }
    }

    /// Writes through `write(temporaryPath)`, then fsync, rename over `path`, fsync the directory.
    func atomicWrite(path: String, _ write: (String) throws(PackWriteError) -> Void) throws(PackWriteError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).tmp-\(getpid())"
        ).path
        do throws(PackWriteError) {
            try write(temporary)
            try sync(temporary)
            guard rename(temporary, path) == 0 else {
                throw PackWriteError("Could not move \(temporary) to \(path): \(String(cString: strerror(errno))).")
            }
        } catch {
            unlink(temporary)
            throw error
        }
        try? sync(url.deletingLastPathComponent().path)
    }

    func sync(_ path: String) throws(PackWriteError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw PackWriteError("Could not open \(path) to flush it: \(String(cString: strerror(errno))).")
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw PackWriteError("Could not flush \(path) to disk: \(String(cString: strerror(errno))).")
        }
    }
}
