import JSON
import TalkingClockCore

/// `pack.json` read from one `JSONTree` parse, by a small typed walk: no `JSONDecoder`, whose
/// generic machinery (type metadata instantiated on first use, and a second decode for the
/// checks) was ~2.5 ms of `say --local`'s start (BENCHMARKS.md).
///
/// It reads what the `Decodable` manifest read, in the same order, and fails the same way: the
/// first problem met, with the key path as the decoder named it (an array element is
/// "Index 1": "phrasings.Index 1") and the type as it named it, so every message is the one the
/// decoder gave. Documents with more than one problem in one object of the pack's own keys (two
/// clips, two patterns) report the first key in sorted order (the decoder's was its hash order).
enum ManifestProblem: Error {
    /// A required key is absent: its path.
    case missing(String)
    /// A value of another type (or null, `isNull`) where `expected` was needed.
    case mismatch(String, Expected, isNull: Bool)
    /// A value of the right type that is not allowed: its path and why.
    case invalid(String, String)

    /// The types as the decoder's messages named them.
    enum Expected: String {
        case int = "a whole number"
        case string = "a string"
        case bool = "a Bool"
        case object = "a Dictionary<String, Any>"
        case array = "a Array<Any>"
    }
}

/// An object of the manifest being read, and its key path.
struct ManifestObject {
    typealias Read<T> = (Any, [String]) throws(ManifestProblem) -> T

    let fields: [String: Any]
    let path: [String]

    init(_ value: Any, at path: [String]) throws(ManifestProblem) {
        guard let fields = value as? [String: Any] else { throw Self.mismatch(value, path, .object) }
        self.fields = fields
        self.path = path
    }

    /// A key that must be there (null is "must be …, not null").
    func required<T>(_ key: String, _ read: Read<T>) throws(ManifestProblem) -> T {
        guard let value = fields[key] else { throw .missing(Self.describe(path + [key])) }
        return try read(value, path + [key])
    }

    /// A key that may be left out or be null (nil then).
    func optional<T>(_ key: String, _ read: Read<T>) throws(ManifestProblem) -> T? {
        guard let value = fields[key], !(value is JSONTree.Null) else { return nil }
        return try read(value, path + [key])
    }

    static func describe(_ path: [String]) -> String { path.joined(separator: ".") }

    static func mismatch(_ value: Any, _ path: [String], _ expected: ManifestProblem.Expected) -> ManifestProblem {
        .mismatch(describe(path), expected, isNull: value is JSONTree.Null)
    }

    /// A number that is a whole one and fits an Int: `15`, and `15.0` or `1.5e1` as the decoder
    /// read them. Nil for any other value. (A fraction never gets here: `firstFraction` refuses it
    /// by its key first.)
    static func wholeNumber(_ value: Any) -> Int? {
        if let int = value as? Int { return int }
        if let double = value as? Double, double.magnitude < 0x1p63 { return Int(exactly: double) }
        return nil
    }

    static func int(_ value: Any, _ path: [String]) throws(ManifestProblem) -> Int {
        guard let int = wholeNumber(value) else { throw mismatch(value, path, .int) }
        return int
    }

    static func string(_ value: Any, _ path: [String]) throws(ManifestProblem) -> String {
        guard let string = value as? String else { throw mismatch(value, path, .string) }
        return string
    }

    static func bool(_ value: Any, _ path: [String]) throws(ManifestProblem) -> Bool {
        guard let bool = value as? Bool else { throw mismatch(value, path, .bool) }
        return bool
    }

    /// An array, each element read by `element` ("Index 0", "Index 1", … in the path).
    static func array<T>(_ element: @escaping Read<T>) -> Read<[T]> {
        { (value: Any, path: [String]) throws(ManifestProblem) -> [T] in
            guard let items = value as? [Any] else { throw mismatch(value, path, .array) }
            var result: [T] = []
            result.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { result.append(try element(item, path + ["Index \(i)"])) }
            return result
        }
    }

