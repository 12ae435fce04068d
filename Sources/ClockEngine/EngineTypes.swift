import FoundationEssentials
import TalkingClockCore

/// What the engine knows of the sound pack in use, as data: its name, how it lays clips out, how
/// long each clip is and what each chime style rings. The shell builds it from the decoded pack
/// (tests from a fixture vocabulary), so the engine is pure by type: it cannot decode or read.
public struct PackFacts: Sendable {
    /// One time of day planned: the words and strikes, and their timeline (frames, the anchor).
    public struct Planned: Sendable {
        public var plan: AnnouncementPlan
        public var timeline: Timeline
        public init(plan: AnnouncementPlan, timeline: Timeline) {
            self.plan = plan
            self.timeline = timeline
        }
    }

    /// What a chime style does with this pack: the pattern it rings (nil for `none`), or why it
    /// cannot be rung (the sentence names the pack and the fix).
    public enum Chime: Sendable {
        case rings(ChimePattern?)
        case cannot(String)
    }

    public var name: String
    /// Where the pack is (for messages).
    public var location: String
    public var layout: PackLayout
    /// Frames of every clip, in the pack's stream format.
    public var clipFrames: [String: Int]
    /// Every chime style, what it does with this pack.
    public var chimes: [ChimeStyle: Chime]
    /// Texts rendered ahead of time by the pack's synthesis engine (the reminders' words), each with
    /// the clip id it plays as; their lengths are in `clipFrames`.
    public var texts: [String: String]
    /// Reminder recordings (`clip = …`), by path as the config gives it: the clip id each plays as.
    public var recordings: [String: String]

    public init(
        name: String, location: String, layout: PackLayout, clipFrames: [String: Int], chimes: [ChimeStyle: Chime],
        texts: [String: String] = [:], recordings: [String: String] = [:]
    ) {
        self.name = name
        self.location = location
        self.layout = layout
        self.clipFrames = clipFrames
        self.chimes = chimes
        self.texts = texts
        self.recordings = recordings
    }

    /// The clip id a rendered text plays as: the same for the same words, in every process.
    public static func clipID(forText text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "text:" + String(h, radix: 16) + ":" + String(text.utf8.count)
    }

    /// `plan` laid out with this pack's clip lengths.
    public func planned(_ plan: AnnouncementPlan) -> Planned {
        Planned(plan: plan, timeline: layout.timeline(for: plan) { clipFrames[$0] ?? 0 })
    }

    /// nil if the pack can ring the chime style, else why not.
    public func chimeProblem(_ style: ChimeStyle) -> String? {
        if case .cannot(let why) = chimes[style] ?? .cannot("sound pack '\(name)' does not know chime \(style.rawValue)") {
            return why
        }
        return nil
    }

    /// Plans `hour:minute` in a style: the words and strikes and their timeline. Throws a sentence
    /// naming what the pack lacks.
    public func plan(_ hour: Int, _ minute: Int, _ style: AnnouncementStyle) throws(PlanFailure) -> Planned {
        let pattern: ChimePattern?
        switch chimes[style.chime] ?? .rings(nil) {
        case .rings(let p): pattern = p
        case .cannot(let why): throw PlanFailure(why)
        }
        let plan: AnnouncementPlan
        do {
            plan = try AnnouncementPlan.make(
                hour: hour, minute: minute, style: style, pattern: pattern, available: Set(clipFrames.keys))
        } catch {
            throw PlanFailure("Sound pack '\(name)' (\(location)): \(error.description)")
        }
        return Planned(plan: plan, timeline: layout.timeline(for: plan) { clipFrames[$0] ?? 0 })
    }
}

