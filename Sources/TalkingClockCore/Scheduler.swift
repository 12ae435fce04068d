import FoundationEssentials

/// Why a boundary was not spoken.
public enum SkipReason: String, Sendable, Hashable {
    /// It was spoken before (a restart, a clock stepped back, a duplicate trigger).
    case alreadySpoken = "already-spoken"
    /// The wake-up came more than `late-limit` after it (suspend/resume, a forward clock jump):
    /// speaking now would say the wrong time.
    case stale
    case muted
    case quiet
    /// `skip` was asked for before it.
    case skipRequested = "skip-requested"
    /// Another announcement is still playing.
    case busy
    /// The voice is off at this minute (`voice-at`) and the chime does not ring then.
    case nothingToPlay = "nothing-to-play"
    /// A call or do-not-disturb, as `[courtesy]` says.
    case courtesy
    /// An `[[away]]` range (reminders; the time too with `clock = "silent"`), or the away switch
    /// (reminders).
    case away
    /// The volume curve lowered it (never silences; the reason `schedule` gives a lowered volume).
    case volumeCurve = "volume-curve"
}

/// What to do about one boundary.
public enum Decision: Hashable, Sendable {
    case speak(boundary: Int, local: LocalDateTime, style: AnnouncementStyle, gain: Float)
    case skip(boundary: Int, local: LocalDateTime, reason: SkipReason)

    public var boundary: Int {
        switch self {
        case .speak(let b, _, _, _), .skip(let b, _, _): b
        }
    }
}

/// One thing that makes a boundary quieter than configured, and why: the mute, a pending `skip`,
/// a quiet-hours window, a call or do-not-disturb.
public struct Hush: Hashable, Sendable {
    public enum Level: Hashable, Sendable {
        case silent
        /// The chime plays, the voice does not.
        case chimeOnly
        /// At most this volume (percent).
        case volume(Int)
    }
    public var level: Level
    public var reason: SkipReason

    public init(_ level: Level, _ reason: SkipReason) {
        self.level = level
        self.reason = reason
    }

    public enum Verdict: Hashable, Sendable {
        case speak(AnnouncementStyle, gain: Float)
        case silent(SkipReason)
    }

    /// The one "how quiet" rule. The first silent hush wins (so list them in order of precedence:
    /// the mute, a skip, quiet hours, courtesy); a chime-only hush silences the voice, and then a
    /// boundary whose chime does not ring at `minute` is silent for that hush's reason (this rule is
    /// written nowhere else); the lowest volume wins.
    public static func fold(_ hushes: [Hush], style: AnnouncementStyle, gain: Float, minute: Int) -> Verdict {
        if let silent = hushes.first(where: { $0.level == .silent }) { return .silent(silent.reason) }
        var style = style
        var gain = gain
        for hush in hushes {
            switch hush.level {
            case .silent: break
            case .chimeOnly:
                guard style.chime.rings(atMinute: minute) else { return .silent(hush.reason) }
                style.voice = false
            case .volume(let percent): gain = min(gain, Float(percent) / 100)
            }
        }
        return .speak(style, gain: gain)
    }
}

/// How a wake-up relates to the boundary it was for (cronie's `wakeupKind`, in one place).
public enum WakeKind: Hashable, Sendable {
    /// Before the boundary: the normal case, the device is opened ahead of it.
    case ahead(seconds: Double)
    /// After the boundary but within the late limit: speak at once.
    case late(seconds: Double)
    /// More than the late limit after it.
    case stale(seconds: Double)

    public static func classify(now: Double, boundary: Int, lateLimit: Double) -> WakeKind {
        let delta = now - Double(boundary)
        if delta <= 0 { return .ahead(seconds: -delta) }
        return delta <= lateLimit ? .late(seconds: delta) : .stale(seconds: delta)
    }
}

/// The daemon's decisions as a pure value: which boundary comes next, and whether to speak it.
/// Nothing here reads a clock, a file or a device; the daemon passes the time in.
public struct AnnouncementScheduler: Hashable, Sendable {
    public var config: Config
    public var state: PersistentState
    /// Set by `skip` when nothing is playing: leave out the next announcement.
    public var skipNext = false
    /// Set by `skip reminder`: leave out the next reminder (its instant, or its part of one).
    public var skipNextReminder = false
    /// The last boundary decided in this run, spoken or skipped for a reason other than being
    /// stale (not persisted).
    public var lastDecided: Int?

    /// A last-spoken boundary further than this in the future is not trusted (a clock that was
    /// once set years ahead must not silence the clock until then).
    public static let trustHorizon = 86_400

