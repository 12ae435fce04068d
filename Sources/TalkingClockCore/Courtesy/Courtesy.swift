import FoundationEssentials

/// What one look at the desktop found, just before a boundary (see `Desktop.CourtesyLook`). Plain
/// values: the edge fills them in, `CourtesyPolicy` decides. A part of the look that ran out of
/// time or found no peer (no session bus, no sound server) simply found nothing.
public struct CourtesyFindings: Hashable, Sendable, Codable {
    /// A stream on the sound server that means a call is in progress.
    public struct Call: Hashable, Sendable, Codable {
        /// The stream's `application.name` (or its name when it has none).
        public var application: String
        /// Its `media.role`: "phone" (PulseAudio) or "communication"/"Communication" (PipeWire).
        public var role: String
        public init(application: String, role: String) {
            self.application = application
            self.role = role
        }
    }

    /// Where do-not-disturb was seen.
    public enum DoNotDisturbSource: String, Hashable, Sendable, Codable {
        /// GNOME: `org.gnome.desktop.notifications show-banners` is false.
        case gnomeShowBanners = "gnome-show-banners"
        /// `org.freedesktop.Notifications` `Inhibited` is true (KDE Plasma).
        case notificationsInhibited = "notifications-inhibited"
    }

    /// A sink input that is playing (not corked) on the sound server.
    public struct Stream: Hashable, Sendable, Codable {
        public var index: UInt32
        public var application: String
        public var role: String?
        public init(index: UInt32, application: String, role: String? = nil) {
            self.index = index
            self.application = application
            self.role = role
        }
    }

    /// The first call found, if any.
    public var call: Call?
    /// Where do-not-disturb was found on, if it was.
    public var doNotDisturb: DoNotDisturbSource?
    /// MPRIS bus names whose `PlaybackStatus` is "Playing".
    public var playingPlayers: [String] = []
    /// Sink inputs that are playing (the candidates for ducking).
    public var playingStreams: [Stream] = []
    /// Whether speech-dispatcher answered (the `voice-output = "speech-dispatcher"` path can work).
    public var speechDispatcher = false
    /// The parts of the look that did not finish within the budget ("sound server", "session bus").
    public var timedOut: [String] = []

    public init(
        call: Call? = nil, doNotDisturb: DoNotDisturbSource? = nil, playingPlayers: [String] = [],
        playingStreams: [Stream] = [], speechDispatcher: Bool = false, timedOut: [String] = []
    ) {
        self.call = call
        self.doNotDisturb = doNotDisturb
        self.playingPlayers = playingPlayers
        self.playingStreams = playingStreams
        self.speechDispatcher = speechDispatcher
        self.timedOut = timedOut
    }

    /// Nothing found: what a headless machine, or a look that timed out, gives.
    public static let nothing = CourtesyFindings()

    /// Whether any other program is making sound.
    public var mediaPlaying: Bool { !playingPlayers.isEmpty || !playingStreams.isEmpty }
}

/// Why the clock is quieter than usual at a boundary.
public enum CourtesyReason: Hashable, Sendable {
    case call(CourtesyFindings.Call)
    case doNotDisturb(CourtesyFindings.DoNotDisturbSource)

    /// The reason as `status`, `schedule` and the log show it: "call (Zoom, phone)",
    /// "do-not-disturb (gnome-show-banners)".
    public var text: String {
        switch self {
        case .call(let call): "call (\(call.application), \(call.role))"
        case .doNotDisturb(let source): "do-not-disturb (\(source.rawValue))"
        }
    }
}

/// What to do with other programs' sound during the announcement.
public enum MediaPlan: Hashable, Sendable {
    /// Nothing is playing, or `media = "ignore"`.
    case leave
    /// Lower these sink inputs to `percent` of their volume, restore them after.
    case duck(streams: [UInt32], percent: Int)
    /// Pause these MPRIS players, resume those still paused after.
    case pause(players: [String])
}

/// The decision for one boundary.
public enum CourtesyDecision: Hashable, Sendable {
    case speak(MediaPlan)
    case chimeOnly(CourtesyReason, MediaPlan)
    case skip(CourtesyReason)

    /// "speak", "chime-only: call (…)", "skip: do-not-disturb (…)".
    public var text: String {
        switch self {
        case .speak: "speak"
        case .chimeOnly(let reason, _): "chime-only: \(reason.text)"
        case .skip(let reason): "skip: \(reason.text)"
        }
    }

    public var media: MediaPlan {
        switch self {
        case .speak(let plan), .chimeOnly(_, let plan): plan
        case .skip: .leave
        }
    }
}

/// The pure decision: findings and the `[courtesy]` settings in, what the clock does out.
public enum CourtesyPolicy {
    /// A call and do-not-disturb each ask for their configured action; the quieter one wins (skip,
    /// then chime-only, then speak), the call on a tie. Media is ducked or paused for a chime-only
    /// announcement too (the chime is sound), never for a skipped one.
    public static func decide(_ findings: CourtesyFindings, _ config: CourtesyConfig) -> CourtesyDecision {
        var strictest: (action: CourtesyAction, reason: CourtesyReason)?
        if let call = findings.call {
            strictest = (config.call, .call(call))
        }
        if let source = findings.doNotDisturb, config.doNotDisturb.isQuieter(than: strictest?.action ?? .speak) {
            strictest = (config.doNotDisturb, .doNotDisturb(source))
        }
        let media = mediaPlan(findings, config)
        guard let strictest, strictest.action != .speak else { return .speak(media) }
        return strictest.action == .skip ? .skip(strictest.reason) : .chimeOnly(strictest.reason, media)
    }

    static func mediaPlan(_ findings: CourtesyFindings, _ config: CourtesyConfig) -> MediaPlan {
        switch config.media {
        case .ignore:
            return .leave
        case .duck:
            // 100 % is no ducking at all: nothing to change, nothing to restore.
            guard !findings.playingStreams.isEmpty, config.duckPercent < 100 else { return .leave }
            return .duck(streams: findings.playingStreams.map(\.index), percent: config.duckPercent)
        case .pause:
            guard !findings.playingPlayers.isEmpty else { return .leave }
            return .pause(players: findings.playingPlayers)
        }
    }
}