/// Why a pack cannot say a time: one sentence naming the pack and what it lacks.
public struct PlanFailure: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A configuration and its pack, adopted together (at start and by a reload).
public struct EngineSettings: Sendable {
    public var config: Config
    public var pack: PackFacts
    /// A problem found while loading that does not refuse the settings (the device cannot be opened now).
    public var warning: String?
    /// Real seconds ahead of an anchor the output must be opened (a network output's end-to-end
    /// latency and start-up: Snapcast's ~3 s); the daemon wakes at least this early.
    public var outputLead: Double
    public init(config: Config, pack: PackFacts, warning: String? = nil, outputLead: Double = 0) {
        self.config = config
        self.pack = pack
        self.warning = warning
        self.outputLead = outputLead
    }
}

/// A reload that could not be adopted: the sentence and the reply kind (its exit status).
public struct SettingsFailure: Error, Sendable, Equatable {
    public var message: String
    public var kind: ControlErrorKind
    public init(_ message: String, kind: ControlErrorKind) {
        self.message = message
        self.kind = kind
    }
}

/// Who a reply goes to: an opaque number the driver maps to a socket client, an MQTT reply topic or
/// the one-shot run itself.
public struct ReplyTo: Hashable, Sendable {
    public var id: Int
    public init(_ id: Int) { self.id = id }
    /// `announce --next` run as its own process: its reply is the command's output and exit status.
    public static let oneShot = ReplyTo(0)
}

/// The engine's timers, by kind. Each is one absolute instant on the daemon's clock, or disarmed;
/// the ports keep one timer per kind, so a new kind needs no change to any shell.
public enum EngineTimer: Hashable, Sendable, CaseIterable {
    /// The wake-up for the boundary armed (its lead and pre-roll before it).
    case boundary
    /// The next instant at which the status changes by itself (a timed mute running out).
    case status
    /// `voice-output = "speech-dispatcher"`: the instant to hand the words over.
    case speech
    /// With `driver = "external"`: the wake-up for the next reminder (boundaries wait for
    /// triggers, reminders keep their own time). With the timer driver, reminders are instants
    /// of the boundary timer.
    case reminder
}

/// Why an announcement ended as it did, or never started: one value with one rendering (`text`)
/// that the log, the reply, MQTT `event`, `status` and the state's `last` all show.
public enum OutcomeReason: Equatable, Sendable {
    /// The scheduler's reason for not speaking a boundary (`muted`, `quiet`, `stale`, …).
    case skipped(SkipReason)
    /// Armed in a zone that changed under it: not a boundary in the zone in effect.
    case zoneChanged
    /// A call or do-not-disturb, as `[courtesy]` says (silent).
    case courtesy(CourtesyReason)
    /// A call or do-not-disturb asks for the chime only, and no chime rings at this minute.
    case courtesyNoChime(CourtesyReason)
    /// A `say` (or an earlier boundary's tail) cut for the boundary at this local time.
    case boundaryDue(String)
    /// The machine slept or the clock was stepped past it while it waited or played.
    case stale
    /// `skip` while it played.
    case skipRequested
    /// A later `say` replaced it.
    case replacedBySay
    /// Muted while it waited for its boundary or played.
    case muted
    /// The daemon was stopped (SIGTERM, SIGINT) while it played.
    case stopping
    /// The device took so long to open that the time would have been said stale.
    case abandoned
    /// The pack cannot say it (the sentence names what is missing).
    case pack(String)
    /// The voice is off and no chime rings.
    case nothingToPlay
    /// The sound device could not be opened or failed (ALSA's sentence).
    case device(String)
    /// The device stopped taking audio, or stopped answering, for the stall limit.
    case stalled(String)
    /// Spoken by handing the words to speech-dispatcher.
    case speechDispatcher
    /// speech-dispatcher did not take the words (not running, refused, or no answer in time).
    case speechDispatcherFailed(String)

