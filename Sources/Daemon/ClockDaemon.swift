import ConfigFiles
import ALSAOutput
import ClockEngine
import CLinux
import FoundationEssentials
import Glibc
import Playback
import TalkingClockCore

/// The user daemon's shell: it owns the file descriptors (the event loop, its timers and signals,
/// the zone watches, the control socket, MQTT, the sound device) and executes what the pure
/// `ClockEngine` decides. Every decision is the engine's; nothing here waits on the network or
/// a file that can be slow (a reload reads and decodes off the loop).
public final class ClockDaemon {
    /// The announcement the engine asked to play, as the shell holds it.
    struct Session {
        var id: Int
        var session: PlaybackSession
        var sink: any AudioSink
        var anchorReal: Double?
        var watched: [Int32] = []
        var deviceEventsOn = false
    }

    private var options: DaemonOptions
    private let logger = JournalLog()
    private let loop: EventLoop
    /// nil: the state lives in memory only (see `DaemonOptions.stateDirectory`).
    private let store: StateStore?
    /// Held for the daemon's lifetime: one daemon per state directory (see `singleInstanceLock`).
    private let stateLock: StateLock?
    private let notifier = SystemdNotifier()
    private var engine: ClockEngine
    private var settings: LoadedSettings
    /// A reload's settings, from the moment it lands until the engine adopts them.
    private var arriving: LoadedSettings?
    private var server: ControlServer?
    private let boundaryTimer: TimerFD
    private let statusTimer: TimerFD
    private let playbackTimer: TimerFD
    private let signals: SignalFD
    /// Only when systemd asks for watchdog pings: every half `WatchdogSec`.
    private let watchdogTimer: TimerFD
    /// Wakes the loop when /etc/localtime or /etc/timezone is replaced (nil if it cannot watch).
    private let zoneWatcher: ZoneWatcher?
    /// Wakes the loop when the zone file in use is replaced (a `tzdata` update).
    private var zoneFileWatcher: ZoneWatcher?
    private let outputs = Outputs()
    private var playing: Session?
    /// What the announcement playing does to other programs' sound.
    private var playingMedia: MediaPlan = .leave
    private let reloader: BackgroundJob<Result<(LoadedSettings, Zone), DaemonStartError>>
    private var replies: [Int: (ControlReply) -> Void] = [:]
    private var nextReplyID = 1
    private var queue: [EngineEvent] = []
    private var dispatching = false
    private var exited = false
    private var exitStatus: ExitStatus = .ok
    /// The room on the MQTT broker; nil without an `[mqtt]` table (then no MQTT code runs).
    private var mqtt: MQTTRoom?
    /// The look, ducking or pausing, and speech-dispatcher (nil for a one-shot run: it only speaks).
    private let courtesy: CourtesyEdges
    /// `voice-output = "speech-dispatcher"`: the words handed over at their instant.
    private let speechTimer: TimerFD
    private var speechDue: String?

    public var driver: Driver { engine.driver }

