import FoundationEssentials
import TalkingClockCore

/// The daemon's decisions as one value: events in, effects out, `now` (the daemon's clock, in
/// seconds) passed in. No file descriptor, no clock read, no Glibc: `EngineDriver` carries out the
/// effects through its ports (Linux ports in the daemon, embedded ports in the tests), so the
/// simulated year and the daemon run this same value.
public struct ClockEngine: Sendable {
    /// What does not change while the daemon runs.
    public struct Options: Sendable {
        public var driver: Driver?
        /// `announce --next` as its own process: announce the next boundary within `maxWait`, then exit.
        public var oneShot: Bool
        public var maxWait: Double
        /// Real seconds before a boundary (before its chime's pre-roll) at which the device is opened.
        public var lead: Double
        /// The daemon clock's rate against real time (a fast simulated clock: > 1).
        public var rate: Double
        /// The clock in words, for `status`: "real", or a demo's ("offset +600 s", "simulated from …").
        public var clock: String

        public init(
            driver: Driver? = nil, oneShot: Bool = false, maxWait: Double = 60, lead: Double = 1, rate: Double = 1,
            clock: String = "real"
        ) {
            self.driver = driver
            self.oneShot = oneShot
            self.maxWait = maxWait
            self.lead = lead
            self.rate = rate
            self.clock = clock
        }
    }

    /// The announcement the ports are opening or playing.
    struct Playing: Sendable {
        var id: Int
        var boundary: Int?
        var anchor: Double?
        var text: String
        var local: LocalDateTime
        /// Seconds of sound after the anchor's first sample.
        var soundAfterAnchor: Double
        var media: MediaPlan
        var opened = false
        var anchorPlayed = false
        /// The `say` waiting for the device to open, and what to tell it then.
        var sayReply: ReplyTo?
        var sayReplyText: String = ""
        /// The date said with it (`date = "first"`): recorded once it starts.
        var dateSaid: CalendarDate? = nil
    }

    /// Words handed (or to be handed) to speech-dispatcher whose outcome waits for its answer.
    struct Speaking: Sendable {
        var id: Int
        var boundary: Int?
        var local: LocalDateTime
        var text: String
        /// The outcome is the speech's own (no chime played beside it).
        var decides: Bool
        var sayReply: ReplyTo?
    }

    /// A reload in progress, as one value (swift-nio-http2's connection states): who waits for its
    /// answer, what was set while it ran, and whether another was asked for meanwhile.
    enum ReloadPhase: Sendable {
        case idle
        case running(waiters: [ReplyTo], setDuring: SetDuringReload, again: [ReplyTo]?)
    }

    /// `volume` and `chime` set while a reload runs: applied on top of what it loads.
    struct SetDuringReload: Sendable {
        var volume: Int?
        var chime: ChimeStyle?
    }

    public let options: Options
    public internal(set) var scheduler: AnnouncementScheduler
    public internal(set) var pack: PackFacts
    /// What the output in use needs ahead of an anchor (see `EngineSettings.outputLead`).
    public internal(set) var outputLead: Double
    public internal(set) var zone: Zone
    /// The boundary the timer waits for.
    public internal(set) var armed: Int?
    /// With the external driver: the reminder instant the `.reminder` timer waits for.
    public internal(set) var reminderArmed: Int?
    /// The latest reading of the `[value]` topic, and when it came (clock seconds).
    public internal(set) var value: (number: Int, at: Double)?
    /// `speak` requests whose words are being rendered, by id.
    var rendering: [Int: (text: String, at: Double?, reply: ReplyTo)] = [:]
    /// The clip of the last `speak`'s words (kept until the next one).
    var lastSpokenClip: String?
    /// The next reminder, as last worked out (`status` shows it after every event): valid from
    /// `from` until the reminder's instant, for the settings and zone it was made with.
    var reminderMemo: (from: Double, next: Int?, shown: StatusReport.Next?)?
    /// The next boundary of the rhythm, likewise (`status`'s next time).
    var timeMemo: (from: Double, next: Int, shown: StatusReport.Next)?
    /// The words of the instant armed, as last worked out.
    var armedTextMemo: (instant: Int, text: String)?
    var playing: Playing?
    var speaking: [Speaking] = []
    /// Words waiting for their instant (the `.speech` timer).
    var speechDue: Speaking?
    var nextID = 1
    var waiters: [(boundary: Int, reply: ReplyTo)] = []
    /// Mutes asked for and not yet on disk, in order: every save writes the newest of them.
    /// `savesThen`: how many saves had been asked for once its own was.
    var pendingMutes: [(reply: ReplyTo, mute: MuteState, savesThen: Int)] = []
    /// Saves asked for so far.
    var saves = 0
    public internal(set) var last: Outcome?
    /// Set when the state file could not be read at start; shown until the user sets the mute.
    public internal(set) var stateWarning: String?
    var reload = ReloadPhase.idle
    var lastStatus: StatusReport?
    var timers: [EngineTimer: Double] = [:]
    var started = false
    /// The boundary whose courtesy look is out (its decision waits for the answer).
    var looking: Int?
    /// The last courtesy decision, in words ("speak", "chime-only: call (Zoom, phone)"), for `status`.
    public internal(set) var lastCourtesy: String?

    public init(options: Options, settings: EngineSettings, state: PersistentState, stateWarning: String?, zone: Zone) {
        self.options = options
        self.scheduler = AnnouncementScheduler(config: settings.config, state: state)
        self.pack = settings.pack
        self.outputLead = settings.outputLead
        self.stateWarning = stateWarning
        self.zone = zone
    }

