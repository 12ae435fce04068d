import JSON
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PhraseGrammar
import TalkingClockCore

/// The contents of a pack's `pack.json`.
///
/// ```json
/// { "format": 1, "name": "default", "description": "…", "license": "…",
///   "spacing": { "word_gap_ms": 0, "lead_in_gap_ms": 0, "chime_gap_ms": -2500 },
///   "clips": { "one": "voice/one.flac", "chime": "bells/bell-e3.flac" },
///   "bells": { "quarter": ["bell-gs4", "bell-fs4", "bell-e4", "bell-b3"], "hour": "bell-e3" } }
/// ```
public struct PackManifest: Hashable, Sendable {
    public static let fileName = "pack.json"
    public static let supportedFormat = 1

    public struct Bells: Hashable, Sendable {
        /// The four quarter bells, highest first (Westminster: G♯4 F♯4 E4 B3).
        public var quarter: [String]?
        /// The hour bell.
        public var hour: String?
        /// The ship's bell (default: the highest quarter bell).
        public var ship: String?
    }

    /// `"chimes"`: the tempo of the built-in patterns and any pattern spelled out in full.
    public struct Chimes: Hashable, Sendable {
        public var timing: ChimeTiming
        /// Patterns that replace the built-in ones, by chime style name.
        public var patterns: [String: ChimePattern]

        public init(timing: ChimeTiming = ChimeTiming(), patterns: [String: ChimePattern] = [:]) {
            self.timing = timing
            self.patterns = patterns
        }
    }

    public var format: Int
    public var name: String
    public var description: String?
    public var license: String?
    public var spacing: Spacing
    /// Clip id → path relative to the pack directory.
    public var clips: [String: String]
    public var bells: Bells?
    public var chimes: Chimes
    /// The stream format, if the pack declares it: then loading need not read every clip's
    /// header first (clips in another format are still converted when decoded).
    public var sampleRate: Int?
    public var channels: Int?
    /// The language the voice speaks, a known tag (`"language": "de"`; default en-US).
    public var language: String
    /// The phrasings the pack can say every minute in (`"phrasings": ["casual", "24h"]`); nil
    /// when it does not say (then `check` proves the configured phrasing).
    public var phrasings: [Phrasing]?
    /// The synthesis engine (and voice) the pack's words were made with (`"synthesis": {"engine":
    /// "espeak-ng", "voice": "de"}`): the daemon renders reminder texts with it. Nil when the pack
    /// does not say (its `cuts.json` or description may: `SynthesisVoice.of(pack:)`).
    public var synthesis: SynthesisInfo?

    /// `"synthesis"`: an engine ("festival", "espeak-ng", "piper"), its voice and, for Piper, the model file.
    public struct SynthesisInfo: Hashable, Sendable {
        public var engine: String
        public var voice: String?
        public var model: String?
    }

    /// Parses and validates manifest JSON. `path` only names the file in messages.
    ///
    /// Strict like the config: a key this version does not know is an error with the closest
    /// known key, so a misspelt `"sampel_rate"` is not silently ignored.
    public static func parse(_ data: Data, path: String) throws(PackError) -> PackManifest {
        try read(data, path: path).manifest
    }

