import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A chime as data: bell strikes at times relative to the start of the chime, which strike is the
/// anchor that lands on the boundary, and where the voice comes in.
///
/// Patterns are keyed by the minute of the hour they ring at. Fixed notes (the Westminster
/// changes) are listed per minute; counted strikes (the hour bell, ship's bells) are a rule that
/// expands to 1-12 or 1-8 strokes depending on the time. The built-in patterns are made by
/// ``westminster(quarterBells:hourBell:timing:)``, ``shipsBells(bell:timing:)`` and
/// ``singleStrike(bell:timing:)`` from a pack's bells and timing; a pack can also spell out a pattern
/// of its own in `pack.json` (same shape, see docs/packs.md).
public struct ChimePattern: Hashable, Sendable, Codable {
    /// One fixed strike.
    public struct Note: Hashable, Sendable, Codable {
        /// Clip id of the bell.
        public var bell: String
        /// Start, in milliseconds from the start of this minute's notes.
        public var atMs: Int
        /// This strike lands on the boundary (at most one per minute; default: the first note,
        /// unless the strikes carry the anchor).
        public var anchor: Bool?

        public init(bell: String, atMs: Int, anchor: Bool? = nil) {
            self.bell = bell
            self.atMs = atMs
            self.anchor = anchor
        }

        enum CodingKeys: String, CodingKey {
            case bell
            case atMs = "at_ms"
            case anchor
        }
    }

    /// How many strokes a counted strike rule gives.
    public enum Count: String, Hashable, Sendable, Codable, CaseIterable {
        /// The hour on a 12-hour count: 1-12 (midnight and noon are 12).
        case hour
        /// Ship's bells: 1 bell at 0:30 … 8 bells at 4:00, 8:00 and 12:00, over again each watch.
        case shipsBells = "ships-bells"

        public func strokes(hour: Int, minute: Int) -> Int {
            switch self {
            case .hour:
                let h = hour % 12
                return h == 0 ? 12 : h
            case .shipsBells:
                let halfHours = (hour * 60 + minute) / 30
                return (halfHours + 7) % 8 + 1
            }
        }
    }

    /// A counted strike rule: `count` strokes of one bell.
    public struct Strikes: Hashable, Sendable, Codable {
        public var bell: String
        public var count: Count
        /// Minutes of the hour at which the strokes sound.
        public var minutes: [Int]
        /// First stroke, in ms after the last fixed note of the same minute starts (or at 0 when
        /// that minute has no fixed notes).
        public var afterMs: Int
        /// Between strokes (within a pair, when `pairGapMs` is set).
        public var intervalMs: Int
        /// When set, strokes come in pairs (ship's bells) with this much more between pairs; an odd
        /// stroke comes last, alone.
        public var pairGapMs: Int?
        /// The first stroke lands on the boundary (Westminster: the hour bell marks the hour, so
        /// the quarters before it start early).
        public var anchor: Bool

        public init(
            bell: String, count: Count, minutes: [Int], afterMs: Int = 0, intervalMs: Int, pairGapMs: Int? = nil,
            anchor: Bool = true
        ) {
            self.bell = bell
            self.count = count
            self.minutes = minutes
            self.afterMs = afterMs
            self.intervalMs = intervalMs
            self.pairGapMs = pairGapMs
            self.anchor = anchor
        }

        enum CodingKeys: String, CodingKey {
            case bell, count, minutes
            case afterMs = "after_ms"
            case intervalMs = "interval_ms"
            case pairGapMs = "pair_gap_ms"
            case anchor
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            bell = try c.decode(String.self, forKey: .bell)
            count = try c.decode(Count.self, forKey: .count)
            minutes = try c.decode([Int].self, forKey: .minutes)
            afterMs = try c.decodeIfPresent(Int.self, forKey: .afterMs) ?? 0
            intervalMs = try c.decode(Int.self, forKey: .intervalMs)
            pairGapMs = try c.decodeIfPresent(Int.self, forKey: .pairGapMs)
            anchor = try c.decodeIfPresent(Bool.self, forKey: .anchor) ?? true
        }

