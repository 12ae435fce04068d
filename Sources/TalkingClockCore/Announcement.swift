/// Which chime pattern sounds with an announcement.
public enum ChimeStyle: String, Sendable, Codable, CaseIterable {
    case none
    /// One strike of the pack's `chime` clip at the top of the hour, then the voice.
    case hour
    /// The Westminster Quarters at :15, :30, :45 and :00, then the hour bell struck 1-12 times;
    /// the first hour stroke lands on the boundary.
    case westminster
    /// Ship's bells: 1-8 strokes in pairs each half hour of a four-hour watch.
    case shipsBells = "ships-bells"

    /// Whether the built-in pattern rings at this minute of the hour (a pack that spells out a
    /// pattern of its own may differ; the daemon then finds nothing to ring and says so).
    public func rings(atMinute minute: Int) -> Bool {
        switch self {
        case .none: false
        case .hour: minute == 0
        case .westminster: minute % 15 == 0
        case .shipsBells: minute % 30 == 0
        }
    }
}

/// Everything that shapes an announcement, independent of the clock.
public struct AnnouncementStyle: Hashable, Sendable {
    public var phrase: PhraseStyle
    public var chime: ChimeStyle
    public var voice: Bool
    /// Minutes of the hour at which the voice speaks (the chime rings regardless).
    public var voiceMinutes: Set<Int>

    public static let everyQuarter: Set<Int> = [0, 15, 30, 45]

    public init(
        phrase: PhraseStyle = .standard, chime: ChimeStyle = .hour, voice: Bool = true,
        voiceMinutes: Set<Int> = AnnouncementStyle.everyQuarter
    ) {
        self.phrase = phrase
        self.chime = chime
        self.voice = voice
        self.voiceMinutes = voiceMinutes
    }

    /// Whether the voice speaks at this minute of the hour. Minutes that are not quarters (a
    /// one-shot `say` at 10:07) always speak, unless the voice is off altogether.
    public func speaks(atMinute minute: Int) -> Bool {
        voice && (minute % 15 != 0 || voiceMinutes.contains(minute))
    }

    public static let standard = AnnouncementStyle()
}

/// What to say and ring for one time of day, before any audio is involved.
public struct AnnouncementPlan: Hashable, Sendable {
    public var hour: Int
    public var minute: Int
    public var phrase: Phrase
    public var chime: [ChimeNote]
    /// Clip ids of the voice, in order (after vocabulary resolution).
    public var voiceClips: [String]
    public var leadInCount: Int
    /// The voice starts this long after the last strike starts (nil: the pack's `chime_gap_ms`
    /// after the end of the chime).
    public var voiceAfterChimeMs: Int?
    /// Phrases said after the time, each after a pause (a date, a value): see `appending(_:…)`.
    public var appended: [AppendedPhrase] = []

    public init(
        hour: Int, minute: Int, phrase: Phrase, chime: [ChimeNote], voiceClips: [String], leadInCount: Int,
        voiceAfterChimeMs: Int? = nil
    ) {
        self.hour = hour
        self.minute = minute
        self.phrase = phrase
        self.chime = chime
        self.voiceClips = voiceClips
        self.leadInCount = leadInCount
        self.voiceAfterChimeMs = voiceAfterChimeMs
    }

    /// Milliseconds from the first strike to the anchor (0 when the announcement starts on the
    /// boundary; about 16 s for the Westminster hour with the default timing).
    public var anchorOffsetMs: Int { chime.first(where: \.isAnchor)?.offsetMs ?? 0 }

    /// All clip ids in playing order: chime notes first, then the voice, then the appended phrases.
    public var clips: [String] { chime.map(\.clip) + voiceClips + appended.flatMap(\.clips) }

    /// What the announcement says, written: the time's text, then each appended phrase's as a
    /// sentence of its own ("three PM. Saturday, November twenty-eighth"); the time is left out
    /// when the voice does not speak it.
    public var text: String {
        let said = (voiceClips.isEmpty ? [] : [phrase.text]) + appended.map(\.phrase.text)
        return said.joined(separator: ". ")
    }

