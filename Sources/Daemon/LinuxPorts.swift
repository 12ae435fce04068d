import ClockEngine
import ConfigFiles
import EventLoop
import FoundationEssentials
import Glibc
import Outputs
import Playback
import SoundPack
import Synthesis
import TalkingClockCore

/// The engine's ports on Linux: a timerfd per timer kind (created when first armed), the device
/// thread, the state writer, the courtesy edges and the reload job. Every call that can wait on a
/// peer (the sound server, the disk, D-Bus, speech-dispatcher) runs off the loop with a bound and
/// comes back as an event.
final class LinuxPorts: EnginePorts {
    weak var driver: EngineDriver?
    let loop: EventLoop
    private(set) var options: DaemonOptions
    let logger: JournalLog
    /// The settings in effect (the decoded pack the device thread renders from).
    private(set) var settings: LoadedSettings
    /// A reload's settings, from the moment it lands until the engine adopts them.
    private var arriving: LoadedSettings?
    /// Called when settings are adopted: (before, after).
    var onAdopt: (LoadedSettings, LoadedSettings) -> Void = { _, _ in }
    private var timers: [EngineTimer: TimerFD] = [:]
    private let device: DeviceThread
    /// An announcement whose device is opening, and since when (monotonic).
    private var opening: (id: Int, device: String)?
    fileprivate var announcement: ThreadedAnnouncement?
    /// Ticks while a device call is in flight, to notice a device that stopped answering.
    private let watchdog: TimerFD
    private var watchdogArmed = false
    private let writer: StateWriter?
    let courtesy: CourtesyEdges
    private let reloader: BackgroundJob<Result<LoadedSettings, DaemonStartError>>
    /// Renders a `speak`'s words with the pack's engine, off the loop (one at a time, the rest wait).
    private let renderer: BackgroundJob<Result<ClipAudio, SynthesisError>>
    private var renderQueue: [(id: Int, text: String, clip: String)] = []
    /// The words of recent `speak`s, by clip id (the last few: the engine plays the newest).
    private var spoken: [(clip: String, audio: ClipAudio)] = []
    private let deviceCheck: BackgroundJob<Result<(any PreparedOutput)?, SinkError>>
    private let notifier: SystemdNotifier
    private(set) var exited = false
    private(set) var exitStatus: ExitStatus = .ok
    private var oneShotReply: ((ControlReply) -> Void)?

    init(
        loop: EventLoop, options: DaemonOptions, settings: LoadedSettings, store: StateStore?, loadedState: PersistentState?,
        logger: JournalLog, notifier: SystemdNotifier
    ) throws(SystemError) {
        self.loop = loop
        self.options = options
        self.settings = settings
        self.logger = logger
        self.notifier = notifier
        device = try DeviceThread(loop: loop)
        watchdog = try TimerFD(realtime: false)
        courtesy = try CourtesyEdges(loop: loop, logger: logger, stateDirectory: options.stateDirectory)
        reloader = try BackgroundJob(loop: loop)
        renderer = try BackgroundJob(loop: loop)
        deviceCheck = try BackgroundJob(loop: loop)
        let box = WeakDriver()
        driverBox = box
        if let store {
            writer = try StateWriter(
                store: store, loop: loop, onDisk: loadedState,
                done: { requests, error in
                    for r in requests { box.value?.send(.saved(r, error: error)) }
                },
                failed: { [logger] error in logger.error("state not saved", metadata: ["error": error]) })
        } else {
            writer = nil
        }
        try loop.watch(watchdog.fd, events: .readable) { [unowned self] _ in
            _ = self.watchdog.read()
            self.watchdogArmed = false
            self.checkDevice()
        }
        guard device.start(onReport: { [unowned self] in self.received($0) }) else {
            throw SystemError("pthread_create", code: EAGAIN, context: "the sound device's thread")
        }
    }