    public init(options: DaemonOptions) throws(DaemonStartError) {
        self.options = options
        let loaded = try Self.loadSettings(options, checkDevice: false)
        settings = loaded
        // Before any thread exists: the clock's own stream is labelled (and given the configured
        // media.role), so users can route or duck it in PulseAudio/WirePlumber.
        StreamLabel.apply(role: loaded.config.courtesy.role, environment: ProcessInfo.processInfo.environment)
        if let directory = options.stateDirectory {
            let store = StateStore(directory: directory)
            try? store.prepareDirectory()  // a directory that cannot be made is reported when saving
            stateLock = try StateLock.singleInstance(stateDirectory: directory.path)
            self.store = store
        } else {
            stateLock = nil
            store = nil
        }
        let (state, warning) = store?.load() ?? (PersistentState(), nil)
        do {
            loop = try EventLoop()
            boundaryTimer = try TimerFD(realtime: options.clock.followsWallClock)
            statusTimer = try TimerFD(realtime: options.clock.followsWallClock)
            playbackTimer = try TimerFD(realtime: false)
            // The signals systemd, a terminal or a stray `kill` send: none may end the clock
            // without its goodbye (USR1/USR2/ALRM/QUIT are logged and ignored).
            signals = try SignalFD(signals: [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGQUIT])
            watchdogTimer = try TimerFD(realtime: false)
            speechTimer = try TimerFD(realtime: options.clock.followsWallClock)
            zoneWatcher = try? ZoneWatcher()
            reloader = try BackgroundJob(loop: loop)
            courtesy = try CourtesyEdges(loop: loop, logger: logger, stateDirectory: options.stateDirectory)
        } catch {
            throw DaemonStartError(status: .internalError, description: error.description)
        }
        let zone = loaded.config.zone ?? ((try? ZoneResolver.resolve(explicit: nil)) ?? .utc)
        engine = ClockEngine(
            options: ClockEngine.Options(
                driver: options.driver, oneShot: options.oneShot, maxWait: options.maxWait, lead: options.lead,
                rate: options.clock.rate),
            settings: loaded.engineSettings, state: state, stateWarning: warning, zone: zone)
        if let warning { logger.warning("state file unreadable", metadata: ["detail": "\(warning)"]) }
        if let path = options.socketPath, !options.oneShot {
            do {
                server = try ControlServer(path: path, loop: loop) { [unowned self] line, reply in
                    self.control(line, reply)
                    return nil
                }
            } catch {
                throw DaemonStartError(status: .badInput, description: "Could not start the control socket: \(error.description)")
            }
        }
        if let mqttSettings = loaded.mqtt { mqtt = try makeRoom(mqttSettings) }
    }

    private func makeRoom(_ settings: MQTTSettings) throws(DaemonStartError) -> MQTTRoom {
        try MQTTRoom(
            settings: settings, loop: loop, logger: logger,
            state: { [unowned self] in self.engine.status(now: self.options.clock.now()).json },
            execute: { [unowned self] line, _ in
                // Answered through the room in effect when the answer comes: a `reload` that
                // replaced the room (a changed [mqtt] table) answers through the new one.
                self.control(line) { [weak self] text in self?.mqtt?.replyWhenConnected(text) }
            })
    }

    // MARK: - Running

    /// Runs until SIGTERM/SIGINT (daemon) or until the one announcement is decided (one-shot).
    public func run() -> ExitStatus {
        // A log reader that goes away (`run … | head`) must never stop the clock.
        signal(SIGPIPE, SIG_IGN)
        // --fake-clock T means T when the daemon is ready, not when the process started.
        options.clock = options.clock.startingNow()
        do {
            try loop.watch(boundaryTimer.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                self.timerFired(.boundary, self.boundaryTimer)
            }
            try loop.watch(statusTimer.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                self.timerFired(.status, self.statusTimer)
            }
            try loop.watch(playbackTimer.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                _ = self.playbackTimer.read()
                self.pumpPlayback()
            }
            try loop.watch(signals.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in self.handleSignals() }
            try loop.watch(speechTimer.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                guard self.speechTimer.read() != .nothing, let text = self.speechDue else { return }  // a clock step: late, not never
                self.speechDue = nil
                self.courtesy.speak(text)
            }
            if let zoneWatcher {
                try loop.watch(zoneWatcher.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                    if zoneWatcher.read() { self.zoneMayHaveChanged() }
                }
            }
            if let interval = notifier.watchdogInterval {
                try loop.watch(watchdogTimer.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                    _ = self.watchdogTimer.read()
                    self.pingWatchdog()
                    self.watchdogTimer.arm(after: interval)
                }
                watchdogTimer.arm(after: interval)
            }
        } catch {
            logger.critical("event loop setup failed", metadata: ["error": "\(error)"])
            return .internalError
        }
        logger.info(
            "started",
            metadata: [
                "driver": "\(driver.rawValue)", "pack": "\(settings.pack.name)", "device": "\(engine.config.device)",
                "zone": "\(engine.zone.identifier)", "interval": "\(engine.config.interval.rawValue)",
                "socket": "\(server?.path ?? "none")",
            ])
        if !options.oneShot { courtesy.repairAtStart() }
        dispatch(.start)
        if exited { return exitStatus }
        if !options.oneShot { checkDevice() }
        watchZoneFile()
        mqtt?.start()
        notifier.send("READY=1\nSTATUS=\(ClockEngine.line(engine.status(now: options.clock.now())))")
        releaseIdlePages()
        loop.run()
        notifier.send("STOPPING=1")
        mqtt?.stop()
        server?.close()
        return exitStatus
    }