    /// The manifest and the document it was read from (one parse of the bytes for both).
    static func read(_ data: Data, path: String) throws(PackError) -> (manifest: PackManifest, document: [String: Any]) {
        // A syntax error is described from the bytes as they are (a mark or UTF-16 at its place).
        guard let text = utf8([UInt8](data)), let tree = try? JSONTree.parse(text, duplicateKeys: .keepFirst) else {
            throw PackError(.badManifest, "\(path) is not valid JSON (\(syntaxError(data))); check it with 'python3 -m json.tool \(path)'.")
        }
        guard let document = tree as? [String: Any] else {
            throw PackError(.badManifest, "\(path) must hold one JSON object, { \"format\": 1, \"name\": …, \"clips\": { … } }; see the pack format in the README.")
        }
        if let unknown = ManifestKeys.firstUnknown(in: document, shape: ManifestKeys.manifest, at: "") {
            let within = unknown.object.isEmpty ? "" : " in \"\(unknown.object)\""
            let near = Suggestion.closest(to: unknown.key, in: unknown.known).map { "; did you mean '\($0)'?" } ?? "."
            throw PackError(
                .badManifest,
                "\(path): unknown key '\(unknown.key)'\(within)\(near) Known keys\(within): "
                    + unknown.known.joined(separator: ", ") + ".")
        }
        // Every number in a manifest is a whole one: say which is not, by its key (the decoder's
        // own error for 1.5 named no key, and the message was the generic one).
        if let (key, value) = ManifestKeys.firstFraction(in: document, at: "") {
            let unit = key.hasSuffix("_ms") ? " of milliseconds" : ""
            let shown = value.isFinite && abs(value) < 1e15 ? "\(value)" : "\(value) (too large)"
            throw PackError(.badManifest, "\(path): \"\(key)\" is \(shown); it must be a whole number\(unit).")
        }
        var manifest: PackManifest
        do throws(ManifestProblem) {
            manifest = try PackManifest(document: document)
        } catch {
            switch error {
            case .missing(let key):
                throw PackError(.badManifest, "\(path): the key \"\(key)\" is missing; see the pack format in the README.")
            case .mismatch(let key, let expected, let isNull):
                throw PackError(.badManifest, "\(path): \"\(key)\" must be \(expected.rawValue)\(isNull ? ", not null" : "").")
            case .invalid(let key, let why):
                throw PackError(.badManifest, "\(path): \"\(key)\": \(why).")
            }
        }
        guard manifest.format == supportedFormat else {
            throw PackError(.badManifest, "\(path) has format \(manifest.format), but this talking-clock reads format \(supportedFormat); update talking-clock or regenerate the pack.")
        }
        if let rate = manifest.sampleRate, !(8000...192_000).contains(rate) {
            throw PackError(.badManifest, "\(path): \"sample_rate\" is \(rate); use 8000-192000 (Hz).")
        }
        if let channels = manifest.channels, !(1...2).contains(channels) {
            throw PackError(.badManifest, "\(path): \"channels\" is \(channels); packs are mono (1) or stereo (2).")
        }
        for name in manifest.chimes.patterns.keys.sorted() where ChimeStyle(rawValue: name).map({ $0 == .none }) ?? true {
            let styles = ChimeStyle.allCases.filter { $0 != .none }.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw PackError(.badManifest, "\(path): \"chimes.patterns\" names \"\(name)\", which is not a chime; patterns can replace \(styles).")
        }
        for name in manifest.chimes.patterns.keys.sorted() {
            if let (key, problem) = manifest.chimes.patterns[name]!.limitProblem() {
                throw PackError(.badManifest, "\(path): \"chimes.patterns.\(name).\(key)\" \(problem).")
            }
        }
        if let (key, value, range) = timingOutOfRange(manifest) {
            throw PackError(
                .badManifest,
                "\(path): \"\(key)\" is \(value); use \(range.lowerBound) to \(range.upperBound) (milliseconds).")
        }
        guard let tag = SpokenLanguages.canonical(manifest.language) else {
            throw PackError(
                .badManifest,
                "\(path): \"language\" is \"\(manifest.language)\", which the clock does not speak; use one of \(SpokenLanguages.knownList).")
        }
        manifest.language = tag
        for phrasing in manifest.phrasings ?? [] where !SpokenLanguages.phrasings(of: tag).contains(phrasing) {
            throw PackError(
                .badManifest,
                "\(path): \"phrasings\" names \"\(phrasing)\", which \(tag) does not have; it has: "
                    + SpokenLanguages.phrasings(of: tag).map(\.rawValue).joined(separator: ", ") + ".")
        }
        if manifest.phrasings?.isEmpty == true {
            throw PackError(.badManifest, "\(path): \"phrasings\" is empty; list the phrasings the pack can say, or leave the key out.")
        }
        guard !manifest.clips.isEmpty else {
            throw PackError(.badManifest, "\(path) lists no clips; add a \"clips\" object mapping clip ids to files.")
        }
        // A unit is matched against the phrase's words joined by single spaces: " une  heure"
        // would never match, and the pack would silently say the words one by one.
        for id in manifest.clips.keys.sorted()
        where id.contains(where: \.isWhitespace) && id != id.split(whereSeparator: \.isWhitespace).joined(separator: " ") {
            let fixed = id.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            throw PackError(
                .badManifest,
                "\(path): clip id \"\(id)\" is a unit with stray white space; write its words joined by single spaces, \"\(fixed)\".")
        }
        return (manifest, document)
    }

    /// Largest `pack.json` read: a real manifest is a few kB, and a pack directory whose
    /// `pack.json` is `/dev/zero` or a multi-gigabyte file must not be read into memory.
    public static let maximumSize = 1 << 20

