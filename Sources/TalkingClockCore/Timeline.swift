/// The sample format of one continuous output stream.
public struct StreamFormat: Hashable, Sendable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Whole frames in `milliseconds` (rounded to nearest; negative allowed).
    public func frames(milliseconds: Int) -> Int {
        let product = milliseconds * sampleRate
        return product >= 0 ? (product + 500) / 1000 : -((-product + 500) / 1000)
    }

    public var description: String { "\(sampleRate) Hz, \(channels) channel\(channels == 1 ? "" : "s"), 16-bit" }
}

/// Pauses a sound pack designs into its announcements.
public struct Spacing: Hashable, Sendable, Codable {
    /// Silence between consecutive voice clips (0 for words cut from whole phrases).
    public var wordGapMs: Int
    /// Silence after a lead-in ("it's") before the time.
    public var leadInGapMs: Int
    /// Gap between the end of the chime and the first word; negative overlaps the bell's tail.
    public var chimeGapMs: Int
    /// Two voice clips with no gap between them overlap by this much (never more than either
    /// clip) and are added: with edges faded over this length in the pack, a crossfade of the
    /// clips' own sound, so a junction inside running speech has no dip or click (0: end to end).
    public var wordOverlapMs: Int

    public init(wordGapMs: Int = 0, leadInGapMs: Int = 0, chimeGapMs: Int = 0, wordOverlapMs: Int = 0) {
        self.wordGapMs = wordGapMs
        self.leadInGapMs = leadInGapMs
        self.chimeGapMs = chimeGapMs
        self.wordOverlapMs = wordOverlapMs
    }

    enum CodingKeys: String, CodingKey {
        case wordGapMs = "word_gap_ms"
        case leadInGapMs = "lead_in_gap_ms"
        case chimeGapMs = "chime_gap_ms"
        case wordOverlapMs = "word_overlap_ms"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        wordGapMs = try c.decodeIfPresent(Int.self, forKey: .wordGapMs) ?? 0
        leadInGapMs = try c.decodeIfPresent(Int.self, forKey: .leadInGapMs) ?? 0
        chimeGapMs = try c.decodeIfPresent(Int.self, forKey: .chimeGapMs) ?? 0
        wordOverlapMs = try c.decodeIfPresent(Int.self, forKey: .wordOverlapMs) ?? 0
    }
}

/// Whether a clip is a bell (mixed, may overlap) or a word (gets a completion callback).
public enum ClipRole: String, Sendable, Hashable, Codable {
    case chime
    case voice
}

/// One strike of a chime pattern, relative to the start of the pattern.
public struct ChimeNote: Hashable, Sendable {
    public var clip: String
    public var offsetMs: Int
    /// The strike that must land exactly on the boundary.
    public var isAnchor: Bool

    public init(clip: String, offsetMs: Int, isAnchor: Bool = false) {
        self.clip = clip
        self.offsetMs = offsetMs
        self.isAnchor = isAnchor
    }
}

/// A clip placed on the announcement's timeline.
public struct TimelineItem: Hashable, Sendable {
    public var clip: String
    /// First frame, relative to the start of the announcement.
    public var start: Int
    public var frames: Int
    public var role: ClipRole

    public init(clip: String, start: Int, frames: Int, role: ClipRole) {
        self.clip = clip
        self.start = start
        self.frames = frames
        self.role = role
    }

    /// One past the last frame.
    public var end: Int { start + frames }
}

/// An announcement as clips at frame positions: what the sequencer renders and plays.
public struct Timeline: Hashable, Sendable {
    public var items: [TimelineItem]
    /// The frame that must land on the boundary (the first sample unless a chime names another).
    public var anchorFrame: Int
    public var format: StreamFormat
    /// Linear gain of the bells while the voice speaks over them (1: bells ring on unchanged).
    public var bellGainUnderVoice: Float

    public init(items: [TimelineItem], anchorFrame: Int, format: StreamFormat, bellGainUnderVoice: Float = 1) {
        self.items = items
        self.anchorFrame = anchorFrame
        self.format = format
        self.bellGainUnderVoice = bellGainUnderVoice
    }

    /// Frames from the first to the last sample.
    public var totalFrames: Int { items.map(\.end).max() ?? 0 }

    public var voiceClips: [String] { items.filter { $0.role == .voice }.map(\.clip) }