    /// Hands one event to the engine and executes its effects; events that effects cause are
    /// handled after them, in order (never re-entrantly).
    private func dispatch(_ event: EngineEvent) {
        queue.append(event)
        guard !dispatching else { return }
        dispatching = true
        defer { dispatching = false }
        let zoneBefore = engine.zone
        while !queue.isEmpty {
            let next = queue.removeFirst()
            for effect in engine.handle(next, now: options.clock.now()) { execute(effect) }
        }
        if engine.zone != zoneBefore { watchZoneFile() }
    }

    private func execute(_ effect: EngineEffect) {
        switch effect {
        case .arm(let which, let at):
            let timer = which == .boundary ? boundaryTimer : statusTimer
            guard let at else { return timer.disarm() }
            if options.clock.followsWallClock {
                timer.arm(at: options.clock.realInstant(for: at))
            } else {
                timer.arm(after: max(0.001, options.clock.realSeconds(until: at)))
            }
        case .look(let boundary):
            courtesy.look { [unowned self] findings in self.dispatch(.courtesy(boundary: boundary, findings)) }
        case .speakText(let text, let at):
            if let at, at > options.clock.now() {
                speechDue = text
                if options.clock.followsWallClock {
                    speechTimer.arm(at: options.clock.realInstant(for: at))
                } else {
                    speechTimer.arm(after: max(0.001, options.clock.realSeconds(until: at)))
                }
            } else {
                courtesy.speak(text)
            }
        case .play(let request):
            play(request)
            if playing?.id == request.id { playingMedia = request.media }
        case .begin:
            courtesy.begin(playingMedia)
            watchDevice(true)
            pumpPlayback()
        case .cut(let id):
            guard let current = playing, current.id == id else { return }
            current.session.cancel()
            endSession()
        case .fadeOut(let id):
            guard let current = playing, current.id == id else { return }
            // Stopping: the device's queue, then 50 ms falling to silence (at most ~0.2 s); the
            // loop is leaving, so this one wait on the device is the last thing it does.
            current.session.fadeOut(frames: current.session.timeline.format.sampleRate / 20)
            PlaybackRunner.run(current.session, sink: current.sink)
            endSession()
        case .save(let state, let request):
            var failure: String?
            if let store {
                do { try store.save(state) } catch {
                    failure = "\(error)"
                    logger.error("state not saved", metadata: ["error": "\(error)"])
                }
            }
            if let request { queue.append(.saved(request, error: failure)) }
        case .reply(let to, let reply):
            if to == .oneShot { return finishOneShot(reply) }
            replies.removeValue(forKey: to.id)?(reply)
        case .outcome(let outcome):
            let line = outcome.logLine
            logger.log(level: Self.level(line.level), line.message, metadata: Self.metadata(line))
            mqtt?.publish(event: outcome.event)
        case .status(_, let line):
            notifier.send("STATUS=\(line)")
            mqtt?.stateMayHaveChanged()
        case .startReload: startReload()
        case .adopt: adopt()
        case .log(let line): logger.log(level: Self.level(line.level), line.message, metadata: Self.metadata(line))
        case .exit(let status):
            exitStatus = status
            exited = true
            loop.stop()
        }
    }

    static func level(_ level: LogLine.Level) -> JournalLog.Level { JournalLog.Level(rawValue: level.rawValue) ?? .info }
    static func metadata(_ line: LogLine) -> JournalLog.Metadata {
        Dictionary(line.metadata, uniquingKeysWith: { _, new in new })
    }