    public var config: Config { scheduler.config }
    public var driver: Driver { options.driver ?? scheduler.config.driver }
    public var isPlaying: Bool { playing != nil }
    /// The boundary of the announcement playing (or opening), if it is one.
    public var playingBoundary: Int? { playing?.boundary }
    var timerDriven: Bool { driver == .timer && !options.oneShot }
    /// Real seconds the device is opened ahead of a boundary's first sound: the daemon's lead, or
    /// more when the output needs it.
    public var lead: Double { max(options.lead, outputLead) }

    /// Asks for the state file to hold `persistable` (a later save supersedes an earlier one).
    mutating func save(for request: ReplyTo? = nil, _ out: inout [EngineEffect]) {
        saves += 1
        out.append(.save(persistable, for: request))
    }

    /// What the state file should hold now: the state in effect with the newest mute asked for.
    var persistable: PersistentState {
        var state = scheduler.state
        if let newest = pendingMutes.last { state.mute = newest.mute }
        return state
    }

    // MARK: - Events

    /// Handles one event at `now` (the daemon's clock) and returns what to do, in order.
    public mutating func handle(_ event: EngineEvent, now: Double) -> [EngineEffect] {
        var out: [EngineEffect] = []
        switch event {
        case .start: start(now: now, &out)
        case .timer(let which, let clockWasSet, let zone):
            timers[which] = nil
            switch which {
            case .boundary: boundaryTimer(clockWasSet: clockWasSet, zone: zone, now: now, &out)
            case .status: break  // `finish` re-arms it
            case .speech: speechTimer(now: now, &out)
            case .reminder: reminderTimer(now: now, &out)
            }
        case .zoneChanged(let z): zoneChanged(z, now: now, &out)
        case .control(let request, let replyTo): control(request, replyTo, now: now, &out)
        case .playback(let id, let report): playback(id, report, now: now, &out)
        case .courtesy(let boundary, let findings):
            guard looking == boundary else { break }  // a look for a boundary no longer waited for
            looking = nil
            announce(boundary, findings: findings, now: now, &out)
        case .saved(let replyTo, let error): saved(replyTo, error: error, now: now, &out)
        case .reloaded(let result, let z): reloaded(result, zone: z, now: now, &out)
        case .spoken(let id, let result): spoken(id, result, &out)
        case .rendered(let id, let result): rendered(id, result, now: now, &out)
        case .value(let reading): valueReceived(reading, now: now, &out)
        case .reloadRequested:
            out.append(.log(LogLine(.info, "reload requested", [("signal", "SIGHUP")])))
            requestReload(nil, &out)
        case .stop: stop(now: now, &out)
        }
        // The playback path: a pump that changed nothing (the usual case) does not recompute the status.
        if case .playback(_, .pumped) = event, out.isEmpty { return out }
        finish(now: now, &out)
        return out
    }

    mutating func start(now: Double, _ out: inout [EngineEffect]) {
        started = true
        if options.oneShot {
            if let reply = trigger(maxWait: options.maxWait, waiter: .oneShot, now: now, &out) {
                out.append(.reply(.oneShot, reply))
                out.append(.exit(Self.exitStatus(reply)))
            }
        } else if driver == .timer {
            arm(scheduler.nextBoundary(after: now, in: zone), now: now, &out)
        }
        armReminder(now: now, &out)
    }

    /// With `driver = "external"` (triggers start the boundaries), reminders keep their own time:
    /// the `.reminder` timer waits for the next one. With the timer driver they are instants of
    /// the boundary timer, and this does nothing.
    mutating func armReminder(now: Double, after handled: Int? = nil, _ out: inout [EngineEffect]) {
        guard driver == .external, !options.oneShot else { return }
        var next = ReminderSchedule.next(after: max(now, handled.map(Double.init) ?? now), reminders: scheduler.config.reminders, in: zone)
        if let n = next, let last = scheduler.state.lastSpokenBoundary, n <= last, last - n <= AnnouncementScheduler.trustHorizon {
            next = ReminderSchedule.next(after: Double(last), reminders: scheduler.config.reminders, in: zone)
        }
        reminderArmed = next
        let at = next.map { wakeTime(for: $0) }
        if at != timers[.reminder] { setTimer(.reminder, at, &out) }
    }

    /// The reminder timer came (external driver): look, then decide that reminder's instant.
    mutating func reminderTimer(now: Double, _ out: inout [EngineEffect]) {
        guard let instant = reminderArmed else { return }
        reminderArmed = nil
        if instant == looking || instant == armed || playing?.boundary == instant {
            // A trigger is announcing the same instant: the reminder is part of it.
            armReminder(now: now, after: instant, &out)
            return
        }
        guard now <= Double(instant) + scheduler.config.lateLimit else {
            armReminder(now: now, &out)  // slept through it
            return
        }
        looking = instant
        out.append(.look(boundary: instant, budget: min(0.2, options.lead / 5)))
    }

    static func exitStatus(_ reply: ControlReply) -> ExitStatus {
        if case .error(_, let kind) = reply { return kind.exitStatus }
        return .ok
    }

    // MARK: Timing

    /// Arms (nil: disarms) one of the engine's timers, saying so only when it changes.
    mutating func setTimer(_ which: EngineTimer, _ at: Double?, _ out: inout [EngineEffect]) {
        timers[which] = at
        out.append(.arm(which, at: at))
    }

    /// Seconds of audio before the anchor of `boundary`'s announcement (the Westminster quarters).
    func preroll(for boundary: Int) -> Double {
        // No chime, no pre-roll: the first word is the anchor. A reminder said alone has no chime.
        guard scheduler.config.chime != .none, instantKind(boundary).wantsTime else { return 0 }
        let local = CivilTime.local(boundary, in: zone)
        guard let planned = try? pack.plan(local.hour, local.minute, scheduler.config.announcementStyle) else { return 0 }
        return Double(planned.timeline.anchorFrame) / Double(planned.timeline.format.sampleRate)
    }