    /// Plans the announcement of `hour:minute` with the pack's clip ids.
    ///
    /// - Parameter pattern: the pack's pattern for `style.chime` (nil: no chime).
    public static func make(
        hour: Int, minute: Int, style: AnnouncementStyle, pattern: ChimePattern?, available: Set<String>
    ) throws(VocabularyError) -> AnnouncementPlan {
        let phrase = Phrase.forTime(hour: hour, minute: minute, style: style.phrase)
        let chime = style.chime == .none ? [] : pattern?.ring(hour: hour, minute: minute) ?? []
        if let missing = chime.first(where: { !available.contains($0.clip) }) {
            throw VocabularyError(word: missing.clip, phrase: "the \(style.chime.rawValue) chime", tried: [missing.clip])
        }
        let speaks = style.speaks(atMinute: minute)
        let said = speaks ? try Vocabulary.cover(phrase, available: available) : (clips: [], leadInClips: 0)
        let voice = said.clips
        let leadIn = said.leadInClips
        return AnnouncementPlan(
            hour: hour, minute: minute, phrase: phrase, chime: chime, voiceClips: voice, leadInCount: leadIn,
            voiceAfterChimeMs: chime.isEmpty ? nil : pattern?.voiceAfterMs)
    }
}

/// A phrase said after an announcement's time: its words, the clips that say them and the pause
/// before it.
public struct AppendedPhrase: Hashable, Sendable {
    public var phrase: Phrase
    /// The clip ids that say `phrase` (after vocabulary resolution).
    public var clips: [String]
    /// Silence before the phrase, in milliseconds (after the time, or after the phrase before it).
    public var gapMs: Int

    public init(phrase: Phrase, clips: [String], gapMs: Int) {
        self.phrase = phrase
        self.clips = clips
        self.gapMs = gapMs
    }
}

extension AnnouncementPlan {
    /// The pause before an appended phrase: half a second, a break between sentences.
    public static let phraseGapMs = 500

    /// This plan with `phrase` (a date, a value: `Phrase.forDate`, `Phrase.forValue`) said after
    /// everything it says, `gapMs` of silence before it. The daemon says the date after the first
    /// announcement of a day this way; the timeline (`timeline(spacing:format:frameCount:)`) puts
    /// the phrase after the time, or after the chime when the voice does not speak the time.
    ///
    /// - Throws: the first word of `phrase` the clips `available` cannot say.
    public func appending(_ phrase: Phrase, available: Set<String>, gapMs: Int = phraseGapMs) throws(VocabularyError)
        -> AnnouncementPlan
    {
        var plan = self
        let clips = try Vocabulary.cover(phrase, available: available).clips
        plan.appended.append(AppendedPhrase(phrase: phrase, clips: clips, gapMs: gapMs))
        return plan
    }

    /// A plan that says `phrases` only, one after another with `gapMs` between them, no time and
    /// no chime (`say --date`, `say --value`). `hour`/`minute` are the time of day it is said at.
    ///
    /// - Throws: the first word of a phrase the clips `available` cannot say.
    public static func saying(
        _ phrases: [Phrase], hour: Int, minute: Int, available: Set<String>, gapMs: Int = phraseGapMs
    ) throws(VocabularyError) -> AnnouncementPlan {
        precondition(!phrases.isEmpty, "a plan says at least one phrase")
        let first = try Vocabulary.cover(phrases[0], available: available)
        var plan = AnnouncementPlan(
            hour: hour, minute: minute, phrase: phrases[0], chime: [], voiceClips: first.clips, leadInCount: 0)
        for phrase in phrases.dropFirst() {
            plan = try plan.appending(phrase, available: available, gapMs: gapMs)
        }
        return plan
    }

    /// The plan laid out on a timeline: `Timeline.compose` for the chime and the time, then each
    /// appended phrase after its pause (`gapMs` in place of the pack's word gap).
    public func timeline(spacing: Spacing, format: StreamFormat, frameCount: (String) -> Int) -> Timeline {
        var timeline = Timeline.compose(
            chime: chime, voice: voiceClips + appended.flatMap(\.clips), leadInCount: leadInCount, spacing: spacing,
            voiceAfterChimeMs: voiceAfterChimeMs, format: format, frameCount: frameCount)
        guard !appended.isEmpty else { return timeline }
        let voiceItems = timeline.items.indices.filter { timeline.items[$0].role == .voice }
        let wordGap = max(0, format.frames(milliseconds: spacing.wordGapMs))
        var index = voiceClips.count
        var shift = 0
        for phrase in appended {
            // The first clip said follows the chime as the time would; any later phrase follows
            // the one before it after its own pause instead of the word gap `compose` left.
            if index > 0 { shift += max(0, format.frames(milliseconds: phrase.gapMs) - wordGap) }
            for k in index..<index + phrase.clips.count {
                timeline.items[voiceItems[k]].start += shift
            }
            index += phrase.clips.count
        }
        return timeline
    }
}