    /// The reason in words, the same on every surface (the scheduler's reasons keep their
    /// machine-readable names: `muted`, `already-spoken`, …).
    public var text: String {
        switch self {
        case .skipped(let reason): reason.rawValue
        case .zoneChanged: "zone-changed"
        case .courtesy(let reason): "courtesy: \(reason.text)"
        case .courtesyNoChime(let reason): "courtesy: \(reason.text), and no chime rings now"
        case .boundaryDue(let at): "the boundary \(at) is due"
        case .stale: "stale: the clock moved past it (suspend or clock step)"
        case .skipRequested: "skip requested"
        case .replacedBySay: "replaced by another say"
        case .muted: "muted"
        case .stopping: "the daemon is stopping"
        case .abandoned: "abandoned: the device opened more than late-limit after the boundary"
        case .pack(let sentence), .device(let sentence), .stalled(let sentence): sentence
        case .nothingToPlay: "nothing to play (voice off and no chime)"
        case .speechDispatcher: "speech-dispatcher"
        case .speechDispatcherFailed(let why): why.contains("speech-dispatcher") ? why : "speech-dispatcher: \(why)"
        }
    }

    /// The reply kind (and so the exit status) of anyone waiting on an announcement that ended so.
    public var replyKind: ControlErrorKind {
        switch self {
        case .skipped(.muted), .skipped(.quiet), .skipped(.nothingToPlay), .skipped(.courtesy), .skipped(.away): .muted
        case .skipped: .stale
        case .zoneChanged, .stale, .abandoned: .stale
        case .courtesy, .courtesyNoChime, .boundaryDue, .skipRequested, .replacedBySay, .muted, .nothingToPlay: .muted
        case .stopping: .stale
        case .pack: .pack
        case .device, .stalled, .speechDispatcherFailed: .device
        case .speechDispatcher: .usage
        }
    }

    /// Whether the clock moved under it (a suspend or a clock step): worth a warning in the log.
    public var isStale: Bool {
        switch self {
        case .skipped(.stale), .stale: true
        default: false
        }
    }
}

/// How one announcement ended or why it never started: the one outcome that the log, the reply, MQTT
/// `event` and `state`, and `status` all render.
public struct Outcome: Equatable, Sendable {
    public enum Kind: String, Sendable, Hashable {
        case spoke, skipped, cut, failed
    }
    public var kind: Kind
    /// nil for an on-demand `say`.
    public var boundary: Int?
    /// The local time it was for (RFC 3339).
    public var at: String
    /// The words spoken, or that would have been ("" when not planned).
    public var text: String
    public var reason: OutcomeReason?
    /// Where the anchor's first sample landed against its instant (spoke only).
    public var onsetErrorMs: Double?

    public init(
        _ kind: Kind, boundary: Int?, at: String, text: String = "", reason: OutcomeReason? = nil, onsetErrorMs: Double? = nil
    ) {
        self.kind = kind
        self.boundary = boundary
        self.at = at
        self.text = text
        self.reason = reason
        self.onsetErrorMs = onsetErrorMs
    }

    /// The reply kind for anyone waiting on it (not for `spoke`).
    public var replyKind: ControlErrorKind { reason?.replyKind ?? .usage }

    /// `status`'s and the state's `last.result`: "spoke", "skipped: muted", "cut: stale", "failed: …".
    public var result: String {
        guard let reason else { return kind.rawValue }
        return "\(kind.rawValue): \(reason.text)"
    }

    /// MQTT `event`.
    public var event: AnnouncementEvent {
        let kind: AnnouncementEvent.Kind =
            switch self.kind {
            case .spoke: .spoke
            case .skipped: .skipped
            case .cut: .cut
            case .failed: .failed
            }
        return AnnouncementEvent(
            kind, boundary: boundary == nil ? nil : at, text: text.isEmpty ? nil : text, reason: reason?.text,
            onsetErrorMs: onsetErrorMs)
    }

    /// The state's `last` object.
    public var last: StatusReport.Last {
        StatusReport.Last(result: result, text: text, boundary: boundary == nil ? nil : at, onsetErrorMs: onsetErrorMs)
    }