    /// When to wake for `boundary` (clock seconds): the lead, the chime's pre-roll and the output latency before it.
    public func wakeTime(for boundary: Int) -> Double {
        Double(boundary) - (lead + preroll(for: boundary) + scheduler.config.outputLatencyMs / 1000) * options.rate
    }

    mutating func arm(_ boundary: Int, now: Double, _ out: inout [EngineEffect]) {
        // Its look is out: the answer decides it; waking for it again would decide it twice.
        if boundary == looking { return }
        armed = boundary
        // An `announce` waiting for another boundary (the zone, the interval or the clock changed
        // under it) is answered now rather than never.
        for stale in Set(waiters.map(\.boundary)) where stale != boundary && stale != playing?.boundary && stale != looking {
            resolveWaiters(
                stale,
                .error(
                    "\(CivilTime.local(stale, in: zone).rfc3339) is no longer the next boundary (the zone, the interval or the clock changed); trigger again",
                    kind: .stale), &out)
        }
        setTimer(.boundary, wakeTime(for: boundary), &out)
    }

    mutating func boundaryTimer(clockWasSet: Bool, zone newZone: Zone, now: Double, _ out: inout [EngineEffect]) {
        noteZone(newZone, now: now, &out)
        if clockWasSet {
            // An NTP step or a manual `date`: decide again from the clock as it reads now.
            out.append(.log(LogLine(.notice, "clock was set", [("now", CivilTime.utcString(Int(now)))])))
            if let boundary = armed, now <= Double(boundary) + scheduler.config.lateLimit,
                now >= wakeTime(for: boundary) - lead
            {
                lookThenAnnounce(boundary, now: now, &out)  // the step landed us right at it
            } else {
                armed = nil
                if timerDriven { arm(scheduler.boundaryToArm(after: nil, now: now, in: zone), now: now, &out) }
            }
            return
        }
        guard let boundary = armed else { return }
        if now < wakeTime(for: boundary) - 0.5 {
            // Woke early (only if the clock moved back under a monotonic wait): wait again.
            arm(boundary, now: now, &out)
            return
        }
        lookThenAnnounce(boundary, now: now, &out)
    }

    /// Asks for the one bounded courtesy look (inside the lead the daemon already woke for); the
    /// decision waits for its answer. Nothing is looked at between boundaries. The budget is real
    /// time: at most a fifth of the lead, so a hung peer cannot use up a fast demo clock's lead.
    mutating func lookThenAnnounce(_ boundary: Int, now: Double, _ out: inout [EngineEffect]) {
        armed = nil
        // Real seconds left before the first sample must be written (the pre-roll, the output
        // latency and a margin for opening the device taken off): a fast demo clock, or a late
        // wake-up, leaves less than the usual 200 ms, and a look that took it would make the
        // boundary stale. With next to no time left the boundary is decided without a look.
        let left =
            (Double(boundary) - now) / options.rate - preroll(for: boundary) - scheduler.config.outputLatencyMs / 1000 - 0.3
        let budget = min(0.2, lead / 5, left)
        guard budget >= 0.02 else {
            announce(boundary, findings: .nothing, now: now, &out)
            return
        }
        looking = boundary
        out.append(.look(boundary: boundary, budget: budget))
    }

    mutating func zoneChanged(_ newZone: Zone, now: Double, _ out: inout [EngineEffect]) {
        guard noteZone(newZone, now: now, &out) else { return }
        if timerDriven { arm(scheduler.boundaryToArm(after: nil, now: now, in: zone), now: now, &out) }
        armReminder(now: now, &out)
    }

    /// Makes `newZone` the zone in effect; returns whether it differs from the one before.
    @discardableResult
    mutating func noteZone(_ newZone: Zone, now: Double, _ out: inout [EngineEffect]) -> Bool {
        guard newZone != zone else { return false }
        let before = zone
        zone = newZone
        forgetMemos()
        if newZone.identifier != before.identifier {
            out.append(.log(LogLine(.notice, "zone changed", [("from", before.identifier), ("to", newZone.identifier)])))
        } else {
            let t = Int(now)
            out.append(
                .log(
                    LogLine(
                        .notice, "zone rules reloaded",
                        [
                            ("zone", newZone.identifier), ("file", newZone.file ?? "none"),
                            ("offset_before", CivilTime.formatOffset(before.offset(at: t))),
                            ("offset_now", CivilTime.formatOffset(newZone.offset(at: t))),
                        ])))
        }
        return true
    }

    // MARK: Deciding an instant

    /// What one announcement says: the time (with its chime), the date after it, reminders, the
    /// words of a `speak`.
    struct Parts: Sendable {
        /// The time in this style (its chime, its voice); nil: no time.
        var time: AnnouncementStyle?
        /// The date, said after the time (`date = "first"`).
        var date: CalendarDate?
        /// Reminders (indices into the config's), in config order.
        var reminders: [Int] = []
        /// A `speak` request's words and the clip they were rendered as.
        var spoken: (text: String, clip: String)?
    }

    /// An instant's parts and whether it is one at all: a boundary of the rhythm (the time), the
    /// reminders due then, and whether one of them asks for the time (`append`).
    func instantKind(_ instant: Int) -> (boundary: Bool, reminders: [Int], wantsTime: Bool) {
        let config = scheduler.config
        let boundary = BoundarySchedule.isBoundary(instant, in: zone, rhythm: config.rhythm)
        let due = ReminderSchedule.due(at: instant, reminders: config.reminders, in: zone)
        return (boundary, due, boundary || due.contains { config.reminders[$0].append })
    }