    /// Holds the driver weakly for closures made before it exists.
    private let driverBox: WeakDriver
    func attach(_ driver: EngineDriver) {
        self.driver = driver
        driverBox.value = driver
    }

    // MARK: - EnginePorts

    func now() -> Double { options.clock.now() }

    /// A simulated clock starts now (the daemon is ready): a slow start (a large pack decoded on a
    /// busy machine) uses up none of its time.
    func startClock() { options.clock = options.clock.startingNow() }

    /// The real instant a simulated clock read its start (nil for the real or a shifted clock).
    var simulatedClockStart: Double? { options.clock.fakeStart == nil ? nil : options.clock.realStart }

    func arm(_ timer: EngineTimer, at instant: Double?) {
        guard let fd = timerFD(timer) else { return }
        guard let instant else { return fd.disarm() }
        if options.clock.followsWallClock {
            fd.arm(at: options.clock.realInstant(for: instant))
        } else {
            fd.arm(after: max(0.001, options.clock.realSeconds(until: instant)))
        }
    }

    /// The timer of this kind, made (and watched) the first time it is armed: a wall-clock timer
    /// (cancelled when the clock is set) for a real clock, a monotonic one for a simulated clock.
    private func timerFD(_ kind: EngineTimer) -> TimerFD? {
        if let fd = timers[kind] { return fd }
        do {
            let fd = try TimerFD(realtime: options.clock.followsWallClock)
            try loop.watch(fd.fd, events: .readable) { [unowned self] _ in self.fired(kind, fd) }
            timers[kind] = fd
            return fd
        } catch {
            logger.critical("timer not made", metadata: ["timer": "\(kind)", "error": "\(error)"])
            return nil
        }
    }

    private func fired(_ kind: EngineTimer, _ fd: TimerFD) {
        let expiry = fd.read()
        if kind == .boundary && notifier.watchdogInterval != nil { notifier.send("WATCHDOG=1") }
        guard expiry == .fired || expiry == .clockWasSet, let driver else { return }
        driver.send(.timer(kind, clockWasSet: expiry == .clockWasSet, zone: currentZone()))
    }

    func look(boundary: Int, budget: Double) {
        courtesy.look(budget: budget) { [weak self] findings in self?.driver?.send(.courtesy(boundary: boundary, findings)) }
    }

    func open(_ request: PlayRequest) {
        if let since = device.hungSince {
            driver?.opened(
                request.id,
                .failure(
                    PlaybackFailure(
                        "the sound device \"\(request.device)\" has not answered since \(CivilTime.utcString(Int(since))) (a stopped or hung sound server?); the clock asks it again at each announcement"
                    )))
            return
        }
        let pack = Unchecked(settings.pack)
        let latency = settings.config.outputLatencyMs / 1000
        // Reminders' words and recordings, and a `speak`'s words, beside the pack's clips.
        var extra = settings.reminders.audio
        for (clip, audio) in spoken { extra[clip] = audio }
        // The config decides which words were dropped at load, so no announcement should need one;
        // if one does, it is decoded here on the loop for this announcement only, because the
        // device thread reads the pack's cache and must never write it.
        for item in request.planned.timeline.items where extra[item.clip] == nil && !settings.pack.isDecoded(item.clip) {
            if let audio = try? settings.pack.audioUncached(item.clip) { extra[item.clip] = audio }
        }
        var job = DeviceThread.PlayJob(
            id: request.id, device: request.device, timeline: request.planned.timeline, gain: request.gain,
            clips: { extra[$0]?.storage ?? (try? pack.value.audio($0).storage) },
            anchorReal: request.anchor.map { options.clock.realInstant(for: $0) - latency }, warmAfter: !options.oneShot)
        if let anchorReal = job.anchorReal {
            let timeline = request.planned.timeline
            let preroll = Double(timeline.anchorFrame) / Double(timeline.format.sampleRate)
            // The engine's own lead: a boundary's wake-up before its pre-roll, in real seconds.
            job.openAt = anchorReal - preroll - (driver?.engine.lead ?? options.lead)
        }
        opening = (request.id, request.device)
        device.post(.play(job))
        armWatchdog()
    }

