import ClockEngine
import Playback
import TalkingClockCore

/// A device a test plays by hand: it records or counts what is written and `advance(frames:)`
/// plays frames (its delay goes down).
public protocol SimulatedDevice: AudioSink {
    func advance(frames: Int)
}

extension RecordingSink: SimulatedDevice {}

/// The engine's embedded ports (swift-nio's `EmbeddedChannel` for the clock): the real
/// `EngineDriver` and `ClockEngine` run against a manual clock, a simulated device played period by
/// period, an in-memory state store, and scripted looks, reloads and speech. Every effect is
/// recorded; nothing happens until the test moves the clock (`advance(to:)`, or its own world
/// through `fire`, `runDue` and `playPeriod`).
///
/// Each port can be made slow (`…Latency`, in clock seconds: its answer comes that much later) or
/// failing, which is how tests put a slow disk, a hung peer or a missing device under the daemon's
/// own decisions.
public final class EmbeddedPorts: EnginePorts {
    /// Held weakly (the driver holds the ports): the test keeps the driver `start` returns.
    public private(set) weak var driver: EngineDriver?
    private let clock: () -> Double
    /// The zone the world is in (sent with every timer event).
    public var zone: Zone

    // MARK: What the test sets

    /// The output: the device each announcement opens (nil: the open fails with `openFailure`).
    public var makeDevice: (StreamFormat) -> (any SimulatedDevice)?
    public var openFailure = "the sound device \"simulated\" cannot be opened (scripted)"
    /// Clock seconds before an open answers.
    public var openLatency = 0.0
    /// The sound of each clip (`Mixer.render`'s clips); by default a constant per clip.
    public var clipSound: (String) -> ClipSamples? = { _ in .float([Float](repeating: 0.5, count: 1)) }
    /// Clock seconds a state write takes, and the error it ends with (nil: it succeeds).
    public var saveLatency = 0.0
    public var saveFailure: String?
    /// What a courtesy look finds, and how long it takes.
    public var findings = CourtesyFindings.nothing
    public var lookLatency = 0.0
    /// What a reload loads, and how long it takes (`holdReloads`: until `releaseReload()`).
    public var reload: () -> Result<EngineSettings, SettingsFailure>
    public var reloadLatency = 0.0
    public var holdReloads = false
    /// Writes the state somewhere real too (a `StateStore`), as each write ends; a throw fails it.
    public var persist: ((PersistentState) throws -> Void)?
    /// Keep every announcement, write, look and line (false: only the current announcement, for
    /// runs so long that the histories would be measured as memory growth).
    public var keepsHistory = true {
        didSet { surface.keepsHistory = keepsHistory }
    }
    /// Called when an announcement is opened (the world starts playing its device).
    public var onOpen: (EmbeddedAnnouncement) -> Void = { _ in }
    /// What speech-dispatcher does with words, and how long it takes.
    public var speech: (String) -> SpeechAnswer = { _ in .spoke }
    public var speechLatency = 0.0
    /// How a `speak`'s words render (their frames, or why not), and how long it takes.
    public var renderText: (String) -> Result<Int, RenderFailure> = { .success(max(1, $0.utf8.count * 5)) }
    public var renderLatency = 0.0

    // MARK: What happened

    public private(set) var armed: [EngineTimer: Double] = [:]
    /// Every announcement opened, in order.
    public private(set) var announcements: [EmbeddedAnnouncement] = []
    /// The state as the store holds it (the last write that ended well), and every write.
    public private(set) var stored: PersistentState?
    public private(set) var writes: [PersistentState] = []
    public private(set) var looks: [(boundary: Int, budget: Double)] = []
    public private(set) var spokenTexts: [String] = []
    /// Every text a `speak` asked to render.
    public private(set) var renderedTexts: [String] = []
    public private(set) var media: [MediaChange] = []
    public private(set) var reloads = 0
    public private(set) var adopted: [Config] = []
    public private(set) var exitStatus: ExitStatus?
    public let surface = RecordingSurface()

    /// Answers that come later (a slow disk, a slow look), in clock order.
    private var due: [(at: Double, seq: Int, action: () -> Void)] = []
    private var seq = 0
    private var writing = false
    private var waitingSaves: (state: PersistentState, requests: [ReplyTo])?

    public init(
        now: @escaping () -> Double, zone: Zone, settings: EngineSettings,
        makeDevice: @escaping (StreamFormat) -> (any SimulatedDevice)? = { RecordingSink(format: $0, capacity: 200, periodFrames: 20) }
    ) {
        clock = now
        self.zone = zone
        self.makeDevice = makeDevice
        reload = { .success(settings) }
    }