    mutating func announce(_ boundary: Int, findings: CourtesyFindings, now: Double, _ out: inout [EngineEffect]) {
        cutIfStale(now: now, &out)
        if let current = playing, current.boundary != boundary {
            // The boundary always wins: an on-demand `say` that would overlap its lead or pre-roll
            // is cut, and so is the tail of an earlier boundary's announcement.
            cut(.boundaryDue(CivilTime.local(boundary, in: zone).rfc3339), &out)
        }
        let local = CivilTime.local(boundary, in: zone)
        if armed == boundary { armed = nil }
        let kind = instantKind(boundary)
        if !kind.boundary && kind.reminders.isEmpty {
            // Armed in another zone (it changed while we waited, and no watch saw it).
            record(Outcome(.skipped, boundary: boundary, at: local.rfc3339, reason: .zoneChanged), &out)
            if timerDriven { arm(scheduler.boundaryToArm(after: nil, now: now, in: zone), now: now, &out) }
            armReminder(now: now, &out)
            return
        }
        if !findings.timedOut.isEmpty {
            out.append(.log(LogLine(.notice, "courtesy look timed out", [("parts", findings.timedOut.joined(separator: ", "))])))
        }
        // Courtesy: a call or do-not-disturb may make it chime only or silent (folded with the mute,
        // a skip and quiet hours into one decision); other programs' sound is ducked or paused.
        let courtesy = CourtesyPolicy.decide(findings, scheduler.config.courtesy)
        let decision = scheduler.decide(boundary: boundary, now: now, in: zone, courtesy: courtesy)
        lastCourtesy = courtesy.text
        var parts = Parts()
        var gain: Float = 0
        var silence: OutcomeReason?
        switch decision {
        case .skip(_, _, let reason) where reason == .alreadySpoken || reason == .stale:
            // Not this instant's to decide again: nothing of it is said.
            silence = .skipped(reason)
        case .skip(_, _, let reason):
            if kind.wantsTime { silence = reason == .courtesy ? Self.courtesyReason(courtesy) : .skipped(reason) }
        case .speak(_, _, let style, let g):
            if kind.wantsTime {
                parts.time = style
                gain = g
            }
        }
        if silence.map({ $0 != .skipped(.alreadySpoken) && $0 != .skipped(.stale) }) ?? true {
            for i in kind.reminders {
                let reminder = scheduler.config.reminders[i]
                switch AnnouncementScheduler.reminderDecision(
                    reminder, instant: boundary, in: zone, config: scheduler.config, mute: scheduler.state.mute,
                    skipNext: scheduler.skipNext, skipReminder: scheduler.skipNextReminder, awaySwitch: scheduler.state.away,
                    courtesy: courtesy)
                {
                case .speak(_, let g):
                    parts.reminders.append(i)
                    gain = max(gain, g)
                case .silent(let reason):
                    out.append(
                        .log(LogLine(.info, "reminder left out", [("at", local.rfc3339), ("reminder", reminder.label), ("reason", reason.rawValue)])))
                    if silence == nil && !kind.wantsTime {
                        silence = reason == .courtesy ? Self.courtesyReason(courtesy) : .skipped(reason)
                    }
                }
            }
            if !kind.reminders.isEmpty { scheduler.skipNextReminder = false }
        }
        if parts.time == nil && parts.reminders.isEmpty {
            let reason = silence ?? .skipped(.nothingToPlay)
            let skipReason: SkipReason
            switch reason {
            case .skipped(let r): skipReason = r
            default: skipReason = .courtesy
            }
            scheduler.recordSkipped(.skip(boundary: boundary, local: local, reason: skipReason))
            record(Outcome(.skipped, boundary: boundary, at: local.rfc3339, reason: reason), &out)
        } else {
            if case .chimeOnly(let reason, _) = courtesy, parts.time != nil {
                out.append(.log(LogLine(.info, "chime only", [("boundary", local.rfc3339), ("reason", reason.text)])))
            }
            if parts.time != nil, scheduler.config.date == .first, scheduler.state.dateSaid != CalendarDate(local).description {
                parts.date = CalendarDate(local)
            }
            startPlaying(
                boundary: boundary, local: local, parts: parts, gain: gain, anchor: Double(boundary), media: courtesy.media,
                now: now, &out)
        }
        // After a stale skip (a resume), a later boundary that passed within the late limit is next.
        if timerDriven { arm(scheduler.boundaryToArm(after: boundary, now: now, in: zone), now: now, &out) }
        armReminder(now: now, after: boundary, &out)
    }

    static func courtesyReason(_ courtesy: CourtesyDecision) -> OutcomeReason {
        switch courtesy {
        case .skip(let r): .courtesy(r)
        case .chimeOnly(let r, _): .courtesyNoChime(r)
        case .speak: .skipped(.courtesy)
        }
    }

    /// The gap before a reminder said after the time or the date (shorter than between sentences:
    /// a reminder follows its time as one announcement).
    public static let reminderGapMs = 150