    func media(_ change: MediaChange) {
        switch change {
        case .begin(let plan): courtesy.begin(plan)
        case .end: courtesy.end()
        }
    }

    func save(_ state: PersistentState, for request: ReplyTo?) {
        guard let writer else {
            // No state directory (a demo): nothing to write, nothing lost.
            if let request { driver?.send(.saved(request, error: nil)) }
            return
        }
        writer.save(state, for: request)
    }

    func speak(id: Int, text: String) {
        courtesy.speak(text) { [weak self] result in self?.driver?.send(.spoken(id: id, result)) }
    }

    func render(id: Int, text: String, clip: String) {
        renderQueue.append((id, text, clip))
        renderNext()
    }

    private func renderNext() {
        guard !renderer.isRunning, !renderQueue.isEmpty else { return }
        let (id, text, clip) = renderQueue.removeFirst()
        guard let synthesizer = settings.reminders.synthesizer else {
            driver?.send(
                .rendered(
                    id: id,
                    .failure(
                        RenderFailure(
                            "sound pack '\(settings.pack.name)' does not name the engine its words were made with (\"synthesis\" in its pack.json), so nothing can say new words in its voice"))))
            return renderNext()
        }
        let format = settings.pack.format
        renderer.start({ () -> Result<ClipAudio, SynthesisError> in
            do throws(SynthesisError) { return .success(try synthesizer.render(text, format: format)) } catch { return .failure(error) }
        }) { [unowned self] result in
            switch result {
            case .success(let audio):
                self.spoken.append((clip, audio))
                if self.spoken.count > 4 { self.spoken.removeFirst() }
                self.driver?.send(.rendered(id: id, .success(RenderedText(clip: clip, frames: audio.frames))))
            case .failure(let error):
                self.driver?.send(.rendered(id: id, .failure(RenderFailure(error.description))))
            }
            self.renderNext()
        }
    }

    func startReload() {
        let options = self.options
        let hadConfigFile = settings.readConfigFile
        reloader.start({ () -> Result<LoadedSettings, DaemonStartError> in
            do throws(DaemonStartError) { return .success(try ClockDaemon.loadSettings(options, hadConfigFile: hadConfigFile)) } catch {
                return .failure(error)
            }
        }) { [unowned self] result in
            switch result {
            case .success(let loaded): self.checkDeviceThenAdopt(loaded)
            case .failure(let error):
                self.driver?.send(
                    .reloaded(
                        .failure(SettingsFailure(error.description, kind: ClockEngine.errorKind(for: error.status))),
                        zone: self.driver?.engine.zone ?? .utc))
            }
        }
    }

    /// A reload's settings are loaded: see whether their device opens now (on a thread, within the
    /// hang limit: a sound server that does not answer must not hold the reload), then hand them
    /// to the engine.
    private func checkDeviceThenAdopt(_ loaded: LoadedSettings) {
        let name = loaded.config.device
        let deliver: (LoadedSettings) -> Void = { [unowned self] loaded in
            self.arriving = loaded
            let zone = ClockDaemon.zone(for: loaded.config, current: self.driver?.engine.zone ?? .utc, logger: self.logger)
            self.driver?.send(.reloaded(.success(loaded.engineSettings), zone: zone))
            if !self.reloader.isRunning, self.announcement == nil { self.releaseIdlePages() }  // the old pack's clips are freed
        }
        guard !deviceCheck.isRunning else { return deliver(loaded) }
        deviceCheck.start(
            within: device.hangLimit,
            { () -> Result<(any PreparedOutput)?, SinkError> in
                do throws(SinkError) { return .success(try OutputRegistry.prepare(name)) } catch { return .failure(error) }
            },
            completion: { result in
                var loaded = loaded
                switch result {
                case .success(let prepared): loaded.openedDevice = prepared.map { Unchecked($0) }
                case .failure(let error): loaded.deviceWarning = ClockDaemon.deviceWarning(name, error)
                }
                deliver(loaded)
            },
            timedOut: {
                var loaded = loaded
                loaded.deviceWarning =
                    "the sound device \"\(name)\" did not answer within \(Int(self.device.hangLimit)) s (a stopped or hung sound server?); announcements will fail until it does."
                deliver(loaded)
            })
    }

