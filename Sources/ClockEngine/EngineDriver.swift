import FoundationEssentials
import TalkingClockCore

/// One announcement on an output, as the driver sees it: the ports opened the device and made it
/// (rendering the plan from the pack); the driver starts it, asks how it is going and ends it.
///
/// Contract: every call comes from the driver's thread and returns at once; nothing here waits on
/// the device. Where the device is really written (on the daemon's device thread, or by a test's
/// manual clock) is the ports' business; they call `EngineDriver.pump()` whenever the
/// announcement may have moved on.
public protocol Announcement: AnyObject {
    /// Start writing (its record is being saved; the first sample does not wait for the disk).
    func begin()
    /// Where it is now.
    func progress() -> AnnouncementProgress
    /// Stop it now: nothing more is heard.
    func cut()
    /// The daemon is stopping: what the device holds plays, then a short fade to silence.
    func fadeOut()
}

/// How an announcement is going.
public enum AnnouncementProgress: Sendable, Equatable {
    /// Opened or playing; whether its anchor's first sample has been heard.
    case playing(anchorPlayed: Bool)
    /// Every frame heard; where the anchor landed against its instant (ms, nil if unknown).
    case finished(onsetErrorMs: Double?)
    /// The device failed.
    case failed(String)
    /// The device stopped taking audio, or stopped answering, for the stall limit.
    case stalled(String)
}

/// Everything the engine's effects need from the world, and nothing else: timers keyed by the
/// engine's kinds, the output, the state store, background jobs (look, reload), speech. The daemon
/// has Linux ports (file descriptors, threads); the tests have embedded ports (a manual clock, a
/// recording sink, an in-memory store). Answers come back through `EngineDriver.send` (and
/// `opened`/`pump` for the output), on the driver's thread, now or later.
public protocol EnginePorts: AnyObject {
    /// The daemon's clock (read once per event).
    func now() -> Double
    /// Arms (nil: disarms) the one timer of this kind at a clock instant; when it comes, send
    /// `.timer(kind, clockWasSet:, zone:)`.
    func arm(_ timer: EngineTimer, at instant: Double?)
    /// One bounded look (within `budget` real seconds); answer `.courtesy(boundary:, findings)`.
    func look(boundary: Int, budget: Double)
    /// Render the request from the pack and open its device, off the driver's thread if that can
    /// block; answer `driver.opened(request.id, …)`.
    func open(_ request: PlayRequest)
    /// Duck, pause or restore other programs' sound.
    func media(_ change: MediaChange)
    /// Write the state (the ports may do it later, off the loop; a later save supersedes an earlier
    /// one not yet written); with a request, answer `.saved(request, error:)` once a write that
    /// includes this state has ended.
    func save(_ state: PersistentState, for request: ReplyTo?)
    /// Hand the words to speech-dispatcher; answer `.spoken(id, …)` within a bounded time.
    func speak(id: Int, text: String)
    /// Render `text` with the pack's synthesis engine as clip `clip` (off the driver's thread);
    /// answer `.rendered(id, …)`, and keep the audio for the announcement that plays it.
    func render(id: Int, text: String, clip: String)
    /// Read the config and decode the pack off the loop; answer `.reloaded`.
    func startReload()
    /// The engine adopted new settings (the device, MQTT, discovery follow).
    func adopt(_ config: Config)
    /// Leave the loop with this status.
    func exit(_ status: ExitStatus)
}

/// What the surfaces (the journal, systemd, MQTT) are handed: each keeps the value it is given and
/// never pulls it back from the engine.
public protocol EngineSurface: AnyObject {
    func outcome(_ outcome: Outcome)
    func status(_ report: StatusReport, line: String)
    func log(_ line: LogLine)
}

extension EngineSurface {
    public func outcome(_ outcome: Outcome) {}
    public func status(_ report: StatusReport, line: String) {}
    public func log(_ line: LogLine) {}
}

/// The one executor of the engine's effects: it owns the event queue, reads `now` once per event,
/// carries out every effect through its ports and surfaces, keeps the replies owed, and pumps the
/// announcement playing. The daemon, the simulated year and the engine's simulations all run on it;
/// there is no other copy of this switch.
///
/// Single-threaded: every call comes from one thread (the daemon's loop, a test). Events that an
/// effect causes (a port answering at once) are handled after the current one, in order, never
/// re-entrantly.
public final class EngineDriver {
    public private(set) var engine: ClockEngine
    private let ports: EnginePorts
    public private(set) var surfaces: [EngineSurface]
    private var queue: [EngineEvent] = []
    private var dispatching = false
    private var replies: [ReplyTo: (ControlReply) -> Void] = [:]
    private var nextReplyID = 1
    /// The announcement the ports opened, by id.
    private var playing: (id: Int, announcement: any Announcement)?
    /// Called after each event whose effects changed the zone in effect (the ports re-watch its file).
    public var zoneDidChange: ((Zone) -> Void)?