    /// The words of reminder `index` at `local`: its phrases (the first with `gapMs` before it), its
    /// text, and log lines for what was left out (a value too old).
    func reminderPhrases(
        _ index: Int, local: LocalDateTime, now: Double, gapMs: Int, available: Set<String>, log: inout [LogLine]
    ) throws(PlanFailure) -> (phrases: [AppendedPhrase], text: String) {
        let reminder = scheduler.config.reminders[index]
        let language = scheduler.config.announcementStyle.phrase.language
        var phrases: [AppendedPhrase] = []
        var words: [String] = []
        func add(_ phrase: Phrase) throws(PlanFailure) {
            let clips: [String]
            do { clips = try Vocabulary.cover(phrase, available: available).clips } catch {
                throw PlanFailure("Sound pack '\(pack.name)' (\(pack.location)): \(error.description) (reminder at \(reminder.origin))")
            }
            phrases.append(AppendedPhrase(phrase: phrase, clips: clips, gapMs: phrases.isEmpty ? gapMs : 0))
            words.append(phrase.text)
        }
        switch reminder.content {
        case .clip(let path):
            guard let id = pack.recordings[path] else {
                throw PlanFailure("the recording \(path) of the reminder at \(reminder.origin) is not loaded; reload")
            }
            phrases.append(
                AppendedPhrase(phrase: Phrase(words: [id], text: reminder.label, language: language), clips: [id], gapMs: gapMs))
            words.append(reminder.label)
        case .text(let template):
            for segment in template.segments {
                switch segment {
                case .text(let t):
                    guard let id = pack.texts[t], pack.clipFrames[id] != nil else {
                        throw PlanFailure("\"\(t)\" (the reminder at \(reminder.origin)) was not rendered; reload")
                    }
                    phrases.append(
                        AppendedPhrase(phrase: Phrase(words: [id], text: t, language: language), clips: [id], gapMs: phrases.isEmpty ? gapMs : 0))
                    words.append(t)
                case .time:
                    try add(Phrase.forTime(hour: local.hour, minute: local.minute, style: scheduler.config.announcementStyle.phrase))
                case .date:
                    let phrase: Phrase
                    do { phrase = try Phrase.forDate(CalendarDate(local), language: language) } catch { throw PlanFailure(error.message) }
                    try add(phrase)
                case .value:
                    guard let phrase = valuePhrase(now: now, log: &log, context: reminder.label) else { continue }
                    try add(phrase)
                }
            }
        }
        return (phrases, words.joined(separator: " "))
    }

    /// The value's words, if a reading is fresh; else nil and a log line saying why it is left out.
    func valuePhrase(now: Double, log: inout [LogLine], context: String) -> Phrase? {
        guard let source = scheduler.config.value else { return nil }
        guard let reading = value else {
            log.append(LogLine(.notice, "value left out", [("reminder", context), ("reason", "no reading of \(source.topic) yet")]))
            return nil
        }
        let age = now - reading.at
        guard age <= Double(source.maxAge) else {
            log.append(
                LogLine(
                    .notice, "value left out",
                    [("reminder", context), ("reason", "the last reading of \(source.topic) is \(Int(age)) s old, more than max-age \(source.maxAge) s"),
                    ("value", "\(reading.number)")]))
            return nil
        }
        return try? Phrase.forValue(reading.number, unit: source.unit, language: scheduler.config.announcementStyle.phrase.language)
    }