    func adopt(_ config: Config) {
        guard let loaded = arriving else { return }
        arriving = nil
        let before = settings
        settings = loaded
        onAdopt(before, loaded)
        if let warning = loaded.deviceWarning {
            logger.warning("device not usable", metadata: ["device": "\(loaded.config.device)", "hint": warning])
        } else if let opened = loaded.openedDevice {
            // The reload's check opened the device: the device thread holds that handle, not a second one.
            device.post(.adopt(Unchecked(opened.value), loaded.config.device))
        }
    }

    func exit(_ status: ExitStatus) {
        exitStatus = status
        exited = true
        if options.oneShot, let reply = lastOneShotReply { finishOneShot(reply) }
        loop.stop()
    }

    // MARK: - The one-shot run

    private var lastOneShotReply: ControlReply?

    /// `announce --next`: the outcome of its boundary is the command's output and exit status.
    func oneShotReplied(_ reply: ControlReply) { lastOneShotReply = reply }

    private func finishOneShot(_ reply: ControlReply) {
        switch reply {
        case .ok(let text):
            if let text { print(text) }
        case .error(let message, _):
            logger.notice("not announcing", metadata: ["reason": "\(message)"])
            writeStandardError("talking-clock: \(message)\n")
        }
    }

    // MARK: - The device

    /// At start: open the configured device on the device thread, so that a wrong name or a
    /// missing card is reported at once rather than at the next boundary.
    func checkDeviceAtStart() {
        device.post(.warmUp(settings.config.device, check: true))
    }

    /// Stops the device thread after the loop ended: what it plays (a fade) ends first, within
    /// half a second; a thread stuck in the device is left behind. Returns whether it ended.
    func stopDevice() -> Bool { device.stop(timeout: 0.5) }

    private func received(_ report: DeviceThread.Report) {
        switch report {
        case .opened(let id, let result):
            guard opening?.id == id else {
                if case .success = result { device.post(.cut(id)) }  // given up on while it opened
                return
            }
            opening = nil
            switch result {
            case .success:
                let a = ThreadedAnnouncement(id: id, ports: self)
                announcement = a
                driver?.opened(id, .success(a))
                if announcement != nil { armWatchdog() }
            case .failure(let failure): driver?.opened(id, .failure(failure))
            }
        case .progress(let id, let anchorPlayed):
            guard let a = announcement, a.id == id else { return }
            a.anchorPlayed = anchorPlayed
            driver?.pump()
        case .done(let id, let progress):
            guard let a = announcement, a.id == id else { return }
            a.final = progress
            driver?.pump()
            if announcement === a { announcement = nil }
        case .idle:
            releaseIdlePages()
        case .checked(let name, let failure):
            releaseIdlePages()
            guard let failure else { return }
            logger.warning("device not usable", metadata: ["device": "\(name)", "reason": "\(failure.description)"])
            logger.notice("device hint", metadata: ["hint": ClockDaemon.deviceWarning(name, failure)])
        case .answersAgain:
            logger.notice("sound device answers again", metadata: ["device": "\(settings.config.device)"])
        case .scheduling(.realtime(let priority)):
            logger.info("device thread scheduling", metadata: ["policy": "SCHED_FIFO", "priority": "\(priority)"])
        case .scheduling(.normal(let reason)):
            logger.info(
                "device thread scheduling",
                metadata: [
                    "policy": "normal", "reason": "\(reason)",
                    "hint": "real-time priority keeps the onset exact on a busy machine; allow it with an rtprio limit of at least \(DeviceThread.realtimePriority) (a line in /etc/security/limits.d/, or LimitRTPRIO= on a system unit)",
                ])
        }
    }