        /// Offsets of the strokes from the first one.
        public func offsets(hour: Int, minute: Int) -> [Int] {
            let n = count.strokes(hour: hour, minute: minute)
            return (0..<n).map { k in
                guard let pairGapMs else { return k * intervalMs }
                return (k / 2) * (2 * intervalMs + pairGapMs) + (k % 2) * intervalMs
            }
        }
    }

    /// Fixed notes by minute of the hour ("0", "15", "30", "45" in JSON).
    public var notes: [Int: [Note]]
    public var strikes: Strikes?
    /// The voice starts this long after the last strike starts. Nil: after the last bell clip
    /// ends, plus the pack's `chime_gap_ms` (the placement of packs made before patterns).
    public var voiceAfterMs: Int?

    public init(notes: [Int: [Note]], strikes: Strikes? = nil, voiceAfterMs: Int? = nil) {
        self.notes = notes
        self.strikes = strikes
        self.voiceAfterMs = voiceAfterMs
    }

    enum CodingKeys: String, CodingKey {
        case notes, strikes
        case voiceAfterMs = "voice_after_ms"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let byMinute = try c.decodeIfPresent([String: [Note]].self, forKey: .notes) ?? [:]
        var notes: [Int: [Note]] = [:]
        for (key, value) in byMinute {
            guard let minute = Int(key), (0..<60).contains(minute) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .notes, in: c, debugDescription: "\"\(key)\" is not a minute of the hour (0-59)")
            }
            notes[minute] = value
        }
        self.notes = notes
        strikes = try c.decodeIfPresent(Strikes.self, forKey: .strikes)
        voiceAfterMs = try c.decodeIfPresent(Int.self, forKey: .voiceAfterMs)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Dictionary(uniqueKeysWithValues: notes.map { (String($0.key), $0.value) }), forKey: .notes)
        try c.encodeIfPresent(strikes, forKey: .strikes)
        try c.encodeIfPresent(voiceAfterMs, forKey: .voiceAfterMs)
    }

    /// Whether anything rings at this minute of the hour.
    public func rings(atMinute minute: Int) -> Bool {
        !(notes[minute] ?? []).isEmpty || (strikes?.minutes.contains(minute) ?? false)
    }

    /// Every bell clip the pattern can use.
    public var bells: Set<String> {
        var all = Set(notes.values.joined().map(\.bell))
        if let strikes { all.insert(strikes.bell) }
        return all
    }

    /// The strikes at `hour:minute`, in time order, shifted so the earliest starts at 0, with
    /// exactly one anchor (the first hour stroke, a note marked `anchor`, or the first note).
    public func ring(hour: Int, minute: Int) -> [ChimeNote] {
        let fixed = (notes[minute] ?? []).sorted { $0.atMs < $1.atMs }
        var result = fixed.map { ChimeNote(clip: $0.bell, offsetMs: $0.atMs, isAnchor: $0.anchor ?? false) }
        if let strikes, strikes.minutes.contains(minute) {
            let first = (fixed.last?.atMs ?? 0) + (fixed.isEmpty ? 0 : strikes.afterMs)
            for (k, offset) in strikes.offsets(hour: hour, minute: minute).enumerated() {
                result.append(ChimeNote(clip: strikes.bell, offsetMs: first + offset, isAnchor: strikes.anchor && k == 0))
            }
            if strikes.anchor {
                for i in result.indices where i < fixed.count { result[i].isAnchor = false }
            }
        }
        guard let start = result.map(\.offsetMs).min() else { return [] }
        for i in result.indices { result[i].offsetMs -= start }
        result.sort { $0.offsetMs < $1.offsetMs }
        if let firstAnchor = result.firstIndex(where: \.isAnchor) {
            for i in result.indices where i != firstAnchor { result[i].isAnchor = false }
        } else {
            result[0].isAnchor = true
        }
        return result
    }
}

/// The tempo of the built-in patterns, which a pack may set (`"chimes"` in `pack.json`).
public struct ChimeTiming: Hashable, Sendable, Codable {
    /// One crotchet of the Westminster quarters; a change is three crotchets and a minim.
    public var beatMs: Int
    /// From the last quarter note to the first hour stroke.
    public var hourAfterMs: Int
    /// Between hour strokes.
    public var strikeIntervalMs: Int
    /// Between the two strokes of a ship's-bells pair, and the extra pause between pairs.
    public var shipStrikeMs: Int
    public var shipPairGapMs: Int
    /// From the last strike to the voice; nil keeps the pack's `chime_gap_ms` placement.
    public var voiceAfterMs: Int?
    /// How many dB the ringing bells are lowered while the voice speaks over them (0: not at all).
    public var duckDb: Int