    /// `announce --next`: the outcome of its boundary is the command's output and exit status.
    private func finishOneShot(_ reply: ControlReply) {
        switch reply {
        case .ok(let text):
            if let text { print(text) }
        case .error(let message, _):
            logger.notice("not announcing", metadata: ["reason": "\(message)"])
            writeStandardError("talking-clock: \(message)\n")
        }
    }

    /// One control line from the socket or MQTT; the reply comes through `reply`, now or later.
    private func control(_ line: [UInt8], _ reply: @escaping (String) -> Void) {
        switch ControlRequest.parse(line: line) {
        case .failure(let error): reply(error.reply.render())
        case .success(let request):
            let id = nextReplyID
            nextReplyID += 1
            replies[id] = { reply($0.render()) }
            dispatch(.control(request, ReplyTo(id)))
        }
    }

    // MARK: - Time and zone

    private func timerFired(_ which: EngineTimer, _ timer: TimerFD) {
        let expiry = timer.read()
        if which == .boundary { pingWatchdog() }
        guard expiry == .fired || expiry == .clockWasSet else { return }
        dispatch(.timer(which, clockWasSet: expiry == .clockWasSet, zone: currentZone()))
    }

    private func zoneMayHaveChanged() {
        let z = currentZone()
        if z != engine.zone { dispatch(.zoneChanged(z)) }
    }

    /// The zone in effect now, read again: the configured zone's file re-read (a `tzdata` update
    /// changes its rules, not its name), or the system zone resolved again. What cannot be read
    /// now (a file half-replaced) leaves the zone as it was.
    private func currentZone() -> Zone {
        Self.zone(for: engine.config, current: engine.zone, logger: logger)
    }

    static func zone(for config: Config, current: Zone, logger: JournalLog) -> Zone {
        if let configured = config.zone {
            guard configured.file != nil else { return configured }
            if let reread = ZoneResolver.lookup().reread(configured) { return reread }
            return current.identifier == configured.identifier ? current : configured
        }
        do { return try ZoneResolver.resolve(explicit: nil) } catch {
            logger.warning(
                "zone unreadable, keeping the last one", metadata: ["zone": "\(current.identifier)", "reason": "\(error.description)"])
            return current
        }
    }

    /// Watches the directory of the zone file in use (after symlinks) for that file being replaced.
    private func watchZoneFile() {
        let file = ZoneResolver.realFile(of: engine.zone)
        if let current = zoneFileWatcher, let file, current.directory + "/" + (current.names.first ?? "") == file { return }
        if let current = zoneFileWatcher {
            loop.unwatch(current.fd)
            zoneFileWatcher = nil
        }
        guard let file, let slash = file.lastIndex(of: "/") else { return }
        let directory = slash == file.startIndex ? "/" : String(file[..<slash])
        let name = String(file[file.index(after: slash)...])
        do {
            let watcher = try ZoneWatcher(directory: directory, names: [name])
            try loop.watch(watcher.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                if watcher.read() { self.zoneMayHaveChanged() }
            }
            zoneFileWatcher = watcher
        } catch {
            logger.warning("cannot watch the zone file", metadata: ["file": "\(file)", "reason": "\(error)"])
        }
    }

    // MARK: - Playing