    /// Plans and asks the ports to open the device. Returns the failure if it could not be planned.
    @discardableResult
    mutating func startPlaying(
        boundary: Int?, local: LocalDateTime, parts: Parts, gain: Float, anchor: Double?, media: MediaPlan = .leave,
        now: Double, sayReply: ReplyTo? = nil, _ out: inout [EngineEffect]
    ) -> Outcome? {
        var parts = parts
        var logs: [LogLine] = []
        let available = Set(pack.clipFrames.keys)
        let language = scheduler.config.announcementStyle.phrase.language
        let timeText = parts.time.map { Phrase.forTime(hour: local.hour, minute: local.minute, style: $0.phrase).text }
        if scheduler.config.voiceOutput == .speechDispatcher {
            // The words go to the screen reader's speech server (queued behind what it says, at
            // SSIP priority `message`) at their instant; the chime and recordings still play as sound.
            var words: [String] = []
            if let style = parts.time, style.voice, let timeText { words.append(timeText) }
            if let date = parts.date, let d = try? Phrase.forDate(date, language: language) { words.append(d.text) }
            var kept: [Int] = []
            for i in parts.reminders {
                let reminder = scheduler.config.reminders[i]
                guard case .text(let template) = reminder.content else {
                    kept.append(i)
                    continue
                }
                var said: [String] = []
                for segment in template.segments {
                    switch segment {
                    case .text(let t): said.append(t)
                    case .time: said.append(Phrase.forTime(hour: local.hour, minute: local.minute, style: scheduler.config.announcementStyle.phrase).text)
                    case .date: if let d = try? Phrase.forDate(CalendarDate(local), language: language) { said.append(d.text) }
                    case .value: if let v = valuePhrase(now: now, log: &logs, context: reminder.label) { said.append(v.text) }
                    }
                }
                words.append(said.joined(separator: " "))
            }
            if let spoken = parts.spoken { words.append(spoken.text) }
            if !words.isEmpty {
                for line in logs { out.append(.log(line)) }
                logs = []
                parts.time?.voice = false
                parts.date = nil
                parts.reminders = kept
                parts.spoken = nil
                let chimeRings = parts.time.map { $0.chime != .none && $0.chime.rings(atMinute: local.minute) } ?? false
                let sound = chimeRings || !kept.isEmpty
                let text = words.joined(separator: ". ")
                let speech = Speaking(
                    id: takeID(), boundary: boundary, local: local, text: text, decides: !sound, sayReply: sound ? nil : sayReply)
                if let boundary, !sound {
                    scheduler.recordSpoken(boundary)
                    save(&out)
                }
                if let anchor, anchor > now {
                    if let earlier = speechDue { hand(earlier, &out) }  // still waiting: now rather than never
                    speechDue = speech
                    setTimer(.speech, anchor, &out)
                } else {
                    hand(speech, &out)
                }
                if !sound { return nil }
                if !chimeRings { parts.time = nil }
            }
        }
        var plan: AnnouncementPlan?
        var texts: [String] = []
        var phrases: [AppendedPhrase] = []
        do throws(PlanFailure) {
            if let style = parts.time {
                plan = try pack.plan(local.hour, local.minute, style).plan
                if let timeText { texts.append(timeText) }
            }
            if let date = parts.date {
                let phrase: Phrase
                do { phrase = try Phrase.forDate(date, language: language) } catch { throw PlanFailure(error.message) }
                do {
                    let clips = try Vocabulary.cover(phrase, available: available).clips
                    phrases.append(AppendedPhrase(phrase: phrase, clips: clips, gapMs: AnnouncementPlan.phraseGapMs))
                    texts.append(phrase.text)
                } catch {
                    // The date is extra: the time is still said (check and reload name what the pack lacks).
                    logs.append(LogLine(.warning, "date left out", [("reason", "Sound pack '\(pack.name)': \(error.description)")]))
                    parts.date = nil
                }
            }
            for i in parts.reminders {
                let gap = plan != nil || !phrases.isEmpty ? Self.reminderGapMs : 0
                let said = try reminderPhrases(i, local: local, now: now, gapMs: gap, available: available, log: &logs)
                phrases += said.phrases
                if !said.text.isEmpty { texts.append(said.text) }
            }
            if let spoken = parts.spoken {
                phrases.append(
                    AppendedPhrase(
                        phrase: Phrase(words: [spoken.clip], text: spoken.text, language: language), clips: [spoken.clip],
                        gapMs: plan != nil || !phrases.isEmpty ? Self.reminderGapMs : 0))
                texts.append(spoken.text)
            }
        } catch {
            for line in logs { out.append(.log(line)) }
            let o = Outcome(.failed, boundary: boundary, at: local.rfc3339, text: texts.joined(separator: ". "), reason: .pack(error.description))
            record(o, &out)
            return o
        }
        for line in logs { out.append(.log(line)) }
        if plan == nil, let first = phrases.first {
            plan = AnnouncementPlan(
                hour: local.hour, minute: local.minute, phrase: first.phrase, chime: [], voiceClips: first.clips, leadInCount: 0)
            phrases.removeFirst()
        }
        guard var plan else {
            let o = Outcome(.failed, boundary: boundary, at: local.rfc3339, reason: .nothingToPlay)
            record(o, &out)
            return o
        }
        plan.appended += phrases
        let planned = pack.planned(plan)
        let text = texts.isEmpty ? plan.phrase.text : texts.joined(separator: ". ")
        guard !planned.timeline.items.isEmpty else {
            let o = Outcome(.failed, boundary: boundary, at: local.rfc3339, text: text, reason: .nothingToPlay)
            record(o, &out)
            return o
        }
        var timeline = planned.timeline
        if let anchor {
            // Woken too late for the whole pre-roll (a trigger 15 s before a Westminster hour whose
            // quarters start 16.5 s early): leave out the first strikes so the anchor stays on time.
            // The margin covers the device's buffer and the first writes.
            let realLeft = (anchor - now) / options.rate - scheduler.config.outputLatencyMs / 1000 - 0.15
            let fitted = timeline.droppingStrikes(before: Int(realLeft * Double(timeline.format.sampleRate)))
            if fitted.dropped > 0 {
                out.append(
                    .log(
                        LogLine(
                            .notice, "woke too late for the whole chime",
                            [
                                ("boundary", local.rfc3339), ("chime_needs_s",
                                    Format.fixed(Double(timeline.anchorFrame) / Double(timeline.format.sampleRate), 1)),
                                ("hint", "trigger earlier, e.g. 30 s before the boundary"),
                                ("strikes_left_out", "\(fitted.dropped)"),
                            ])))
                timeline = fitted.timeline
            }
        }
        let id = takeID()
        playing = Playing(
            id: id, boundary: boundary, anchor: anchor, text: text, local: local,
            soundAfterAnchor: timeline.secondsAfterAnchor, media: media, sayReply: sayReply, dateSaid: parts.date)
        out.append(
            .play(
                PlayRequest(
                    id: id, boundary: boundary, anchor: anchor, planned: PackFacts.Planned(plan: planned.plan, timeline: timeline),
                    gain: gain, local: local, device: scheduler.config.device, text: text)))
        return nil
    }

    mutating func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    // MARK: Speech

    /// The words' instant came (or the clock was set under the wait: late rather than never).
    mutating func speechTimer(now: Double, _ out: inout [EngineEffect]) {
        guard let due = speechDue else { return }
        speechDue = nil
        hand(due, &out)
    }

    /// Hands the words over now; the outcome (when the speech decides it) waits for the answer.
    mutating func hand(_ speech: Speaking, _ out: inout [EngineEffect]) {
        speaking.append(speech)
        out.append(.speak(id: speech.id, text: speech.text))
    }

    mutating func spoken(_ id: Int, _ result: SpeechAnswer, _ out: inout [EngineEffect]) {
        guard let i = speaking.firstIndex(where: { $0.id == id }) else { return }
        let speech = speaking.remove(at: i)
        switch result {
        case .spoke:
            out.append(.log(LogLine(.info, "handed to speech-dispatcher", [("text", speech.text)])))
            guard speech.decides else { return }
            record(Outcome(.spoke, boundary: speech.boundary, at: speech.local.rfc3339, text: speech.text, reason: .speechDispatcher), &out)
            if let reply = speech.sayReply { out.append(.reply(reply, .ok("speaking \(speech.text) (speech-dispatcher)"))) }
        case .failed(let why):
            if !speech.decides {
                out.append(
                    .log(
                        LogLine(
                            .error, "speech-dispatcher failed",
                            [("reason", why), ("hint", "is speech-dispatcher installed and running? ('spd-say test')")])))
                return
            }
            let o = Outcome(
                .failed, boundary: speech.boundary, at: speech.local.rfc3339, text: speech.text,
                reason: .speechDispatcherFailed(why))
            record(o, &out)
            if let reply = speech.sayReply { out.append(.reply(reply, .error("failed: \(o.reason!.text)", kind: .device))) }
        }
    }