    /// The allowed range of each timing value, in milliseconds. Every one is bounded so that no
    /// manifest can make an announcement longer than a few minutes (a huge value allocated
    /// 17 GB of silence, or overflowed and crashed `say`): the longest pattern this allows is the
    /// Westminster hour at the largest beat, interval and delays, about 7 minutes.
    public static let timingRanges: [String: ClosedRange<Int>] = [
        "spacing.word_gap_ms": 0...10_000,
        "spacing.lead_in_gap_ms": 0...10_000,
        "spacing.chime_gap_ms": -30_000...30_000,
        "spacing.word_overlap_ms": 0...100,
        "chimes.beat_ms": 1...10_000,
        "chimes.hour_after_ms": 0...60_000,
        "chimes.strike_interval_ms": 0...10_000,
        "chimes.ship_strike_ms": 0...10_000,
        "chimes.ship_pair_gap_ms": 0...10_000,
        "chimes.voice_after_ms": 0...60_000,
        "at_ms": 0...120_000,
        "after_ms": 0...60_000,
        "interval_ms": 0...10_000,
        "pair_gap_ms": 0...10_000,
        "voice_after_ms": 0...60_000,
    ]

    /// The first timing value outside its range: its key as written in the file
    /// ("chimes.patterns.hour.strikes.after_ms"), the value, and the allowed range.
    static func timingOutOfRange(_ m: PackManifest) -> (String, Int, ClosedRange<Int>)? {
        var values: [(String, String, Int)] = [
            ("spacing.word_gap_ms", "spacing.word_gap_ms", m.spacing.wordGapMs),
            ("spacing.lead_in_gap_ms", "spacing.lead_in_gap_ms", m.spacing.leadInGapMs),
            ("spacing.chime_gap_ms", "spacing.chime_gap_ms", m.spacing.chimeGapMs),
            ("spacing.word_overlap_ms", "spacing.word_overlap_ms", m.spacing.wordOverlapMs),
            ("chimes.beat_ms", "chimes.beat_ms", m.chimes.timing.beatMs),
            ("chimes.hour_after_ms", "chimes.hour_after_ms", m.chimes.timing.hourAfterMs),
            ("chimes.strike_interval_ms", "chimes.strike_interval_ms", m.chimes.timing.strikeIntervalMs),
            ("chimes.ship_strike_ms", "chimes.ship_strike_ms", m.chimes.timing.shipStrikeMs),
            ("chimes.ship_pair_gap_ms", "chimes.ship_pair_gap_ms", m.chimes.timing.shipPairGapMs),
        ]
        if let v = m.chimes.timing.voiceAfterMs { values.append(("chimes.voice_after_ms", "chimes.voice_after_ms", v)) }
        for name in m.chimes.patterns.keys.sorted() {
            let pattern = m.chimes.patterns[name]!
            let at = "chimes.patterns.\(name)"
            for minute in pattern.notes.keys.sorted() {
                for (i, note) in pattern.notes[minute]!.enumerated() {
                    values.append(("\(at).notes.\(minute)[\(i)].at_ms", "at_ms", note.atMs))
                }
            }
            if let strikes = pattern.strikes {
                values.append(("\(at).strikes.after_ms", "after_ms", strikes.afterMs))
                values.append(("\(at).strikes.interval_ms", "interval_ms", strikes.intervalMs))
                if let gap = strikes.pairGapMs { values.append(("\(at).strikes.pair_gap_ms", "pair_gap_ms", gap)) }
            }
            if let v = pattern.voiceAfterMs { values.append(("\(at).voice_after_ms", "voice_after_ms", v)) }
        }
        for (key, rule, value) in values {
            let range = timingRanges[rule]!
            if !range.contains(value) { return (key, value, range) }
        }
        return nil
    }

    /// Where and why the JSON does not parse ("Invalid value at line 3, column 12"), not
    /// Foundation's "The data couldn't be read because it isn't in the correct format."
    static func syntaxError(_ data: Data) -> String {
        let detail: String
        do {
            _ = try JSONTree.parse(data)
            return "it is not a JSON document"
        } catch {
            detail = error.description
        }
        var text = detail.hasSuffix(".") ? String(detail.dropLast()) : detail
        // "around character N" (a byte offset from 0) → line and column.
        if let range = text.firstRange(of: "around character "), let offset = Int(text[range.upperBound...]),
            offset <= data.count
        {
            let before = [UInt8](data.prefix(offset))
            let line = before.filter { $0 == 0x0A }.count + 1
            let column = before.count - ((before.lastIndex(of: 0x0A)).map { $0 + 1 } ?? 0) + 1
            text = text[..<range.lowerBound] + "at line \(line), column \(column)"
        }
        return text
    }
}