    /// Renders the planned announcement, opens the device and prepares the session; the engine
    /// hears `.opened` (then `.begin` starts it) or `.couldNotStart`.
    private func play(_ request: PlayRequest) {
        var timeline = request.planned.timeline
        let pack = settings.pack
        var pcm = Mixer.render(timeline, gain: request.gain, clips: { try? pack.audio($0).storage })
        let sink: any AudioSink
        do { sink = try outputs.sink(engine.config.device, format: timeline.format) } catch {
            queue.append(.playback(id: request.id, .couldNotStart(reason: error.description, kind: .device)))
            return
        }
        let outputLatency = engine.config.outputLatencyMs / 1000
        let anchorReal = request.anchor.map { options.clock.realInstant(for: $0) - outputLatency }
        if let anchorReal {
            // Woken too late for the whole pre-roll (a trigger 15 s before a Westminster hour whose
            // quarters start 16.5 s early): leave out the first strikes so the anchor stays on time.
            // The margin covers the device's buffer and the first writes.
            let available = Int(((anchorReal - WallClock.now()) - 0.15) * Double(timeline.format.sampleRate))
            let fitted = timeline.droppingStrikes(before: available)
            if fitted.dropped > 0 {
                logger.notice(
                    "woke too late for the whole chime",
                    metadata: [
                        "boundary": "\(request.local.rfc3339)", "strikes_left_out": "\(fitted.dropped)",
                        "chime_needs_s": "\(Format.fixed(Double(timeline.anchorFrame) / Double(timeline.format.sampleRate), 1))",
                        "hint": "trigger earlier, e.g. 30 s before the boundary",
                    ])
                timeline = fitted.timeline
                pcm = Mixer.render(timeline, gain: request.gain, clips: { try? pack.audio($0).storage })
            }
        }
        let session = PlaybackSession(sink: sink, timeline: timeline, pcm: pcm, anchorAt: anchorReal, clock: WallClock.now)
        playing = Session(id: request.id, session: session, sink: sink, anchorReal: anchorReal)
        queue.append(.playback(id: request.id, .opened))
    }

    /// Watches the playing sink's descriptors, or keeps them registered with no events: a
    /// clockless sink (`null`, `file:`) is always writable, and while its session waits for the
    /// anchor that would wake the loop without end.
    private func watchDevice(_ on: Bool) {
        guard let current = playing else { return }
        var watched: [Int32] = []
        let descriptors = current.sink.pollDescriptors()
        for d in descriptors {
            try? loop.watch(d.fd, events: on ? UInt32(d.events) : 0) { [unowned self] events in
                guard let sink = self.playing?.sink else { return }
                sink.acknowledge(revents: sink.pollDescriptors().map { $0.fd == d.fd ? Int16(truncatingIfNeeded: events) : 0 })
                self.pumpPlayback()
            }
            watched.append(d.fd)
        }
        playing?.watched = watched
        playing?.deviceEventsOn = on
    }

    private func pumpPlayback() {
        guard let current = playing else { return }
        // The engine cuts an announcement the clock has moved past (suspend, clock step).
        dispatch(.playback(id: current.id, .pumped(anchorPlayed: current.session.anchorPlayed)))
        guard let current = playing, current.id == playing?.id else { return }
        switch current.session.pump() {
        case .wait(let timeout):
            if current.session.wantsDeviceEvents != current.deviceEventsOn { watchDevice(current.session.wantsDeviceEvents) }
            if let timeout { playbackTimer.arm(after: max(0.0005, timeout)) }
        case .done:
            let report: PlaybackReport
            if let failure = current.session.failure, failure.kind == .stalled {
                report = .stalled(
                    reason: "the sound server stopped taking audio (\(failure.description)); a call may have corked the stream")
            } else if let failure = current.session.failure {
                report = .failed(reason: failure.description)
            } else {
                var onset: Double?
                if let predicted = current.session.predictedAnchorTime, let anchor = current.anchorReal {
                    onset = (predicted - anchor) * 1000
                }
                report = .finished(onsetErrorMs: onset)
            }
            endSession()
            dispatch(.playback(id: current.id, report))
        }
    }

    /// Closes the session's device and, when idle again, opens it ahead and gives pages back.
    private func endSession() {
        guard let current = playing else { return }
        playing = nil
        playbackTimer.disarm()
        for fd in current.watched { loop.unwatch(fd) }
        current.sink.close()
        courtesy.end()
        playingMedia = .leave
        if !options.oneShot && !exited {
            outputs.warmUp(engine.config.device)
            releaseIdlePages()
        }
    }