    // MARK: Playing

    mutating func playback(_ id: Int, _ report: PlaybackReport, now: Double, _ out: inout [EngineEffect]) {
        guard var current = playing, current.id == id else { return }
        switch report {
        case .opened:
            if let boundary = current.boundary, now > Double(boundary) + scheduler.config.lateLimit {
                // Opening the device took so long that the time would be said stale: abandon it.
                playing = nil
                out.append(.cut(id: id))
                record(Outcome(.failed, boundary: boundary, at: current.local.rfc3339, text: current.text, reason: .abandoned), &out)
                return
            }
            current.opened = true
            playing = current
            if let boundary = current.boundary {
                // At most once, even across a restart: the record is saved as it starts (off the
                // loop; the first sample does not wait for the disk).
                scheduler.recordSpoken(boundary)
                if let date = current.dateSaid { scheduler.state.dateSaid = date.description }
                save(&out)
            }
            out.append(.begin(id: id))
            if current.media != .leave { out.append(.media(.begin(current.media))) }
            if let reply = current.sayReply {
                playing?.sayReply = nil
                out.append(.reply(reply, .ok(current.sayReplyText)))
            }
        case .couldNotStart(let reason):
            playing = nil
            let o = Outcome(.failed, boundary: current.boundary, at: current.local.rfc3339, reason: .device(reason))
            record(o, &out)
            if let reply = current.sayReply { out.append(.reply(reply, .error("failed: \(reason)", kind: .device))) }
        case .pumped(let anchorPlayed):
            playing?.anchorPlayed = anchorPlayed
            cutIfStale(now: now, &out)
        case .finished(let onset):
            ended(current, &out)
            record(Outcome(.spoke, boundary: current.boundary, at: current.local.rfc3339, text: current.text, onsetErrorMs: onset), &out)
        case .stalled(let reason):
            ended(current, &out)
            record(Outcome(.cut, boundary: current.boundary, at: current.local.rfc3339, text: current.text, reason: .stalled(reason)), &out)
        case .failed(let reason):
            ended(current, &out)
            record(Outcome(.failed, boundary: current.boundary, at: current.local.rfc3339, text: current.text, reason: .device(reason)), &out)
        }
    }

    /// The announcement is over (played, failed, cut): other programs' sound comes back.
    mutating func ended(_ current: Playing, _ out: inout [EngineEffect]) {
        playing = nil
        if current.opened && current.media != .leave { out.append(.media(.end)) }
    }

    /// Cuts the announcement playing if the machine slept, or the clock was stepped forward, while
    /// it waited for its instant or played: what is left of it would say a time that has passed.
    mutating func cutIfStale(now: Double, _ out: inout [EngineEffect]) {
        guard let current = playing, let anchor = current.anchor else { return }
        let slack = max(scheduler.config.lateLimit / options.rate, 1)
        let sound = current.anchorPlayed ? current.soundAfterAnchor : 0
        guard now > anchor + (sound + slack) * options.rate else { return }
        cut(.stale, &out)
    }

    /// Cuts the announcement playing (or opening): its outcome is `cut` with `reason`.
    mutating func cut(_ reason: OutcomeReason, _ out: inout [EngineEffect]) {
        guard let current = playing else { return }
        out.append(.cut(id: current.id))
        ended(current, &out)
        record(Outcome(.cut, boundary: current.boundary, at: current.local.rfc3339, text: current.text, reason: reason), &out)
        if let reply = current.sayReply { out.append(.reply(reply, .error("cut before it started: \(reason.text)", kind: reason.replyKind))) }
    }

    /// The one place an outcome is made known: last, the log, MQTT, and the waiters' replies.
    mutating func record(_ outcome: Outcome, _ out: inout [EngineEffect]) {
        last = outcome
        out.append(.outcome(outcome))
        if let boundary = outcome.boundary { resolveWaiters(boundary, outcome.reply, &out) }
    }

    mutating func resolveWaiters(_ boundary: Int, _ reply: ControlReply, _ out: inout [EngineEffect]) {
        let due = waiters.filter { $0.boundary == boundary }
        guard !due.isEmpty else { return }
        waiters.removeAll { $0.boundary == boundary }
        for waiter in due {
            out.append(.reply(waiter.reply, reply))
            if waiter.reply == .oneShot { out.append(.exit(Self.exitStatus(reply))) }
        }
    }

    // MARK: - Status