    /// Ports on a `ManualClock` the test owns; `advance(to:)` moves it.
    public convenience init(
        clock: ManualClock, zone: Zone, settings: EngineSettings,
        makeDevice: @escaping (StreamFormat) -> (any SimulatedDevice)? = { RecordingSink(format: $0, capacity: 200, periodFrames: 20) }
    ) {
        self.init(now: { clock.now }, zone: zone, settings: settings, makeDevice: makeDevice)
        manual = clock
    }

    /// The clock `advance(to:)` moves (set by the `clock:` initialiser).
    public private(set) var manual: ManualClock?

    /// Makes the driver over `engine`, with the recording surface (and `surfaces`).
    public func start(_ engine: ClockEngine, surfaces: [EngineSurface] = []) -> EngineDriver {
        let driver = EngineDriver(engine: engine, ports: self, surfaces: [surface] + surfaces)
        self.driver = driver
        return driver
    }

    // MARK: EnginePorts

    public func now() -> Double { clock() }

    public func arm(_ timer: EngineTimer, at instant: Double?) { armed[timer] = instant }

    public func look(boundary: Int, budget: Double) {
        if keepsHistory { looks.append((boundary, budget)) }
        let findings = self.findings
        later(lookLatency) { [unowned self] in self.driver?.send(.courtesy(boundary: boundary, findings)) }
    }

    public func open(_ request: PlayRequest) {
        later(openLatency) { [unowned self] in
            guard let device = self.makeDevice(request.planned.timeline.format) else {
                self.driver?.opened(request.id, .failure(PlaybackFailure(self.openFailure)))
                return
            }
            let a = EmbeddedAnnouncement(request: request, device: device, clips: self.clipSound, clock: self.clock)
            if !self.keepsHistory { self.announcements.removeAll() }
            self.announcements.append(a)
            self.onOpen(a)
            self.driver?.opened(request.id, .success(a))
        }
    }

    public func media(_ change: MediaChange) { if keepsHistory { media.append(change) } }

    /// One write at a time, always the newest state; a request is answered by the first write that
    /// started after it (as the daemon's state writer does).
    public func save(_ state: PersistentState, for request: ReplyTo?) {
        var waiting = waitingSaves ?? (state, [])
        waiting.state = state
        if let request { waiting.requests.append(request) }
        waitingSaves = waiting
        writeNext()
    }

    private func writeNext() {
        guard !writing, let (state, requests) = waitingSaves else { return }
        waitingSaves = nil
        writing = true
        later(saveLatency) { [unowned self] in
            self.writing = false
            var failure = self.saveFailure
            if failure == nil, let persist = self.persist {
                do { try persist(state) } catch { failure = "\(error)" }
            }
            if failure == nil {
                self.stored = state
                if self.keepsHistory { self.writes.append(state) }
            }
            for r in requests { self.driver?.send(.saved(r, error: failure)) }
            self.writeNext()
        }
    }

    public func speak(id: Int, text: String) {
        if keepsHistory { spokenTexts.append(text) }
        let result = speech(text)
        later(speechLatency) { [unowned self] in self.driver?.send(.spoken(id: id, result)) }
    }

    public func render(id: Int, text: String, clip: String) {
        if keepsHistory { renderedTexts.append(text) }
        let result = renderText(text).map { RenderedText(clip: clip, frames: $0) }
        later(renderLatency) { [unowned self] in self.driver?.send(.rendered(id: id, result)) }
    }

    public func startReload() {
        reloads += 1
        let result = reload()
        if holdReloads {
            heldReload = result
            return
        }
        later(reloadLatency) { [unowned self] in self.driver?.send(.reloaded(result, zone: self.zone)) }
    }

    /// A reload held by `holdReloads`, waiting for `releaseReload()`.
    public private(set) var heldReload: Result<EngineSettings, SettingsFailure>?

    /// The held reload's files are read and its pack decoded: its result reaches the engine now.
    public func releaseReload() {
        guard let result = heldReload else { return }
        heldReload = nil
        driver?.send(.reloaded(result, zone: zone))
    }

    public func adopt(_ config: Config) { adopted.append(config) }

    public func exit(_ status: ExitStatus) { exitStatus = status }

    // MARK: Driving it

    /// The timer of this kind comes now (the world decided so: its instant passed, or the clock
    /// was set under it).
    public func fire(_ timer: EngineTimer, clockWasSet: Bool = false) {
        if !clockWasSet { armed[timer] = nil }
        driver?.send(.timer(timer, clockWasSet: clockWasSet, zone: zone))
    }

    /// Answers whose time has come.
    public func runDue() {
        while let first = due.first, first.at <= clock() {
            due.removeFirst()
            first.action()
        }
    }

    /// The earliest instant something is due: an armed timer or a late answer.
    public var nextDue: Double? {
        ([due.first?.at] + armed.values.map { Optional($0) }).compactMap { $0 }.min()
    }

    /// The device playing plays `frames`, and the driver hears how it goes.
    public func playPeriod(frames: Int) {
        guard let playing = playing else { return }
        playing.device.advance(frames: frames)
        driver?.pump()
    }

