/// Which chime pattern sounds with an announcement.
public enum ChimeStyle: String, Sendable, Codable, CaseIterable {
    case none
    /// One strike of the pack's `chime` clip at the top of the hour, then the voice.
    case hour
}

/// Everything that shapes an announcement, independent of the clock.
public struct AnnouncementStyle: Hashable, Sendable {
    public var phrase: PhraseStyle
    public var chime: ChimeStyle
    public var voice: Bool

    public init(phrase: PhraseStyle = .standard, chime: ChimeStyle = .hour, voice: Bool = true) {
        self.phrase = phrase
        self.chime = chime
        self.voice = voice
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

    public init(hour: Int, minute: Int, phrase: Phrase, chime: [ChimeNote], voiceClips: [String], leadInCount: Int) {
        self.hour = hour
        self.minute = minute
        self.phrase = phrase
        self.chime = chime
        self.voiceClips = voiceClips
        self.leadInCount = leadInCount
    }

    /// All clip ids in playing order: chime notes first, then the voice.
    public var clips: [String] { chime.map(\.clip) + voiceClips }

    /// Plans the announcement of `hour:minute` with the pack's clip ids.
    public static func make(
        hour: Int, minute: Int, style: AnnouncementStyle, available: Set<String>
    ) throws(VocabularyError) -> AnnouncementPlan {
        let phrase = Phrase.forTime(hour: hour, minute: minute, style: style.phrase)
        var chime: [ChimeNote] = []
        if style.chime == .hour && minute == 0 {
            guard available.contains("chime") else {
                throw VocabularyError(word: "chime", phrase: "the top-of-hour chime", tried: ["chime"])
            }
            chime = [ChimeNote(clip: "chime", offsetMs: 0, isAnchor: true)]
        }
        let voice = style.voice ? try Vocabulary.clips(for: phrase, available: available) : []
        let leadIn = style.voice && style.phrase.leadIn != .none ? 1 : 0
        return AnnouncementPlan(hour: hour, minute: minute, phrase: phrase, chime: chime, voiceClips: voice, leadInCount: leadIn)
    }
}