    /// The reply owed to an `announce` (or the one-shot run) waiting on this boundary.
    public var reply: ControlReply {
        let why = reason?.text
        switch kind {
        case .spoke:
            return .ok("spoke \(at) \"\(text)\"" + (onsetErrorMs.map { " (onset \(Format.fixed($0, 3, sign: true)) ms)" } ?? ""))
        case .skipped: return .error("\(at) not announced: \(why ?? "skipped")", kind: replyKind)
        case .cut: return .error("announcement of \(at) cut: \(why ?? "cut")", kind: replyKind)
        case .failed: return .error("announcement of \(at) failed: \(why ?? "failed")", kind: replyKind)
        }
    }

    /// The journal line: level, constant message, metadata in order.
    public var logLine: LogLine {
        var meta: [(String, String)] = [(boundary == nil ? "say_at" : "boundary", at)]
        if !text.isEmpty { meta.append(("text", text)) }
        if let reason { meta.append(("reason", reason.text)) }
        if let onsetErrorMs { meta.append(("onset_error_ms", Format.fixed(onsetErrorMs, 3))) }
        let stale = reason?.isStale == true
        switch kind {
        case .spoke: return LogLine(.info, "spoke", meta)
        case .skipped: return LogLine(stale ? .warning : .info, "skipped", meta)
        case .cut:
            meta.append(("kind", boundary == nil ? "say" : "boundary"))
            return LogLine(stale ? .warning : .info, "announcement cut", meta)
        case .failed: return LogLine(.error, "announcement failed", meta)
        }
    }
}

/// A journal line as a value: the engine says what happened, the shell writes it.
public struct LogLine: Sendable, Equatable {
    public enum Level: Int, Sendable, Equatable {
        case critical = 2, error = 3, warning = 4, notice = 5, info = 6
    }
    public var level: Level
    public var message: String
    public var metadata: [(String, String)]

    public init(_ level: Level, _ message: String, _ metadata: [(String, String)] = []) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }

    public static func == (a: LogLine, b: LogLine) -> Bool {
        a.level == b.level && a.message == b.message && a.metadata.map { $0.0 + "=" + $0.1 } == b.metadata.map { $0.0 + "=" + $0.1 }
    }

    /// The value of the first metadata entry named `key`.
    public subscript(key: String) -> String? { metadata.first { $0.0 == key }?.1 }
}

/// One announcement to play, planned once by the engine (with the strikes a late wake-up has no
/// time for already left out): the ports render it from the pack, open the output and play it
/// anchored at `anchor` (a clock instant), or at once when `anchor` is nil.
public struct PlayRequest: Sendable {
    public var id: Int
    public var boundary: Int?
    public var anchor: Double?
    public var planned: PackFacts.Planned
    public var gain: Float
    public var local: LocalDateTime
    /// The device it plays on (the config's `device`).
    public var device: String
    /// The words said (the time, the date, reminders), as the log shows them.
    public var text: String
}

/// How playing went, as the driver reports it.
public enum PlaybackReport: Sendable, Equatable {
    /// The device is open and the announcement ready; nothing is written until `.begin`.
    case opened
    /// The device could not be opened (or did not answer in time).
    case couldNotStart(reason: String)
    /// Progress of the announcement playing: whether its anchor has been heard.
    case pumped(anchorPlayed: Bool)
    /// Every frame played; where the anchor landed against its instant.
    case finished(onsetErrorMs: Double?)
    /// The device failed mid-way.
    case failed(reason: String)
    /// The device stopped taking audio, or stopped answering, for the stall limit (a sound server
    /// corking the stream for a call, a suspended sink, a sound server that hangs).
    case stalled(reason: String)
}

/// What the other programs' sound should do around the clock's voice (ducked, paused, left).
public enum MediaChange: Sendable, Equatable {
    /// The announcement starts: duck or pause as planned.
    case begin(MediaPlan)
    /// It ended (finished, cut or failed): restore what `begin` changed.
    case end
}