/// The keys `pack.json` may hold, object by object, in the order the README documents them.
enum ManifestKeys {
    indirect enum Shape: Sendable {
        /// Any value (its type is checked when it is decoded).
        case value
        /// An object with only these keys.
        case object([(String, Shape)])
        /// An object with keys of the pack's choosing (clip ids, minutes, chime names).
        case map(Shape)
        case array(Shape)
    }

    static let note = Shape.object([("bell", .value), ("at_ms", .value), ("anchor", .value)])
    static let strikes = Shape.object([
        ("bell", .value), ("count", .value), ("minutes", .value), ("after_ms", .value), ("interval_ms", .value),
        ("pair_gap_ms", .value), ("anchor", .value),
    ])
    static let pattern = Shape.object([("notes", .map(.array(note))), ("strikes", strikes), ("voice_after_ms", .value)])
    static let manifest = Shape.object([
        ("format", .value), ("name", .value), ("description", .value), ("license", .value), ("language", .value),
        ("phrasings", .value), ("sample_rate", .value), ("channels", .value),
        ("synthesis", .object([("engine", .value), ("voice", .value), ("model", .value)])),
        (
            "spacing",
            .object([("word_gap_ms", .value), ("lead_in_gap_ms", .value), ("chime_gap_ms", .value), ("word_overlap_ms", .value)])
        ),
        ("clips", .map(.value)),
        ("bells", .object([("quarter", .value), ("hour", .value), ("ship", .value)])),
        (
            "chimes",
            .object([
                ("beat_ms", .value), ("hour_after_ms", .value), ("strike_interval_ms", .value),
                ("ship_strike_ms", .value), ("ship_pair_gap_ms", .value), ("voice_after_ms", .value),
                ("duck_db", .value), ("patterns", .map(pattern)),
            ])
        ),
    ])

    /// The first number that is not a whole one (a fraction, or too large for an Int), with its
    /// key as written ("spacing.word_gap_ms", "chimes.patterns.hour.notes.0[1].at_ms").
    static func firstFraction(in value: Any, at path: String) -> (String, Double)? {
        // Almost every manifest has none: look without sorting keys or building paths first.
        func any(_ value: Any) -> Bool {
            if let d = value as? Double { return ManifestObject.wholeNumber(d) == nil }
            if let object = value as? [String: Any] { return object.values.contains(where: any) }
            if let items = value as? [Any] { return items.contains(where: any) }
            return false
        }
        guard any(value) else { return nil }
        if let d = value as? Double, ManifestObject.wholeNumber(d) == nil { return (path, d) }
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() {
                if let found = firstFraction(in: object[key]!, at: path.isEmpty ? key : path + "." + key) { return found }
            }
        } else if let items = value as? [Any] {
            for (i, item) in items.enumerated() {
                if let found = firstFraction(in: item, at: path + "[\(i)]") { return found }
            }
        }
        return nil
    }

    /// The first key (in document order of the shape, then by name) that `shape` does not allow:
    /// the key, the object it is in ("chimes", "chimes.patterns.hour.notes.0[1]"; "" at the top)
    /// and the keys that object may hold. Values of another type are left to the typed reading
    /// (`PackManifest(document:)`).
    static func firstUnknown(
        in value: Any, shape: Shape, at path: String
    ) -> (key: String, object: String, known: [String])? {
        func child(_ key: String) -> String { path.isEmpty ? key : path + "." + key }
        switch (shape, value) {
        case (.object(let fields), let object as [String: Any]):
            let known = fields.map(\.0)
            if let key = object.keys.sorted().first(where: { !known.contains($0) }) { return (key, path, known) }
            for (key, inner) in fields {
                if let value = object[key], let found = firstUnknown(in: value, shape: inner, at: child(key)) {
                    return found
                }
            }
        case (.map(.value), _):
            break  // clip ids: any key, any value
        case (.map(let inner), let object as [String: Any]):
            for key in object.keys.sorted() {
                if let found = firstUnknown(in: object[key]!, shape: inner, at: child(key)) { return found }
            }
        case (.array(let inner), let items as [Any]):
            for (i, item) in items.enumerated() {
                if let found = firstUnknown(in: item, shape: inner, at: path + "[\(i)]") { return found }
            }
        default:
            break
        }
        return nil
    }
}
