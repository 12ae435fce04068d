import FoundationEssentials
import JSON
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the daemon is doing: the object `status json` answers and MQTT retains on
/// `<topic>/<room>/state`. Absent values are `null`, so every report has the same keys.
public struct StatusReport: Codable, Equatable, Sendable {
    public struct Next: Codable, Equatable, Sendable {
        /// RFC 3339 local time of the boundary armed.
        public var at: String
        public var text: String
        public init(at: String, text: String) {
            self.at = at
            self.text = text
        }
    }

    public struct Last: Codable, Equatable, Sendable {
        /// "spoke", "interrupted", "cut: stale", "skipped: <reason>", "failed: <reason>".
        public var result: String
        public var text: String
        /// nil for an on-demand `say`.
        public var boundary: String?
        public var onsetErrorMs: Double?

        enum CodingKeys: String, CodingKey {
            case result, text, boundary
            case onsetErrorMs = "onset_error_ms"
        }

        public init(result: String, text: String, boundary: String?, onsetErrorMs: Double?) {
            self.result = result
            self.text = text
            self.boundary = boundary
            self.onsetErrorMs = ReportJSON.milliseconds(onsetErrorMs)
        }

        /// Every key always present (`null` where it does not apply): a Home Assistant template
        /// reading `last.onset_error_ms` after a `say` must find it.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(result, forKey: .result)
            try c.encode(text, forKey: .text)
            try c.encode(boundary, forKey: .boundary)
            try c.encode(onsetErrorMs, forKey: .onsetErrorMs)
        }
    }

    public var driver: String
    public var next: Next?
    public var muted: Bool
    /// The mute in words ("unmuted", "muted until 07:00").
    public var mute: String
    public var skipPending: Bool
    public var stateWarning: String?
    /// The quiet-hours rule in effect now, in words.
    public var quiet: String?
    public var last: Last?
    public var playing: Bool
    public var device: String
    public var pack: String
    public var zone: String
    /// The chime style in effect (`none`, `hour`, `westminster`, `ships-bells`).
    public var chime: String
    /// The output volume in percent (before any quiet-hours lowering).
    public var volume: Int
    /// RFC 3339 local time when a timed mute ends; null when not muted for a time.
    /// Home Assistant's "Mute for" control and state attributes read it.
    public var muteUntil: String?
    /// The courtesy decision at the last boundary ("speak", "chime-only: call (Zoom, phone)",
    /// "skip: do-not-disturb (gnome-show-banners)"); null before the first.
    public var courtesy: String?
    /// The daemon's clock: "real", or the demo's ("offset +600 s", "simulated from 1782900000 at
    /// 20x"), so a demo is never taken for the real clock. Null from a daemon too old to say.
    public var clock: String?
    /// The next reminder (its instant and words); null when none is due again.
    public var nextReminder: Next?
    /// The next time announcement (a boundary of the rhythm), whatever `next` is.
    public var nextTime: Next?
    /// The away switch is on (Home Assistant's "Away").
    public var awaySwitch: Bool
    /// Why reminders pause now ("on (the switch)", "2026-08-01 to 2026-08-14 (the clock silent
    /// too)"); null when they do not.
    public var away: String?
    /// The volume now, after the volume curve and quiet hours (percent).
    public var volumeNow: Int?

    enum CodingKeys: String, CodingKey {
        case driver, next, muted, mute, quiet, last, playing, device, pack, zone, chime, volume, courtesy, clock, away
        case skipPending = "skip_pending"
        case stateWarning = "state_warning"
        case muteUntil = "mute_until"
        case nextReminder = "next_reminder"
        case nextTime = "next_time"
        case awaySwitch = "away_switch"
        case volumeNow = "volume_now"
    }

    public init(
        driver: String, next: Next?, muted: Bool, mute: String, skipPending: Bool, stateWarning: String?,
        quiet: String?, last: Last?, playing: Bool, device: String, pack: String, zone: String,
        chime: String, volume: Int, muteUntil: String? = nil, courtesy: String? = nil, clock: String? = "real",
        nextReminder: Next? = nil, nextTime: Next? = nil, awaySwitch: Bool = false, away: String? = nil, volumeNow: Int? = nil
    ) {
        self.clock = clock
        self.nextReminder = nextReminder
        self.nextTime = nextTime
        self.awaySwitch = awaySwitch
        self.away = away
        self.volumeNow = volumeNow
        self.muteUntil = muteUntil
        self.courtesy = courtesy
        self.driver = driver
        self.next = next
        self.muted = muted
        self.mute = mute
        self.skipPending = skipPending
        self.stateWarning = stateWarning
        self.quiet = quiet
        self.last = last
        self.playing = playing
        self.device = device
        self.pack = pack
        self.zone = zone
        self.chime = chime
        self.volume = volume
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(driver, forKey: .driver)
        try c.encode(next, forKey: .next)
        try c.encode(muted, forKey: .muted)
        try c.encode(mute, forKey: .mute)
        try c.encode(skipPending, forKey: .skipPending)
        try c.encode(stateWarning, forKey: .stateWarning)
        try c.encode(quiet, forKey: .quiet)
        try c.encode(last, forKey: .last)
        try c.encode(playing, forKey: .playing)
        try c.encode(device, forKey: .device)
        try c.encode(pack, forKey: .pack)
        try c.encode(zone, forKey: .zone)
        try c.encode(chime, forKey: .chime)
        try c.encode(volume, forKey: .volume)
        // Every key always present, null where unknown: one shape for every reader.
        try c.encode(muteUntil, forKey: .muteUntil)
        try c.encode(courtesy, forKey: .courtesy)
        try c.encode(clock, forKey: .clock)
        try c.encode(nextReminder, forKey: .nextReminder)
        try c.encode(nextTime, forKey: .nextTime)
        try c.encode(awaySwitch, forKey: .awaySwitch)
        try c.encode(away, forKey: .away)
        try c.encode(volumeNow, forKey: .volumeNow)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        driver = try c.decode(String.self, forKey: .driver)
        next = try c.decodeIfPresent(Next.self, forKey: .next)
        muted = try c.decode(Bool.self, forKey: .muted)
        mute = try c.decode(String.self, forKey: .mute)
        skipPending = try c.decode(Bool.self, forKey: .skipPending)
        stateWarning = try c.decodeIfPresent(String.self, forKey: .stateWarning)
        quiet = try c.decodeIfPresent(String.self, forKey: .quiet)
        last = try c.decodeIfPresent(Last.self, forKey: .last)
        playing = try c.decode(Bool.self, forKey: .playing)
        device = try c.decode(String.self, forKey: .device)
        pack = try c.decode(String.self, forKey: .pack)
        zone = try c.decode(String.self, forKey: .zone)
        chime = try c.decode(String.self, forKey: .chime)
        volume = try c.decode(Int.self, forKey: .volume)
        muteUntil = try c.decodeIfPresent(String.self, forKey: .muteUntil)
        courtesy = try c.decodeIfPresent(String.self, forKey: .courtesy)
        clock = try c.decodeIfPresent(String.self, forKey: .clock)
        // A daemon from before reminders and away says none of these.
        nextReminder = try c.decodeIfPresent(Next.self, forKey: .nextReminder)
        nextTime = try c.decodeIfPresent(Next.self, forKey: .nextTime)
        awaySwitch = try c.decodeIfPresent(Bool.self, forKey: .awaySwitch) ?? false
        away = try c.decodeIfPresent(String.self, forKey: .away)
        volumeNow = try c.decodeIfPresent(Int.self, forKey: .volumeNow)
    }

    public var json: String { ReportJSON.encode(self) }

    /// A state as MQTT retains it (`status json`); nil if it is not one.
    public static func decode(_ json: String) -> StatusReport? {
        try? JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
    }
}