    /// Opens the configured device now (at start and after a reload) so that a wrong name or a
    /// missing card is reported at once rather than at the next boundary.
    private func checkDevice() {
        guard playing == nil, let failure = outputs.warmUp(engine.config.device, check: true) else { return }
        logger.warning("device not usable", metadata: ["device": "\(engine.config.device)", "reason": "\(failure.description)"])
        logger.notice("device hint", metadata: ["hint": Self.deviceWarning(engine.config.device, failure)])
    }

    /// Idle until the next boundary: give clean code pages back to the page cache and malloc's free
    /// memory back to the system (CodePages).
    private func releaseIdlePages() {
        guard CodePages.enabled, !options.oneShot else { return }
        CodePages.release()
    }

    private func pingWatchdog() {
        guard notifier.watchdogInterval != nil else { return }
        notifier.send("WATCHDOG=1")
    }

    private func handleSignals() {
        for signal in signals.read() {
            switch signal {
            case SIGHUP: dispatch(.reloadRequested)
            case SIGTERM, SIGINT:
                logger.info("stop requested", metadata: ["signal": "\(signal == SIGTERM ? "SIGTERM" : "SIGINT")"])
                dispatch(.stop)
            default:
                logger.notice("signal ignored", metadata: ["signal": "\(signal)", "hint": "SIGTERM stops the daemon, SIGHUP reloads it"])
            }
        }
    }

    // MARK: - Reload

    /// Reads the config, decodes the pack, checks the device and reads the MQTT password file on
    /// a thread of its own, so an announcement playing meanwhile never waits.
    private func startReload() {
        let options = self.options
        let current = engine.zone
        let logger = self.logger
        reloader.start({ () -> Result<(LoadedSettings, Zone), DaemonStartError> in
            do throws(DaemonStartError) {
                let loaded = try Self.loadSettings(options, checkDevice: true)
                return .success((loaded, Self.zone(for: loaded.config, current: current, logger: logger)))
            } catch {
                return .failure(error)
            }
        }) { [unowned self] result in
            switch result {
            case .success(let (loaded, zone)):
                self.arriving = loaded
                self.dispatch(.reloaded(.success(loaded.engineSettings), zone: zone))
            case .failure(let error):
                self.dispatch(
                    .reloaded(
                        .failure(SettingsFailure(error.description, kind: ClockEngine.errorKind(for: error.status))),
                        zone: self.engine.zone))
            }
            if !self.reloader.isRunning, self.playing == nil { self.releaseIdlePages() }  // the old pack's clips are freed
        }
    }

    /// The engine adopted the settings that arrived: the pack, the device and MQTT follow.
    private func adopt() {
        guard let loaded = arriving else { return }
        arriving = nil
        // A changed table, or a pack that rings other chimes (the discovery's select changes).
        let mqttChanged =
            (loaded.config.mqtt != settings.config.mqtt || loaded.mqtt?.discovery?.text != settings.mqtt?.discovery?.text)
            && !options.oneShot
        settings = loaded
        if mqttChanged {
            // Reconnect with the new settings: the old room says `offline` and disconnects.
            mqtt?.stop()
            mqtt = nil
            if let table = loaded.mqtt {
                do { mqtt = try makeRoom(table) } catch {
                    logger.error("mqtt not started", metadata: ["reason": "\(error.description)"])
                }
            }
            mqtt?.start()
            logger.info("mqtt settings changed", metadata: ["broker": "\(mqtt?.settings.options.brokerName ?? "none")"])
        }
        // The reload's job opened the device (or found why it cannot be): hold that handle,
        // not a second one.
        if let warning = loaded.deviceWarning {
            logger.warning("device not usable", metadata: ["device": "\(loaded.config.device)", "hint": warning])
        } else if playing == nil {
            outputs.adopt(loaded.config.device, loaded.openedDevice)
        }
    }
}

extension ClockEngine {
    /// The reply kind whose exit status is `status`; statuses no reply carries are `usage`.
    static func errorKind(for status: ExitStatus) -> ControlErrorKind {
        ControlErrorKind.allCases.first { $0.exitStatus == status } ?? .usage
    }
}