    /// The announcement the driver is playing (begun, not yet over).
    public var playing: EmbeddedAnnouncement? {
        guard let id = driver?.playingID else { return nil }
        return announcements.last { $0.request.id == id }
    }

    /// Moves the manual clock to `instant`: every timer and late answer due on the way comes in
    /// clock order, and the device plays `period` seconds of frames at a time while an announcement
    /// plays.
    public func advance(to instant: Double, period: Double = 0.02) {
        guard let manual else { preconditionFailure("advance(to:) needs the clock: initialiser") }
        while true {
            runDue()
            let timer = armed.min { $0.value < $1.value }
            let pumpAt = playing.flatMap { $0.begun ? manual.now + period : nil }
            let next = [timer?.value, due.first?.at, pumpAt].compactMap { $0 }.min()
            guard let next, next <= instant else {
                _ = manual.advance(to: instant)
                runDue()
                return
            }
            _ = manual.advance(to: next)
            if let timer, timer.value <= next {
                fire(timer.key)
            } else if let playing, pumpAt == next {
                playPeriod(frames: max(1, Int((period * Double(playing.request.planned.timeline.format.sampleRate)).rounded())))
            }
        }
    }

    /// Sends a control request; returns the reply if it came at once.
    @discardableResult
    public func control(_ request: ControlRequest) -> ControlReply? {
        var reply: ControlReply?
        driver?.control(request) { reply = $0 }
        return reply
    }

    /// Sends a control request; its reply goes to `into` whenever it comes.
    public func control(_ request: ControlRequest, into: @escaping (ControlReply) -> Void) {
        driver?.control(request, reply: into)
    }

    private func later(_ seconds: Double, _ action: @escaping () -> Void) {
        guard seconds > 0 else { return action() }
        seq += 1
        due.append((clock() + seconds, seq, action))
        due.sort { ($0.at, $0.seq) < ($1.at, $1.seq) }
    }
}

/// An announcement on a simulated device, pumped on the test's thread as the device plays.
public final class EmbeddedAnnouncement: Announcement {
    public let request: PlayRequest
    public let device: any SimulatedDevice
    public let session: PlaybackSession
    public private(set) var begun = false
    public private(set) var cutAt: Double?
    public private(set) var fading = false
    private let clock: () -> Double
    private var result: AnnouncementProgress?

    init(request: PlayRequest, device: any SimulatedDevice, clips: (String) -> ClipSamples?, clock: @escaping () -> Double) {
        self.request = request
        self.device = device
        self.clock = clock
        let timeline = request.planned.timeline
        let pcm = Mixer.render(timeline, gain: request.gain) { clip in
            guard let sound = clips(clip) else { return nil }
            // One value per clip, stretched over the clip's length.
            let frames = timeline.items.first { $0.clip == clip }?.frames ?? 0
            if case .float(let samples) = sound, samples.count == 1 {
                return .float([Float](repeating: samples[0], count: frames * timeline.format.channels))
            }
            return sound
        }
        session = PlaybackSession(sink: device, timeline: timeline, pcm: pcm, anchorAt: request.anchor, clock: clock)
    }

    public func begin() { begun = true }

    public func progress() -> AnnouncementProgress {
        if let result { return result }
        guard begun else { return .playing(anchorPlayed: false) }
        switch session.pump() {
        case .wait: return .playing(anchorPlayed: session.anchorPlayed)
        case .done:
            if let failure = session.failure {
                result = failure.kind == .stalled ? .stalled(failure.description) : .failed(failure.description)
            } else {
                let onset = zip(session.predictedAnchorTime, request.anchor).map { ($0 - $1) * 1000 }
                result = .finished(onsetErrorMs: onset)
            }
            return result!
        }
    }

    public func cut() {
        cutAt = clock()
        session.cancel()
        result = .failed("cut")
    }

    public func fadeOut() {
        fading = true
        session.fadeOut(frames: request.planned.timeline.format.sampleRate / 20)
    }

    /// When the anchor's first sample is heard, by the device's own accounting (nil: not yet).
    public var anchorHeard: Double? { session.predictedAnchorTime }
}

/// Every outcome, status and log line the engine made known, in order.
public final class RecordingSurface: EngineSurface {
    public private(set) var outcomes: [Outcome] = []
    public private(set) var statuses: [StatusReport] = []
    public private(set) var lines: [LogLine] = []
    /// false: keep only the last of each.
    public var keepsHistory = true
    public init() {}
    public func outcome(_ outcome: Outcome) { keep(&outcomes, outcome) }
    public func status(_ report: StatusReport, line: String) { keep(&statuses, report) }
    public func log(_ line: LogLine) { keep(&lines, line) }
    private func keep<T>(_ list: inout [T], _ value: T) {
        if !keepsHistory { list.removeAll(keepingCapacity: true) }
        list.append(value)
    }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