    public init(engine: ClockEngine, ports: EnginePorts, surfaces: [EngineSurface] = []) {
        self.engine = engine
        self.ports = ports
        self.surfaces = surfaces
    }

    /// Adds a surface (an MQTT room made after start).
    public func attach(_ surface: EngineSurface) { surfaces.append(surface) }

    /// Removes a surface (an MQTT room replaced by a reload).
    public func detach(_ surface: EngineSurface) { surfaces.removeAll { $0 === surface } }

    /// The id of the announcement playing, if the ports opened one.
    public var playingID: Int? { playing?.id }

    /// Hands one event to the engine and carries out its effects.
    public func send(_ event: EngineEvent) {
        queue.append(event)
        guard !dispatching else { return }
        dispatching = true
        defer { dispatching = false }
        while !queue.isEmpty {
            let next = queue.removeFirst()
            let zoneBefore = engine.zone
            for effect in engine.handle(next, now: ports.now()) { execute(effect) }
            if engine.zone != zoneBefore { zoneDidChange?(engine.zone) }
        }
    }

    /// A control request (socket, MQTT); `reply` is called once, now or later, on this thread.
    public func control(_ request: ControlRequest, reply: @escaping (ControlReply) -> Void) {
        let to = ReplyTo(nextReplyID)
        nextReplyID += 1
        replies[to] = reply
        send(.control(request, to))
    }

    /// Where the one-shot run's reply goes (`announce --next` as its own process).
    public func onOneShotReply(_ reply: @escaping (ControlReply) -> Void) { replies[.oneShot] = reply }

    /// The ports opened (or could not open) the announcement `id`.
    public func opened(_ id: Int, _ result: Result<any Announcement, PlaybackFailure>) {
        switch result {
        case .success(let announcement):
            guard engine.playing?.id == id else {
                announcement.cut()  // cut or replaced while it opened
                return
            }
            playing = (id, announcement)
            send(.playback(id: id, .opened))
        case .failure(let failure):
            send(.playback(id: id, .couldNotStart(reason: failure.description)))
        }
    }

    /// The announcement playing may have moved on: ask it, and tell the engine.
    public func pump() {
        guard let (id, announcement) = playing else { return }
        switch announcement.progress() {
        case .playing(let anchorPlayed):
            send(.playback(id: id, .pumped(anchorPlayed: anchorPlayed)))
        case .finished(let onset):
            playing = nil
            send(.playback(id: id, .finished(onsetErrorMs: onset)))
        case .failed(let reason):
            playing = nil
            send(.playback(id: id, .failed(reason: reason)))
        case .stalled(let reason):
            playing = nil
            send(.playback(id: id, .stalled(reason: reason)))
        }
    }

    private func execute(_ effect: EngineEffect) {
        switch effect {
        case .arm(let timer, let at): ports.arm(timer, at: at)
        case .look(let boundary, let budget): ports.look(boundary: boundary, budget: budget)
        case .play(let request): ports.open(request)
        case .speak(let id, let text): ports.speak(id: id, text: text)
        case .render(let id, let text, let clip): ports.render(id: id, text: text, clip: clip)
        case .begin(let id):
            guard let current = playing, current.id == id else { return }
            current.announcement.begin()
            pump()
        case .cut(let id):
            guard let current = playing, current.id == id else { return }
            playing = nil
            current.announcement.cut()
        case .fadeOut(let id):
            guard let current = playing, current.id == id else { return }
            playing = nil
            current.announcement.fadeOut()
        case .media(let change): ports.media(change)
        case .save(let state, let request): ports.save(state, for: request)
        case .reply(let to, let reply):
            if to == .oneShot {
                replies[to]?(reply)
            } else {
                replies.removeValue(forKey: to)?(reply)
            }
        case .outcome(let outcome): for s in surfaces { s.outcome(outcome) }
        case .status(let report, let line): for s in surfaces { s.status(report, line: line) }
        case .startReload: ports.startReload()
        case .adopt(let config): ports.adopt(config)
        case .log(let line): for s in surfaces { s.log(line) }
        case .exit(let status): ports.exit(status)
        }
    }
}

/// Why an announcement could not be opened: the device's sentence (ALSA's call and reason, or
/// that it did not answer in time).
public struct PlaybackFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