    public init(
        beatMs: Int = 750, hourAfterMs: Int = 3000, strikeIntervalMs: Int = 2500, shipStrikeMs: Int = 550,
        shipPairGapMs: Int = 900, voiceAfterMs: Int? = nil, duckDb: Int = 0
    ) {
        self.beatMs = beatMs
        self.hourAfterMs = hourAfterMs
        self.strikeIntervalMs = strikeIntervalMs
        self.shipStrikeMs = shipStrikeMs
        self.shipPairGapMs = shipPairGapMs
        self.voiceAfterMs = voiceAfterMs
        self.duckDb = duckDb
    }

    /// `duckDb` as a linear gain.
    public var bellGainUnderVoice: Float { duckDb <= 0 ? 1 : Float(pow(10, -Double(duckDb) / 20)) }

    enum CodingKeys: String, CodingKey {
        case duckDb = "duck_db"
        case beatMs = "beat_ms"
        case hourAfterMs = "hour_after_ms"
        case strikeIntervalMs = "strike_interval_ms"
        case shipStrikeMs = "ship_strike_ms"
        case shipPairGapMs = "ship_pair_gap_ms"
        case voiceAfterMs = "voice_after_ms"
    }

    public init(from decoder: any Decoder) throws {
        let d = ChimeTiming()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        beatMs = try c.decodeIfPresent(Int.self, forKey: .beatMs) ?? d.beatMs
        hourAfterMs = try c.decodeIfPresent(Int.self, forKey: .hourAfterMs) ?? d.hourAfterMs
        strikeIntervalMs = try c.decodeIfPresent(Int.self, forKey: .strikeIntervalMs) ?? d.strikeIntervalMs
        shipStrikeMs = try c.decodeIfPresent(Int.self, forKey: .shipStrikeMs) ?? d.shipStrikeMs
        shipPairGapMs = try c.decodeIfPresent(Int.self, forKey: .shipPairGapMs) ?? d.shipPairGapMs
        voiceAfterMs = try c.decodeIfPresent(Int.self, forKey: .voiceAfterMs)
        duckDb = try c.decodeIfPresent(Int.self, forKey: .duckDb) ?? 0
        guard (0...60).contains(duckDb) else {
            throw DecodingError.dataCorruptedError(
                forKey: .duckDb, in: c, debugDescription: "\(duckDb) is not a number of dB from 0 to 60")
        }
    }
}

extension ChimePattern {
    /// The five changes of the Westminster Quarters as indices into the quarter bells
    /// (0 = G♯4, 1 = F♯4, 2 = E4, 3 = B3).
    public static let westminsterChanges: [[Int]] = [
        [0, 1, 2, 3],  // 1: G♯ F♯ E B
        [2, 0, 1, 3],  // 2: E G♯ F♯ B
        [2, 1, 0, 2],  // 3: E F♯ G♯ E
        [0, 2, 1, 3],  // 4: G♯ E F♯ B
        [3, 1, 0, 2],  // 5: B F♯ G♯ E
    ]

    /// Which changes ring at each quarter (1-based, as the changes are usually numbered).
    public static let westminsterSequence: [Int: [Int]] = [15: [1], 30: [2, 3], 45: [4, 5, 1], 0: [2, 3, 4, 5]]

    /// The Westminster Quarters on four quarter bells (highest first), then at :00 the hour bell
    /// on a 12-hour count with its first stroke on the boundary.
    public static func westminster(quarterBells: [String], hourBell: String, timing: ChimeTiming) -> ChimePattern {
        precondition(quarterBells.count == 4, "Westminster needs four quarter bells")
        var notes: [Int: [Note]] = [:]
        for (minute, changes) in westminsterSequence {
            var list: [Note] = []
            for (i, change) in changes.enumerated() {
                // Three crotchets and a minim: a change spans five beats.
                let start = i * 5 * timing.beatMs
                for (beat, bell) in westminsterChanges[change - 1].enumerated() {
                    list.append(Note(bell: quarterBells[bell], atMs: start + beat * timing.beatMs))
                }
            }
            notes[minute] = list
        }
        let strikes = Strikes(
            bell: hourBell, count: .hour, minutes: [0], afterMs: timing.hourAfterMs, intervalMs: timing.strikeIntervalMs)
        return ChimePattern(notes: notes, strikes: strikes, voiceAfterMs: timing.voiceAfterMs)
    }