/// A room on the broker, as `talking-clock rooms --json` lists it: its retained availability and state.
public struct RoomReport: Codable, Equatable, Sendable {
    public var room: String
    /// The retained `availability` says `online`.
    public var online: Bool
    /// The retained `state` (nil if none, or not a state object).
    public var state: StatusReport?

    public init(room: String, online: Bool, state: StatusReport?) {
        self.room = room
        self.online = online
        self.state = state
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(room, forKey: .room)
        try c.encode(online, forKey: .online)
        try c.encode(state, forKey: .state)
    }
}

/// One decision about an announcement (a boundary, or an on-demand `say`): published on
/// `<topic>/<room>/event`. Every key is present; those that do not apply are `null`.
public struct AnnouncementEvent: Codable, Equatable, Sendable {
    /// `cut`: started, then cut (a boundary due, a mute, the clock moved past its boundary).
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case spoke, skipped, cut, failed
    }

    public var event: Kind
    /// RFC 3339 local time of the boundary; nil for `say`.
    public var boundary: String?
    /// The words spoken (or that would have been).
    public var text: String?
    /// Why it was skipped or failed (the scheduler's reason, or the error sentence).
    public var reason: String?
    /// Where the first sample of the anchor landed against the boundary (spoke only).
    public var onsetErrorMs: Double?

    enum CodingKeys: String, CodingKey {
        case event, boundary, text, reason
        case onsetErrorMs = "onset_error_ms"
        /// The same as `event`, under the key Home Assistant's MQTT `event` entity reads.
        case eventType = "event_type"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        event = try c.decode(Kind.self, forKey: .event)
        boundary = try c.decodeIfPresent(String.self, forKey: .boundary)
        text = try c.decodeIfPresent(String.self, forKey: .text)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        onsetErrorMs = try c.decodeIfPresent(Double.self, forKey: .onsetErrorMs)
    }

    public init(_ event: Kind, boundary: String?, text: String? = nil, reason: String? = nil, onsetErrorMs: Double? = nil) {
        self.event = event
        self.boundary = boundary
        self.text = text
        self.reason = reason
        self.onsetErrorMs = ReportJSON.milliseconds(onsetErrorMs)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(event, forKey: .event)
        try c.encode(event, forKey: .eventType)
        try c.encode(boundary, forKey: .boundary)
        try c.encode(text, forKey: .text)
        try c.encode(reason, forKey: .reason)
        try c.encode(onsetErrorMs, forKey: .onsetErrorMs)
    }

    public var json: String { ReportJSON.encode(self) }
}