    /// The one status value: `status`, `status json`, MQTT `state` and systemd's STATUS render it.
    public func status(now: Double) -> StatusReport {
        let t = Int(now)
        let config = scheduler.config
        let next = armed.map { b -> StatusReport.Next in
            let text = armedTextMemo.flatMap { $0.instant == b ? $0.text : nil } ?? instantText(b)
            return StatusReport.Next(at: CivilTime.local(b, in: zone).rfc3339, text: text)
        }
        let mute = scheduler.state.mute.resolved(at: t)
        let localNow = CivilTime.local(t, in: zone)
        var volumeNow: Int?
        if config.volumeCurve != nil || !config.quiet.isEmpty { volumeNow = AnnouncementScheduler.volume(at: localNow, config: config) }
        var nextReminder: StatusReport.Next?
        var nextTime: StatusReport.Next?
        if !config.reminders.isEmpty {
            if let memo = reminderMemo, memo.from <= now, memo.next.map({ Double($0) > now }) ?? true {
                nextReminder = memo.shown
            } else {
                nextReminder = self.nextReminder(now: now).map { StatusReport.Next(at: $0.at, text: $0.text) }
            }
            if let memo = timeMemo, memo.from <= now, Double(memo.next) > now {
                nextTime = memo.shown
            } else {
                let b = BoundarySchedule.next(after: now, in: zone, rhythm: config.rhythm)
                let local = CivilTime.local(b, in: zone)
                nextTime = StatusReport.Next(
                    at: local.rfc3339, text: Phrase.forTime(hour: local.hour, minute: local.minute, style: config.announcementStyle.phrase).text)
            }
        }
        return StatusReport(
            driver: driver.rawValue, next: next, muted: mute.isMuted(at: t), mute: mute.description(in: zone),
            skipPending: scheduler.skipNext, stateWarning: stateWarning,
            quiet: QuietHours.rule(in: config.quiet, at: localNow)?.description,
            last: last?.last, playing: playing != nil, device: config.device, pack: pack.name,
            zone: zone.identifier, chime: config.chime.rawValue, volume: config.volume,
            muteUntil: { if case .mutedUntil(let end) = mute { return CivilTime.local(end, in: zone).rfc3339 } else { return nil } }(),
            courtesy: lastCourtesy, clock: options.clock, nextReminder: nextReminder, nextTime: nextTime,
            awaySwitch: scheduler.state.away, away: awayText(now: now), volumeNow: volumeNow)
    }

    /// Keeps what `status` works out after every event: the next reminder (until it comes) and the
    /// words of the instant armed.
    mutating func memoize(now: Double) {
        guard !scheduler.config.reminders.isEmpty else { return }
        if let memo = reminderMemo, memo.from <= now, memo.next.map({ Double($0) > now }) ?? true {
        } else {
            let next = nextReminder(now: now)
            reminderMemo = (now, next?.instant, next.map { StatusReport.Next(at: $0.at, text: $0.text) })
        }
        if let b = armed, armedTextMemo?.instant != b { armedTextMemo = (b, instantText(b)) }
        if !(timeMemo.map { $0.from <= now && Double($0.next) > now } ?? false) {
            let b = BoundarySchedule.next(after: now, in: zone, rhythm: scheduler.config.rhythm)
            let local = CivilTime.local(b, in: zone)
            timeMemo = (
                now, b,
                StatusReport.Next(
                    at: local.rfc3339,
                    text: Phrase.forTime(hour: local.hour, minute: local.minute, style: scheduler.config.announcementStyle.phrase).text)
            )
        }
    }

    /// The settings or the zone changed: what was worked out from them is worked out again.
    mutating func forgetMemos() {
        reminderMemo = nil
        armedTextMemo = nil
        timeMemo = nil
    }

    /// What an instant says, in words: the time (for a boundary) and the reminders due then.
    func instantText(_ instant: Int) -> String {
        let local = CivilTime.local(instant, in: zone)
        let kind = instantKind(instant)
        var words: [String] = []
        if kind.wantsTime {
            words.append(Phrase.forTime(hour: local.hour, minute: local.minute, style: scheduler.config.announcementStyle.phrase).text)
        }
        words += kind.reminders.map { scheduler.config.reminders[$0].label }
        return words.joined(separator: ". ")
    }

    /// `status`'s one line (and systemd's STATUS=).
    public static func line(_ s: StatusReport) -> String {
        var parts = ["driver \(s.driver)"]
        if let next = s.next { parts.append("next \(next.at) \"\(next.text)\"") }
        // The next of each kind, when it is not the next instant itself.
        if let time = s.nextTime, time.at != s.next?.at { parts.append("next time \(time.at) \"\(time.text)\"") }
        if let reminder = s.nextReminder, reminder.at != s.next?.at { parts.append("next reminder \(reminder.at) \"\(reminder.text)\"") }
        if let away = s.away { parts.append("away \(away): reminders pause") }
        parts.append("mute \(s.mute)")
        if let volume = s.volumeNow, volume != s.volume { parts.append("volume now \(volume)%") }
        if s.skipPending { parts.append("skip pending (the next announcement is left out; 'unskip' takes it back)") }
        if let w = s.stateWarning { parts.append("warning: \(w)") }
        if let last = s.last {
            parts.append("last \(last.result)" + (last.onsetErrorMs.map { " (onset \(Format.fixed($0, 3, sign: true)) ms)" } ?? ""))
        }
        parts.append("device \(s.device)")
        parts.append("pack \(s.pack)")
        if let clock = s.clock, clock != "real" { parts.append("clock \(clock) (a demo: not the real time)") }
        return parts.joined(separator: "; ")
    }

    /// After every event: the status if it changed, and the status timer at the next instant the
    /// status changes by itself (a timed mute running out), so no surface shows a stale mute.
    mutating func finish(now: Double, _ out: inout [EngineEffect]) {
        guard started else { return }
        memoize(now: now)
        let s = status(now: now)
        if s != lastStatus {
            lastStatus = s
            out.append(.status(s, line: Self.line(s)))
        }
        var due: Double?
        if case .mutedUntil(let end) = scheduler.state.mute, Double(end) > now { due = Double(end) }
        if due != timers[.status] { setTimer(.status, due, &out) }
    }
}

extension Timeline {
    /// Seconds of sound after the anchor's first sample (how long the announcement is heard after
    /// its instant).
    public var secondsAfterAnchor: Double {
        Double((items.map(\.end).max() ?? 0) - anchorFrame) / Double(format.sampleRate)
    }
}