    /// Ship's bells: one more stroke each half hour of a four-hour watch, struck in pairs.
    public static func shipsBells(bell: String, timing: ChimeTiming) -> ChimePattern {
        let strikes = Strikes(
            bell: bell, count: .shipsBells, minutes: [0, 30], intervalMs: timing.shipStrikeMs,
            pairGapMs: timing.shipPairGapMs)
        return ChimePattern(notes: [:], strikes: strikes, voiceAfterMs: timing.voiceAfterMs)
    }

    /// One strike at the top of the hour, on the boundary (the original design).
    public static func singleStrike(bell: String, timing: ChimeTiming) -> ChimePattern {
        ChimePattern(notes: [0: [Note(bell: bell, atMs: 0, anchor: true)]], voiceAfterMs: timing.voiceAfterMs)
    }
}

extension ChimePattern {
    /// Most fixed notes one minute may ring. Each note mixes a whole bell clip (up to 30 s) into
    /// the announcement, so the render time grows with the notes: 20,000 in one minute took 17 s
    /// and 4,000 made the voice 2.15 s late. The Westminster hour rings 16 notes and 12 strokes.
    public static let maximumNotesPerMinute = 64
    /// Most fixed notes in one pattern, all minutes together.
    public static let maximumNotes = 256

    /// The first thing in this pattern that is over a limit or contradicts itself: the key
    /// relative to the pattern as written in `pack.json` ("notes.0", "strikes.minutes",
    /// "notes.0[3].anchor") and the rest of the sentence. Nil when it is within its limits.
    ///
    /// Checked when the pack is read (with the timing ranges of `PackManifest`), so a pack that
    /// would make every hour fail or come late is refused by `check`, `say`, `run` and `reload`.
    public func limitProblem() -> (key: String, problem: String)? {
        let minutes = notes.keys.sorted()
        for minute in minutes where notes[minute]!.count > Self.maximumNotesPerMinute {
            return (
                "notes.\(minute)",
                "has \(notes[minute]!.count) notes; one minute may ring at most \(Self.maximumNotesPerMinute) (each note mixes a whole bell clip into the announcement, so more would make it late)"
            )
        }
        let total = notes.values.reduce(0) { $0 + $1.count }
        if total > Self.maximumNotes {
            return ("notes", "has \(total) notes in all; a pattern may have at most \(Self.maximumNotes)")
        }
        if let strikes {
            if let bad = strikes.minutes.first(where: { !(0..<60).contains($0) }) {
                return ("strikes.minutes", "holds \(bad), which is not a minute of the hour; use 0 to 59")
            }
            if Set(strikes.minutes).count != strikes.minutes.count {
                return ("strikes.minutes", "names a minute twice; list each minute once")
            }
        }
        // One strike lands on the boundary: two notes both marked, or a marked note in a minute
        // whose strikes carry the anchor, would leave one of them silently ignored.
        for minute in minutes {
            var first: Int?
            for (i, note) in notes[minute]!.enumerated() where note.anchor == true {
                if let first {
                    return (
                        "notes.\(minute)[\(i)].anchor",
                        "is true, but notes.\(minute)[\(first)] is already the anchor of minute \(minute); one strike per minute lands on the boundary, so mark only one"
                    )
                }
                if let strikes, strikes.anchor, strikes.minutes.contains(minute) {
                    return (
                        "notes.\(minute)[\(i)].anchor",
                        "is true, but the strikes ring at minute \(minute) and their first stroke is the anchor (\"anchor\" is true unless the strikes set it to false); set \"anchor\": false in \"strikes\", or remove this one"
                    )
                }
                first = i
            }
        }
        return nil
    }
}