    public init(config: Config, state: PersistentState) {
        self.config = config
        self.state = state
    }

    /// The next instant (a boundary of the rhythm, or a reminder's) strictly after `now` that has
    /// not been spoken already.
    public func nextBoundary(after now: Double, in zone: Zone) -> Int {
        let next = Self.nextInstant(after: now, in: zone, config: config)
        if let last = state.lastSpokenBoundary, next <= last, last - next <= Self.trustHorizon {
            return Self.nextInstant(after: Double(last), in: zone, config: config)
        }
        return next
    }

    /// The first instant strictly after `instant` at which the clock says something: a boundary of
    /// the rhythm (`interval` and its windows) or a reminder's instant.
    public static func nextInstant(after instant: Double, in zone: Zone, config: Config) -> Int {
        let boundary = BoundarySchedule.next(after: instant, in: zone, rhythm: config.rhythm)
        if let reminder = ReminderSchedule.next(after: instant, reminders: config.reminders, in: zone), reminder < boundary {
            return reminder
        }
        return boundary
    }

    /// Whether the clock says something at `instant`: a boundary of the rhythm or a reminder's instant.
    public static func isInstant(_ instant: Int, in zone: Zone, config: Config) -> Bool {
        BoundarySchedule.isBoundary(instant, in: zone, rhythm: config.rhythm)
            || !ReminderSchedule.due(at: instant, reminders: config.reminders, in: zone).isEmpty
    }

    /// Whether and how to speak `boundary`, deciding at `now`: the runtime reasons first (already
    /// spoken, stale), then `configuredDecision` with what only the running daemon knows (the
    /// mute, a pending `skip`, what the courtesy look found).
    public func decide(boundary: Int, now: Double, in zone: Zone, courtesy: CourtesyDecision? = nil) -> Decision {
        let local = CivilTime.local(boundary, in: zone)
        if let last = state.lastSpokenBoundary, boundary <= last, last - boundary <= Self.trustHorizon {
            return .skip(boundary: boundary, local: local, reason: .alreadySpoken)
        }
        if case .stale = WakeKind.classify(now: now, boundary: boundary, lateLimit: config.lateLimit) {
            return .skip(boundary: boundary, local: local, reason: .stale)
        }
        return Self.configuredDecision(
            boundary: boundary, in: zone, config: config, mute: state.mute, skipNext: skipNext, courtesy: courtesy)
    }

    /// What the configuration (and, in the daemon, the mute, a pending skip and the courtesy look)
    /// make of `boundary`: every hush that applies folded by `Hush.fold`, then `voice`, `voice-at`
    /// and whether the chime rings then. A pure function of its arguments: the daemon's `decide`
    /// calls it, and `schedule` lists exactly it for each boundary (with `mute: .unmuted`, as
    /// muting is runtime state).
    public static func configuredDecision(
        boundary: Int, in zone: Zone, config: Config, mute: MuteState = .unmuted, skipNext: Bool = false,
        courtesy: CourtesyDecision? = nil
    ) -> Decision {
        let local = CivilTime.local(boundary, in: zone)
        var hushes: [Hush] = []
        if mute.isMuted(at: boundary) { hushes.append(Hush(.silent, .muted)) }
        if skipNext { hushes.append(Hush(.silent, .skipRequested)) }
        if config.away.contains(where: { $0.silencesClock && $0.covers(CalendarDate(local)) }) {
            hushes.append(Hush(.silent, .away))
        }
        hushes += quietHushes(config, local)
        hushes += courtesyHushes(courtesy)
        if let curve = config.volumeCurve { hushes.append(Hush(.volume(curve.percent(at: local)), .volumeCurve)) }
        switch Hush.fold(hushes, style: config.announcementStyle, gain: Float(config.volume) / 100, minute: local.minute) {
        case .silent(let reason):
            return .skip(boundary: boundary, local: local, reason: reason)
        case .speak(let style, let gain):
            if !style.speaks(atMinute: local.minute) && !style.chime.rings(atMinute: local.minute) {
                return .skip(boundary: boundary, local: local, reason: .nothingToPlay)
            }
            return .speak(boundary: boundary, local: local, style: style, gain: gain)
        }
    }

    static func quietHushes(_ config: Config, _ local: LocalDateTime) -> [Hush] {
        guard let quiet = QuietHours.rule(in: config.quiet, at: local) else { return [] }
        var hushes: [Hush] = []
        if quiet.silent { hushes.append(Hush(.silent, .quiet)) }
        if quiet.chimeOnly { hushes.append(Hush(.chimeOnly, .quiet)) }
        if let percent = quiet.volume { hushes.append(Hush(.volume(percent), .quiet)) }
        return hushes
    }