/// One boundary as `schedule --json` lists it: the decision, its words and clips. Encoded with
/// `ReportJSON` (sorted keys); `reason` and `volume` are left out when they do not apply.
public struct ScheduleEntryReport: Codable, Equatable, Sendable {
    /// RFC 3339 local time of the boundary.
    public var at: String
    /// The same instant in UTC (`…Z`).
    public var utc: String
    /// "speak", "chime-only" or "skip".
    public var decision: String
    /// Why it is skipped, chime-only or lowered (a `SkipReason`, "quiet", "voice-off", "voice-at").
    public var reason: String?
    /// Percent; nil when skipped.
    public var volume: Int?
    public var language: String
    public var text: String
    public var clips: [String]
    /// The chime style rung ("none" when no strike).
    public var chime: String
    public var strikes: Int
    public var anchorOffsetMs: Int
    /// With reminders in the config: "time", "reminder" or "time+reminder" (left out otherwise:
    /// every instant is the time).
    public var kind: String?
    /// With reminders in the config: the words of each reminder said at this instant.
    public var reminders: [String]?

    enum CodingKeys: String, CodingKey {
        case at, utc, decision, reason, volume, language, text, clips, chime, strikes, kind, reminders
        case anchorOffsetMs = "anchor_offset_ms"
    }

    public init(
        at: String, utc: String, decision: String, reason: String?, volume: Int?, language: String, text: String,
        clips: [String], chime: String, strikes: Int, anchorOffsetMs: Int, kind: String? = nil, reminders: [String]? = nil
    ) {
        self.kind = kind
        self.reminders = reminders
        self.at = at
        self.utc = utc
        self.decision = decision
        self.reason = reason
        self.volume = volume
        self.language = language
        self.text = text
        self.clips = clips
        self.chime = chime
        self.strikes = strikes
        self.anchorOffsetMs = anchorOffsetMs
    }

    public var json: String { ReportJSON.encode(self) }
}

/// `reminders json`: every reminder of the running daemon and when each is next said.
public struct RemindersReport: Codable, Equatable, Sendable {
    public struct Entry: Codable, Equatable, Sendable {
        /// Times of day, "HH:MM".
        public var at: [String]
        /// The weekdays ("weekdays", "mon, wed"), or null when it has dates.
        public var days: String?
        /// The dates ("2026-12-24", "12-24"), or null when it has weekdays.
        public var dates: [String]?
        /// The words as written (with their placeholders), or null for a recording.
        public var say: String?
        /// The recording's path, or null for words.
        public var clip: String?
        public var append: Bool
        public var speaksThrough: [String]
        /// RFC 3339 local time when it is next said; null when never again.
        public var next: String?

        enum CodingKeys: String, CodingKey {
            case at, days, dates, say, clip, append, next
            case speaksThrough = "speaks_through"
        }

        public init(
            at: [String], days: String?, dates: [String]?, say: String?, clip: String?, append: Bool, speaksThrough: [String],
            next: String?
        ) {
            self.at = at
            self.days = days
            self.dates = dates
            self.say = say
            self.clip = clip
            self.append = append
            self.speaksThrough = speaksThrough
            self.next = next
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(at, forKey: .at)
            try c.encode(days, forKey: .days)
            try c.encode(dates, forKey: .dates)
            try c.encode(say, forKey: .say)
            try c.encode(clip, forKey: .clip)
            try c.encode(append, forKey: .append)
            try c.encode(speaksThrough, forKey: .speaksThrough)
            try c.encode(next, forKey: .next)
        }
    }

    public var reminders: [Entry]
    /// `skip reminder` is pending.
    public var skipPending: Bool
    /// Why reminders pause now, or null.
    public var away: String?

    enum CodingKeys: String, CodingKey {
        case reminders, away
        case skipPending = "skip_pending"
    }

    public init(reminders: [Entry], skipPending: Bool, away: String?) {
        self.reminders = reminders
        self.skipPending = skipPending
        self.away = away
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(reminders, forKey: .reminders)
        try c.encode(skipPending, forKey: .skipPending)
        try c.encode(away, forKey: .away)
    }

    public var json: String { ReportJSON.encode(self) }
}