    /// Places the chime notes, then the voice clips one after another with the pack's spacing: a
    /// gap between two clips, or where there is none, `wordOverlapMs` of overlap.
    ///
    /// - Parameters:
    ///   - leadInCount: how many of `voice` form the lead-in (followed by `leadInGapMs`).
    ///   - frameCount: the length in frames of each clip id.
    ///   - voiceAfterChimeMs: the voice starts this long after the last strike starts, or
    ///     `spacing.chimeGapMs` after the end of the last bell clip if that is sooner (nil: the
    ///     latter only).
    public static func compose(
        chime: [ChimeNote], voice: [String], leadInCount: Int = 0, spacing: Spacing, voiceAfterChimeMs: Int? = nil,
        format: StreamFormat, frameCount: (String) -> Int
    ) -> Timeline {
        var items: [TimelineItem] = []
        var anchor = 0
        var chimeEnd = 0
        var lastStrike = 0
        for note in chime {
            let start = format.frames(milliseconds: note.offsetMs)
            let item = TimelineItem(clip: note.clip, start: start, frames: frameCount(note.clip), role: .chime)
            items.append(item)
            chimeEnd = max(chimeEnd, item.end)
            lastStrike = max(lastStrike, start)
            if note.isAnchor { anchor = start }
        }
        // The voice comes in when the bells have rung out (plus `chimeGapMs`), or `voiceAfterChimeMs`
        // after the last strike if that is sooner.
        var cursor = 0
        if !chime.isEmpty {
            cursor = chimeEnd + format.frames(milliseconds: spacing.chimeGapMs)
            if let voiceAfterChimeMs { cursor = min(cursor, lastStrike + format.frames(milliseconds: voiceAfterChimeMs)) }
            cursor = max(0, cursor)
        }
        let overlap = max(0, format.frames(milliseconds: spacing.wordOverlapMs))
        var previous = 0
        for (index, clip) in voice.enumerated() {
            let frames = frameCount(clip)
            if index > 0 {
                let gap = max(0, format.frames(milliseconds: index == leadInCount ? spacing.leadInGapMs : spacing.wordGapMs))
                cursor += gap > 0 ? gap : -min(overlap, previous, frames)
            }
            previous = frames
            let item = TimelineItem(clip: clip, start: cursor, frames: frames, role: .voice)
            items.append(item)
            cursor = item.end
        }
        return Timeline(items: items, anchorFrame: anchor, format: format)
    }
}

extension Timeline {
    /// This timeline with the strikes that would have to start more than `preroll` frames before
    /// the anchor left out, and everything shifted so the first remaining item starts at 0.
    ///
    /// Used when a wake-up comes too late for a chime that starts before the boundary (the
    /// Westminster quarters before the hour): the anchor still lands on the boundary and no bell
    /// is cut off mid-ring; the earliest notes are simply not struck. Voice items are never dropped.
    public func droppingStrikes(before preroll: Int) -> (timeline: Timeline, dropped: Int) {
        let earliest = anchorFrame - max(0, preroll)
        guard let first = items.map(\.start).min(), first < earliest else { return (self, 0) }
        let kept = items.filter { $0.role == .voice || $0.start >= earliest }
        let shift = kept.map(\.start).min() ?? 0
        let moved = kept.map { TimelineItem(clip: $0.clip, start: $0.start - shift, frames: $0.frames, role: $0.role) }
        let fitted = Timeline(
            items: moved, anchorFrame: anchorFrame - shift, format: format, bellGainUnderVoice: bellGainUnderVoice)
        return (fitted, items.count - kept.count)
    }
}

/// How a pack lays out an announcement: its stream format, its spacing and the bells' level under
/// the voice. The one place a plan becomes a timeline, for a decoded pack (`SoundPack.timeline`)
/// and for the engine's view of it (`PackFacts`), which knows only the clips' lengths.
public struct PackLayout: Hashable, Sendable {
    public var format: StreamFormat
    public var spacing: Spacing
    public var bellGainUnderVoice: Float

    public init(format: StreamFormat, spacing: Spacing = Spacing(), bellGainUnderVoice: Float = 1) {
        self.format = format
        self.spacing = spacing
        self.bellGainUnderVoice = bellGainUnderVoice
    }

    /// The plan's clips laid out, each `frames(clip)` long (appended phrases after their pauses).
    public func timeline(for plan: AnnouncementPlan, frames: (String) -> Int) -> Timeline {
        var timeline = plan.timeline(spacing: spacing, format: format, frameCount: frames)
        timeline.bellGainUnderVoice = bellGainUnderVoice
        return timeline
    }
}