/// A text rendered for `speak`: its clip id and length in the pack's frames.
public struct RenderedText: Sendable, Equatable {
    public var clip: String
    public var frames: Int
    public init(clip: String, frames: Int) {
        self.clip = clip
        self.frames = frames
    }
}

/// Why a text could not be rendered (the engine's sentence and the fix).
public struct RenderFailure: Error, Sendable, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What handing words to speech-dispatcher came to.
public enum SpeechAnswer: Sendable, Equatable {
    case spoke
    case failed(String)
}

/// Everything that happens to the daemon.
public indirect enum EngineEvent: Sendable {
    /// The loop is ready (the daemon's first event).
    case start
    /// A timer's instant came. `clockWasSet`: the wall clock was stepped (a wall-clock timer is an
    /// absolute CLOCK_REALTIME timer that is cancelled on a step). `zone`: the zone in effect now.
    case timer(EngineTimer, clockWasSet: Bool, zone: Zone)
    /// The zone in effect changed (a watch saw /etc/localtime or the zone file replaced).
    case zoneChanged(Zone)
    case control(ControlRequest, ReplyTo)
    /// About the announcement `id`.
    case playback(id: Int, PlaybackReport)
    /// What the bounded look before `boundary` found (a call, do-not-disturb, media playing).
    case courtesy(boundary: Int, CourtesyFindings)
    /// A state save asked for by `.save(…, for: request)` ended; nil error is success.
    case saved(ReplyTo, error: String?)
    /// A reload's result (read and decoded off the loop).
    case reloaded(Result<EngineSettings, SettingsFailure>, zone: Zone)
    /// speech-dispatcher answered (or did not, in time) for the words of `id`.
    case spoken(id: Int, SpeechAnswer)
    /// The words of a `speak` request `id` were rendered (the frames of clip `clip`, in the
    /// pack's format), or could not be.
    case rendered(id: Int, Result<RenderedText, RenderFailure>)
    /// A new reading of the `[value]` topic (a sensor's state, as text).
    case value(String)
    /// SIGHUP.
    case reloadRequested
    /// SIGTERM or SIGINT.
    case stop
}

/// Everything the engine asks of the world.
public indirect enum EngineEffect: Sendable {
    /// Arm a timer at a clock instant; nil disarms it.
    case arm(EngineTimer, at: Double?)
    /// Look, once and within `budget` real seconds, for a call, do-not-disturb and media playing
    /// before `boundary` (off the loop); answer with `.courtesy`.
    case look(boundary: Int, budget: Double)
    /// Open the device and prepare this announcement (report `.opened` or `.couldNotStart`).
    case play(PlayRequest)
    /// Hand the words to speech-dispatcher now, queued behind what it is saying; answer with
    /// `.spoken(id, …)`.
    case speak(id: Int, text: String)
    /// Render `text` with the pack's synthesis engine off the loop as clip `clip`; answer with
    /// `.rendered(id, …)`.
    case render(id: Int, text: String, clip: String)
    /// Start writing the prepared announcement.
    case begin(id: Int)
    /// Stop the announcement playing now.
    case cut(id: Int)
    /// The daemon is stopping: end the announcement playing with a short fade, not a click.
    case fadeOut(id: Int)
    /// Duck or pause other programs' sound, or restore it.
    case media(MediaChange)
    /// Save the persistent state; with a request, report `.saved` for it. The ports may write off
    /// the loop and later; a later save supersedes an earlier one not yet written.
    case save(PersistentState, for: ReplyTo?)
    case reply(ReplyTo, ControlReply)
    case outcome(Outcome)
    /// The status changed: every surface (systemd STATUS, MQTT state) shows this one value.
    case status(StatusReport, line: String)
    /// Read the config and decode the pack off the loop; answer with `.reloaded`.
    case startReload
    /// New settings are in effect (the device, MQTT and the warm device follow them).
    case adopt(Config)
    case log(LogLine)
    /// Leave the loop with this status.
    case exit(ExitStatus)
}