    /// An object of the pack's own keys (clip ids, chime names, minutes), each value read by `element`.
    static func map<T>(_ element: @escaping Read<T>) -> Read<[String: T]> {
        { (value: Any, path: [String]) throws(ManifestProblem) -> [String: T] in
            guard let object = value as? [String: Any] else { throw mismatch(value, path, .object) }
            var result: [String: T] = [:]
            result.reserveCapacity(object.count)
            for key in object.keys.sorted() { result[key] = try element(object[key]!, path + [key]) }
            return result
        }
    }
}

private typealias O = ManifestObject

extension PackManifest {
    /// The manifest from the parsed document, in the order the fields are declared.
    init(document: [String: Any]) throws(ManifestProblem) {
        let c = try O(document, at: [])
        format = try c.required("format", O.int)
        name = try c.required("name", O.string)
        description = try c.optional("description", O.string)
        license = try c.optional("license", O.string)
        spacing = try c.optional("spacing", Spacing.read) ?? Spacing()
        clips = try c.required("clips", O.map(O.string))
        bells = try c.optional("bells", Bells.read)
        chimes = try c.optional("chimes", Chimes.read) ?? Chimes()
        sampleRate = try c.optional("sample_rate", O.int)
        channels = try c.optional("channels", O.int)
        language = try c.optional("language", O.string) ?? SpokenLanguages.defaultTag
        phrasings = try c.optional("phrasings", O.array(O.string))?.map(Phrasing.init(rawValue:))
        synthesis = try c.optional("synthesis", SynthesisInfo.read)
    }
}

extension PackManifest.Bells {
    static func read(_ value: Any, _ path: [String]) throws(ManifestProblem) -> Self {
        let c = try O(value, at: path)
        return Self(
            quarter: try c.optional("quarter", O.array(O.string)), hour: try c.optional("hour", O.string),
            ship: try c.optional("ship", O.string))
    }
}

extension PackManifest.SynthesisInfo {
    static func read(_ value: Any, _ path: [String]) throws(ManifestProblem) -> Self {
        let c = try O(value, at: path)
        return Self(
            engine: try c.required("engine", O.string), voice: try c.optional("voice", O.string),
            model: try c.optional("model", O.string))
    }
}

extension PackManifest.Chimes {
    /// `"chimes"`: the timing's keys and `"patterns"` side by side in one object.
    static func read(_ value: Any, _ path: [String]) throws(ManifestProblem) -> Self {
        let c = try O(value, at: path)
        let timing = try ChimeTiming.read(c)
        return Self(timing: timing, patterns: try c.optional("patterns", O.map(ChimePattern.read)) ?? [:])
    }
}

extension Spacing {
    static func read(_ value: Any, _ path: [String]) throws(ManifestProblem) -> Self {
        let c = try O(value, at: path)
        return Spacing(
            wordGapMs: try c.optional("word_gap_ms", O.int) ?? 0, leadInGapMs: try c.optional("lead_in_gap_ms", O.int) ?? 0,
            chimeGapMs: try c.optional("chime_gap_ms", O.int) ?? 0,
            wordOverlapMs: try c.optional("word_overlap_ms", O.int) ?? 0)
    }
}

extension ChimeTiming {
    /// The tempo keys of a `"chimes"` object; each left out keeps its default.
    static func read(_ c: ManifestObject) throws(ManifestProblem) -> Self {
        let d = ChimeTiming()
        let timing = ChimeTiming(
            beatMs: try c.optional("beat_ms", O.int) ?? d.beatMs,
            hourAfterMs: try c.optional("hour_after_ms", O.int) ?? d.hourAfterMs,
            strikeIntervalMs: try c.optional("strike_interval_ms", O.int) ?? d.strikeIntervalMs,
            shipStrikeMs: try c.optional("ship_strike_ms", O.int) ?? d.shipStrikeMs,
            shipPairGapMs: try c.optional("ship_pair_gap_ms", O.int) ?? d.shipPairGapMs,
            voiceAfterMs: try c.optional("voice_after_ms", O.int),
            duckDb: try c.optional("duck_db", O.int) ?? 0)
        guard (0...60).contains(timing.duckDb) else {
            throw .invalid(O.describe(c.path + ["duck_db"]), "\(timing.duckDb) is not a number of dB from 0 to 60")
        }
        return timing
    }
}