    static func courtesyHushes(_ courtesy: CourtesyDecision?) -> [Hush] {
        switch courtesy {
        case .skip: [Hush(.silent, .courtesy)]
        case .chimeOnly: [Hush(.chimeOnly, .courtesy)]
        case .speak, nil: []
        }
    }

    /// Whether and how loud reminder `reminder` speaks at `instant`, by the same fold as a
    /// boundary: the mute, a pending `skip` (of the next announcement or the next reminder), an
    /// away range or the away switch, quiet hours, a call or do-not-disturb and the volume curve,
    /// less the hushes the reminder speaks through (`speaks-through`). A reminder has no chime:
    /// chime-only is silent for it. `awaySwitch`: the away switch is on.
    public static func reminderDecision(
        _ reminder: Reminder, instant: Int, in zone: Zone, config: Config, mute: MuteState = .unmuted, skipNext: Bool = false,
        skipReminder: Bool = false, awaySwitch: Bool = false, courtesy: CourtesyDecision? = nil
    ) -> Hush.Verdict {
        let local = CivilTime.local(instant, in: zone)
        var hushes: [Hush] = []
        let through = reminder.speaksThrough
        if mute.isMuted(at: instant) && !through.contains(.mute) { hushes.append(Hush(.silent, .muted)) }
        if skipNext || skipReminder { hushes.append(Hush(.silent, .skipRequested)) }
        if awaySwitch || config.away.contains(where: { $0.covers(CalendarDate(local)) }) { hushes.append(Hush(.silent, .away)) }
        if !through.contains(.quiet) { hushes += quietHushes(config, local) }
        if !through.contains(.courtesy) { hushes += courtesyHushes(courtesy) }
        if let curve = config.volumeCurve { hushes.append(Hush(.volume(curve.percent(at: local)), .volumeCurve)) }
        let style = AnnouncementStyle(phrase: config.announcementStyle.phrase, chime: .none, voice: true)
        return Hush.fold(hushes, style: style, gain: Float(config.volume) / 100, minute: local.minute)
    }

    /// The volume (percent) quiet hours and the volume curve leave at a local time, before any
    /// runtime hush; nil when quiet hours silence it.
    public static func volume(at local: LocalDateTime, config: Config) -> Int? {
        var hushes = quietHushes(config, local)
        if let curve = config.volumeCurve { hushes.append(Hush(.volume(curve.percent(at: local)), .volumeCurve)) }
        let style = AnnouncementStyle(phrase: config.announcementStyle.phrase, chime: .none, voice: true)
        switch Hush.fold(hushes.filter { $0.level != .chimeOnly }, style: style, gain: Float(config.volume) / 100, minute: local.minute) {
        case .speak(_, let gain): return Int((gain * 100).rounded())
        case .silent: return nil
        }
    }

    /// Remembers that `boundary` was spoken (or started), so it is never spoken again.
    public mutating func recordSpoken(_ boundary: Int) {
        state.lastSpokenBoundary = max(state.lastSpokenBoundary ?? boundary, boundary)
        lastDecided = max(lastDecided ?? boundary, boundary)
        skipNext = false
    }

    /// Consumes a pending `skip` once its boundary has passed.
    public mutating func recordSkipped(_ decision: Decision) {
        if case .skip(_, _, .skipRequested) = decision { skipNext = false }
        // A stale skip is no verdict on the boundary itself: if the clock is stepped back to
        // within the late limit of it, it may be spoken then.
        if case .skip(_, _, let reason) = decision, reason != .stale {
            lastDecided = max(lastDecided ?? decision.boundary, decision.boundary)
        }
    }

    /// The boundary to wait for next, deciding at `now`: the first one not yet spoken that comes
    /// after `handled` (the boundary just spoken or skipped, if any) and passed less than
    /// `late-limit` ago. After a wake-up long after `handled` (a resume, a forward clock step),
    /// a boundary that passed within the late limit is therefore still spoken, late, while the
    /// ones before it are left out; otherwise it is simply the next boundary. A boundary decided
    /// within the last minute (or the next: a step back) is never decided again, so a clock step,
    /// a zone change or a reload just after a `skip` or a mute cannot bring it back.
    public func boundaryToArm(after handled: Int?, now: Double, in zone: Zone) -> Int {
        var from = max(now - config.lateLimit, handled.map(Double.init) ?? -Double.infinity)
        if let decided = lastDecided, abs(Double(decided) - now) <= 60 { from = max(from, Double(decided)) }
        return nextBoundary(after: from, in: zone)
    }
}