    /// The watchdog's tick: a device call stuck past the hang limit gives up the announcement
    /// opening or playing; otherwise the engine hears how the announcement is going (it cuts one
    /// the clock has moved past).
    private func checkDevice() {
        if let (id, name) = opening, let call = device.hungCall() {
            opening = nil
            deviceHung(call)
            device.post(.cut(id))
            driver?.opened(
                id,
                .failure(
                    PlaybackFailure(
                        "the sound device \"\(name)\" did not answer within \(Int(device.hangLimit)) s while \(call.what) it (a stopped or hung sound server?)"
                    )))
        }
        if announcement != nil { driver?.pump() }
        if opening != nil || announcement != nil { armWatchdog() }
    }

    private func armWatchdog() {
        guard !watchdogArmed else { return }
        watchdogArmed = true
        watchdog.arm(after: 0.25)
    }

    fileprivate func deviceHung(_ call: DeviceThread.InCall) {
        guard device.markHung() else { return }
        logger.error(
            "sound device not answering",
            metadata: [
                "device": call.device, "call": call.what,
                "seconds": Format.fixed(WallClock.monotonic() - call.since, 1),
                "hint": "a stopped or hung sound server (PulseAudio, PipeWire)? Announcements fail at once until it answers again",
            ])
    }

    fileprivate func post(_ command: DeviceThread.Command) { device.post(command) }
    fileprivate func hungCall() -> DeviceThread.InCall? { device.hungCall() }
    fileprivate var hangLimit: Double { device.hangLimit }

    fileprivate func ended(_ a: ThreadedAnnouncement) {
        if announcement === a { announcement = nil }
    }

    /// Idle until the next boundary (after start-up, an announcement and the device opened ahead
    /// again): clean code pages go back to the page cache and malloc's free memory to the system.
    func releaseIdlePages() {
        guard CodePages.enabled, !options.oneShot, !exited, announcement == nil, opening == nil else { return }
        CodePages.release()
    }

    // MARK: - The zone

    /// The zone in effect now, read again: the configured zone's file re-read (a `tzdata` update
    /// changes its rules, not its name), or the system zone resolved again.
    func currentZone() -> Zone {
        guard let engine = driver?.engine else { return settings.config.zone ?? .utc }
        return ClockDaemon.zone(for: engine.config, current: engine.zone, logger: logger)
    }
}

/// The announcement playing on the device thread, as the driver sees it.
final class ThreadedAnnouncement: Announcement {
    let id: Int
    unowned let ports: LinuxPorts
    var anchorPlayed = false
    /// How it ended (the device thread said so, or the loop gave up on it).
    var final: AnnouncementProgress?

    init(id: Int, ports: LinuxPorts) {
        self.id = id
        self.ports = ports
    }

    func begin() { ports.post(.begin(id)) }

    func progress() -> AnnouncementProgress {
        if let final { return final }
        if let call = ports.hungCall() {
            ports.deviceHung(call)
            ports.post(.cut(id))
            ports.ended(self)
            let given = AnnouncementProgress.stalled(
                "the sound device \"\(call.device)\" did not answer for \(Int(ports.hangLimit)) s while \(call.what) (a stopped or hung sound server?); the announcement was cut")
            final = given
            return given
        }
        return .playing(anchorPlayed: anchorPlayed)
    }

    func cut() {
        ports.post(.cut(id))
        ports.ended(self)
    }

    func fadeOut() {
        ports.post(.fade(id))
        ports.ended(self)
    }
}

/// The driver, held weakly by closures made before it exists.
final class WeakDriver {
    weak var value: EngineDriver?
}