extension ChimePattern {
    /// A pattern spelled out in `"chimes.patterns"`: fixed notes by minute ("0"-"59"), strikes,
    /// and where the voice comes in.
    static func read(_ value: Any, _ path: [String]) throws(ManifestProblem) -> Self {
        let c = try O(value, at: path)
        let byMinute = try c.optional("notes", O.map(O.array(Note.read))) ?? [:]
        var notes: [Int: [Note]] = [:]
        for key in byMinute.keys.sorted() {
            guard let minute = Int(key), (0..<60).contains(minute) else {
                throw .invalid(O.describe(path + ["notes"]), "\"\(key)\" is not a minute of the hour (0-59)")
            }
            notes[minute] = byMinute[key]!
        }
        return ChimePattern(
            notes: notes, strikes: try c.optional("strikes", Strikes.read), voiceAfterMs: try c.optional("voice_after_ms", O.int))
    }
}

extension ChimePattern.Note {
    static func read(_ value: Any, _ path: [String]) throws(ManifestProblem) -> Self {
        let c = try O(value, at: path)
        return Self(bell: try c.required("bell", O.string), atMs: try c.required("at_ms", O.int), anchor: try c.optional("anchor", O.bool))
    }
}

extension ChimePattern.Strikes {
    static func read(_ value: Any, _ path: [String]) throws(ManifestProblem) -> Self {
        let c = try O(value, at: path)
        let bell = try c.required("bell", O.string)
        let count = try c.required("count") { (value: Any, path: [String]) throws(ManifestProblem) -> ChimePattern.Count in
            let name = try O.string(value, path)
            guard let count = ChimePattern.Count(rawValue: name) else {
                throw .invalid(O.describe(path), "Cannot initialize Count from invalid String value \(name)")
            }
            return count
        }
        return Self(
            bell: bell, count: count, minutes: try c.required("minutes", O.array(O.int)),
            afterMs: try c.optional("after_ms", O.int) ?? 0, intervalMs: try c.required("interval_ms", O.int),
            pairGapMs: try c.optional("pair_gap_ms", O.int), anchor: try c.optional("anchor", O.bool) ?? true)
    }
}

extension PackManifest {
    /// The manifest's bytes as UTF-8, as `JSONDecoder` took them: a UTF-8 byte order mark is
    /// skipped, UTF-16 (known by its mark, or by the zero bytes beside its ASCII) and UTF-32
    /// without a mark are converted (a last incomplete code unit is dropped, as it did). Nil when
    /// they do not convert; anything else is left as it is (UTF-32 with a mark it did not read).
    static func utf8(_ bytes: [UInt8]) -> [UInt8]? {
        var width = 2
        var bigEndian = false
        var skip = 0
        if bytes.count >= 4 {
            switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
            case (0xEF, 0xBB, 0xBF, _): return Array(bytes[3...])
            case (0, 0, 0xFE, 0xFF), (0xFF, 0xFE, 0, 0): return bytes
            case (0xFF, 0xFE, _, _): skip = 2
            case (0xFE, 0xFF, _, _): (skip, bigEndian) = (2, true)
            case (0, 0, 0, _): (width, bigEndian) = (4, true)
            case (_, 0, 0, 0): width = 4
            case (0, _, 0, _): bigEndian = true
            case (_, 0, _, 0): break
            default: return bytes
            }
        } else if bytes.count >= 2, bytes[0] == 0 || bytes[1] == 0 {
            bigEndian = bytes[0] == 0
        } else {
            return bytes
        }
        var units: [UInt32] = []
        units.reserveCapacity((bytes.count - skip) / width)
        var i = skip
        while i + width <= bytes.count {
            var unit: UInt32 = 0
            for k in 0..<width { unit |= UInt32(bytes[i + k]) << (8 * (bigEndian ? width - 1 - k : k)) }
            units.append(unit)
            i += width
        }
        let text =
            width == 2
            ? String(validating: units.map { UInt16(truncatingIfNeeded: $0) }, as: UTF16.self)
            : String(validating: units, as: UTF32.self)
        return text.map { Array($0.utf8) }
    }
}
