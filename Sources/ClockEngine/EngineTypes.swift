import FoundationEssentials
import TalkingClockCore

/// What the engine knows of the sound pack in use: its name and how it plans one time of day.
/// A value the shell builds from the decoded pack (tests build it from a fixture vocabulary), so
/// the engine never touches a file or a decoder.
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

    public var name: String
    /// Plans `hour:minute` in a style; throws a sentence naming what the pack lacks.
    public var plan: @Sendable (_ hour: Int, _ minute: Int, _ style: AnnouncementStyle) throws -> Planned
    /// nil if the pack can ring the chime style, else why not.
    public var chimeProblem: @Sendable (ChimeStyle) -> String?

    public init(
        name: String, plan: @escaping @Sendable (Int, Int, AnnouncementStyle) throws -> Planned,
        chimeProblem: @escaping @Sendable (ChimeStyle) -> String?
    ) {
        self.name = name
        self.plan = plan
        self.chimeProblem = chimeProblem
    }
}

/// A configuration and its pack, adopted together (at start and by a reload).
public struct EngineSettings: Sendable {
    public var config: Config
    public var pack: PackFacts
    /// A problem found while loading that does not refuse the settings (the device cannot be opened now).
    public var warning: String?
    public init(config: Config, pack: PackFacts, warning: String? = nil) {
        self.config = config
        self.pack = pack
        self.warning = warning
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

/// Who a reply goes to: an opaque number the shell maps to a socket client, an MQTT reply topic or
/// the one-shot run itself.
public struct ReplyTo: Hashable, Sendable {
    public var id: Int
    public init(_ id: Int) { self.id = id }
    /// `announce --next` run as its own process: its reply is the command's output and exit status.
    public static let oneShot = ReplyTo(0)
}

/// The engine's timers. Each is one absolute instant on the daemon's clock, or disarmed.
public enum EngineTimer: Hashable, Sendable {
    /// The wake-up for the boundary armed (its lead and pre-roll before it).
    case boundary
    /// The next instant at which the status changes by itself (a timed mute running out).
    case status
}

/// How one announcement ended or why it never started: the one outcome that the log, the reply, MQTT
/// `event` and `state`, and `status` all render.
public struct Outcome: Hashable, Sendable {
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
    /// The scheduler's reason (`muted`, `stale`, …) or a sentence.
    public var reason: String?
    /// Where the anchor's first sample landed against its instant (spoke only).
    public var onsetErrorMs: Double?
    /// The reply kind for anyone waiting on it (not for `spoke`).
    public var replyKind: ControlErrorKind

    public init(
        _ kind: Kind, boundary: Int?, at: String, text: String = "", reason: String? = nil, onsetErrorMs: Double? = nil,
        replyKind: ControlErrorKind = .usage
    ) {
        self.kind = kind
        self.boundary = boundary
        self.at = at
        self.text = text
        self.reason = reason
        self.onsetErrorMs = onsetErrorMs
        self.replyKind = replyKind
    }

    /// `status`'s and the state's `last.result`: "spoke", "skipped: muted", "cut: stale", "failed: …".
    public var result: String {
        guard let reason else { return kind.rawValue }
        return "\(kind.rawValue): \(reason)"
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
            kind, boundary: boundary == nil ? nil : at, text: text.isEmpty ? nil : text, reason: reason,
            onsetErrorMs: onsetErrorMs)
    }

    /// The state's `last` object.
    public var last: StatusReport.Last {
        StatusReport.Last(result: result, text: text, boundary: boundary == nil ? nil : at, onsetErrorMs: onsetErrorMs)
    }

    /// The reply owed to an `announce` (or the one-shot run) waiting on this boundary.
    public var reply: ControlReply {
        switch kind {
        case .spoke:
            return .ok("spoke \(at) \"\(text)\"" + (onsetErrorMs.map { " (onset \(Format.fixed($0, 3, sign: true)) ms)" } ?? ""))
        case .skipped: return .error("\(at) not announced: \(reason ?? "skipped")", kind: replyKind)
        case .cut: return .error("announcement of \(at) cut: \(reason ?? "cut")", kind: replyKind)
        case .failed: return .error("announcement of \(at) failed: \(reason ?? "failed")", kind: replyKind)
        }
    }

    /// The journal line: level, constant message, metadata in order.
    public var logLine: LogLine {
        var meta: [(String, String)] = [(boundary == nil ? "say_at" : "boundary", at)]
        if !text.isEmpty { meta.append(("text", text)) }
        if let reason { meta.append(("reason", reason)) }
        if let onsetErrorMs { meta.append(("onset_error_ms", Format.fixed(onsetErrorMs, 3))) }
        switch kind {
        case .spoke: return LogLine(.info, "spoke", meta)
        case .skipped: return LogLine(reason == SkipReason.stale.rawValue ? .warning : .info, "skipped", meta)
        case .cut:
            meta.append(("kind", boundary == nil ? "say" : "boundary"))
            return LogLine(reason?.hasPrefix("stale") == true ? .warning : .info, "announcement cut", meta)
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
}

/// One announcement to play, planned once: the shell renders it, opens the device and plays it
/// anchored at `anchor` (a clock instant), or at once when `anchor` is nil.
public struct PlayRequest: Sendable {
    public var id: Int
    public var boundary: Int?
    public var anchor: Double?
    public var planned: PackFacts.Planned
    public var gain: Float
    public var local: LocalDateTime
    /// What to do with other programs' sound while it plays (duck, pause, leave).
    public var media: MediaPlan = .leave
    public var text: String { planned.plan.phrase.text }
}

/// How playing went, as the shell reports it.
public enum PlaybackReport: Sendable, Equatable {
    /// The device is open and the session made; nothing is written until `.begin`.
    case opened
    /// The device could not be opened (or the plan could not be rendered).
    case couldNotStart(reason: String, kind: ControlErrorKind)
    /// One pump of the session: whether the anchor has been written.
    case pumped(anchorPlayed: Bool)
    /// Every frame played; where the anchor landed against its instant.
    case finished(onsetErrorMs: Double?)
    /// The device failed mid-way.
    case failed(reason: String)
    /// The device stopped taking audio for the stall limit (a sound server corking the stream
    /// for a call, a suspended sink).
    case stalled(reason: String)
}

/// Everything that happens to the daemon.
public indirect enum EngineEvent: Sendable {
    /// The loop is ready (the daemon's first event).
    case start
    /// A timer's instant came. `clockWasSet`: the wall clock was stepped (the boundary timer is an
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
    /// SIGHUP.
    case reloadRequested
    /// SIGTERM or SIGINT.
    case stop
}

/// Everything the engine asks of the world.
public indirect enum EngineEffect: Sendable {
    /// Arm a timer at a clock instant; nil disarms it.
    case arm(EngineTimer, at: Double?)
    /// Look, once and within a bounded time, for a call, do-not-disturb and media playing before
    /// `boundary` (off the loop); answer with `.courtesy`.
    case look(boundary: Int)
    /// Open the device and prepare this announcement (report `.opened` or `.couldNotStart`).
    case play(PlayRequest)
    /// `voice-output = "speech-dispatcher"`: hand the words to the screen reader's speech server
    /// at this clock instant (nil: now), queued behind what it is saying.
    case speakText(String, at: Double?)
    /// Start writing the prepared announcement (after its record was saved).
    case begin(id: Int)
    /// Stop the announcement playing now (its remaining clips report interrupted).
    case cut(id: Int)
    /// The daemon is stopping: end the announcement playing with a short fade, not a click.
    case fadeOut(id: Int)
    /// Save the persistent state; with a request, report `.saved` for it.
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
