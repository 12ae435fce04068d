import ALSAOutput
import CLinux
import FoundationEssentials
import Glibc
import Playback
import SoundPack
import TalkingClockCore

/// What the daemon was started with (command line over config file).
public struct DaemonOptions {
    public var configPath: String?
    public var overrides: ConfigOverrides
    public var driver: Driver?
    /// Where mute and the last boundary spoken persist; nil keeps them in memory only (a run on a
    /// shifted or simulated clock must never change what a real-clock run will do).
    public var stateDirectory: URL?
    public var socketPath: String?
    public var clock: ClockSource
    /// `announce --next`: announce the next boundary (within `maxWait`) and exit.
    public var oneShot: Bool
    public var maxWait: Double
    /// How long before a boundary the device is opened and fed silence.
    public var lead: Double
    /// The program's version, for Home Assistant discovery (`sw`).
    public var version: String

    public init(
        configPath: String? = nil, overrides: ConfigOverrides = ConfigOverrides(), driver: Driver? = nil,
        stateDirectory: URL? = StateStore.defaultDirectory(), socketPath: String? = ControlPaths.socket(),
        clock: ClockSource = ClockSource(), oneShot: Bool = false, maxWait: Double = 60, lead: Double = 1.0,
        version: String = "unknown"
    ) {
        self.configPath = configPath
        self.overrides = overrides
        self.driver = driver
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        self.clock = clock
        self.oneShot = oneShot
        self.maxWait = maxWait
        self.lead = lead
        self.version = version
    }
}

/// A failure to start, with the exit status it maps to.
public struct DaemonStartError: Error, CustomStringConvertible {
    public var status: ExitStatus
    public var description: String
}

/// A config and its decoded pack, loaded together.
struct LoadedSettings {
    var config: Config
    var pack: SoundPack
}

/// What a reload thread hands back to the loop.
struct ReloadOutcome {
    var result: Result<LoadedSettings, DaemonStartError>
}

/// The user daemon: one `EventLoop` whose sources are the boundary timer, signals, the control
/// socket and, while an announcement plays, the sound device. All decisions come from the pure
/// `AnnouncementScheduler`; this class only does the I/O around them.
public final class ClockDaemon {
    struct LastAnnouncement {
        var boundary: Int?
        var text: String
        var result: String
        var onsetErrorMs: Double?
    }

    struct Playing {
        var session: PlaybackSession
        var sink: ALSASink
        var boundary: Int?
        var anchorReal: Double?
        var text: String
        var watched: [Int32]
        var deviceEventsOn = false
    }

    private var options: DaemonOptions
    private let logger = JournalLog()
    private let loop: EventLoop
    /// nil: the state lives in memory only (see `DaemonOptions.stateDirectory`).
    private let store: StateStore?
    /// Held for the daemon's lifetime: one daemon per state directory.
    private let stateLock: StateLock?
    private let notifier = SystemdNotifier()
    private var scheduler: AnnouncementScheduler
    private var pack: SoundPack
    private var server: ControlServer?
    private let boundaryTimer: TimerFD
    private let playbackTimer: TimerFD
    private let signals: SignalFD
    /// Only when systemd asks for watchdog pings: fires every half `WatchdogSec` (2 wake-ups an
    /// hour with the unit's 70 min), so an external-driver daemon with no boundary timer is not
    /// killed. Boundary wake-ups ping too.
    private let watchdogTimer: TimerFD
    /// Wakes the loop when /etc/localtime or /etc/timezone is replaced (nil if it cannot watch).
    private let zoneWatcher: ZoneWatcher?
    /// Wakes the loop when the zone file in use is replaced (a `tzdata` update renames a new
    /// file over it): a watch on its directory, re-made when the zone changes.
    private var zoneFileWatcher: ZoneWatcher?
    /// The zone in effect: the config's or `--tz`'s, else the system's (TZ, /etc/localtime),
    /// resolved again at every boundary and whenever a watch reports a change.
    private var activeZone: Zone = .utc
    private var armed: Int?
    private var playing: Playing?
    /// The device opened ahead (sound-server plugins only), so the next announcement or `say`
    /// skips the ~4 ms connection; see `warmUp()`.
    private var warm: ALSASink.Opened?
    /// A device found not to be a sound-server plugin: not held open between announcements.
    private var coldDevice: String?
    private var stopping = false
    /// Decodes the pack off the loop on `reload`.
    private let reloader: BackgroundJob<ReloadOutcome>
    private var reloadWaiters: [(ControlReply) -> Void] = []
    private var reloadAgain = false
    private var last: LastAnnouncement?
    private var exitStatus: ExitStatus = .ok
    private var lastWatchdog = WallClock.monotonic()
    /// Set when the state file could not be read at start (the mute then comes from what could be
    /// salvaged, or is on); shown by `status` until the user sets the mute again.
    private var stateWarning: String?
    /// The room on the MQTT broker; nil without an `[mqtt]` table (then no MQTT code runs).
    private var mqtt: MQTTRoom?

    public var driver: Driver { options.driver ?? scheduler.config.driver }

    public init(options: DaemonOptions) throws(DaemonStartError) {
        self.options = options
        let config = try Self.loadConfig(options)
        // The room and the password file are checked before anything is created.
        var mqttSettings: MQTTSettings?
        if let table = config.mqtt, !options.oneShot {
            mqttSettings = try MQTTSettings.resolve(
                table, configPath: options.configPath ?? Self.defaultConfigPath(), version: options.version)
        }
        pack = try Self.loadPack(for: config)
        if let directory = options.stateDirectory {
            let store = StateStore(directory: directory)
            try? store.prepareDirectory()  // a directory that cannot be made is reported when saving
            do { stateLock = try StateLock.acquire(directory: directory.path) } catch {
                throw DaemonStartError(status: .busy, description: error.description)
            }
            self.store = store
        } else {
            stateLock = nil
            store = nil
        }
        let (state, warning) = store?.load() ?? (PersistentState(), nil)
        scheduler = AnnouncementScheduler(config: config, state: state)
        do {
            loop = try EventLoop()
            boundaryTimer = try TimerFD(realtime: options.clock.followsWallClock)
            playbackTimer = try TimerFD(realtime: false)
            signals = try SignalFD(signals: [SIGTERM, SIGINT, SIGHUP])
            watchdogTimer = try TimerFD(realtime: false)
            zoneWatcher = try? ZoneWatcher()
            reloader = try BackgroundJob(loop: loop)
        } catch {
            throw DaemonStartError(status: .internalError, description: error.description)
        }
        activeZone = config.zone ?? ((try? ZoneResolver.resolve(explicit: nil)) ?? .utc)
        if let warning {
            logger.warning("state file unreadable", metadata: ["detail": "\(warning)"])
            stateWarning = warning
        }
        if let path = options.socketPath, !options.oneShot {
            do {
                server = try ControlServer(path: path, loop: loop) { [unowned self] line, reply in self.handleControl(line, reply: reply) }
            } catch {
                throw DaemonStartError(status: .badInput, description: "Could not start the control socket: \(error.description)")
            }
        }
        if let settings = mqttSettings { mqtt = try makeRoom(settings) }
    }

    private func makeRoom(_ settings: MQTTSettings) throws(DaemonStartError) -> MQTTRoom {
        try MQTTRoom(
            settings: settings, loop: loop, logger: logger, state: { [unowned self] in self.statusReport().json },
            execute: { [unowned self] line, reply in
                if let now = self.handleControl(line, reply: reply) { reply(now) }
            })
    }

    static func loadConfig(_ options: DaemonOptions) throws(DaemonStartError) -> Config {
        let config = try loadConfig(path: options.configPath, overrides: options.overrides)
        // A TZ that cannot be read is refused at start, not read as UTC at every boundary.
        if config.zone == nil {
            do { _ = try ZoneResolver.resolve(explicit: nil) } catch {
                throw DaemonStartError(status: .badInput, description: error.description)
            }
        }
        return config
    }

    /// Reads the config file (`path`, or the default location if it exists; none gives the
    /// defaults) and applies the command line's overrides. `run`, `say`, `schedule` and reload
    /// all come here: a path that is there but is not a readable config file (a directory, a
    /// named pipe, garbage) is an error for each, never the defaults in silence nor a hang.
    public static func loadConfig(path explicit: String?, overrides: ConfigOverrides) throws(DaemonStartError) -> Config {
        var config = Config()
        if let path = explicit ?? Self.defaultConfigPath() {
            if let text = try readConfigText(path) {
                do { config = try Config.parse(text, source: path, zones: ZoneResolver.lookup()) } catch {
                    throw DaemonStartError(status: .badInput, description: error.description)
                }
            } else if explicit != nil {
                throw DaemonStartError(status: .badInput, description: "The config file \(path) does not exist; create it (see 'talking-clock config-example') or drop --config.")
            }
        }
        let merged = config.merged(with: overrides)
        // The file's language, phrasing and lead-in agree (Config.parse checks them); an
        // override may break that: `--language de` with `phrasing = "12h"` in the file.
        if overrides.language != nil || overrides.phrasing != nil {
            let source = overrides.language != nil ? "--language" : "--phrasing"
            do { try merged.checkSpeech(source: source) } catch {
                throw DaemonStartError(status: .badInput, description: error.description)
            }
        }
        return merged
    }

    /// `$XDG_CONFIG_HOME/talking-clock/config.toml` (default `~/.config`): see `UserPaths`.
    public static func defaultConfigPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        UserPaths.configFile(environment: environment)
    }

    /// Loads and decodes the config's pack, and makes sure it can ring the config's chime.
    static func loadPack(for config: Config) throws(DaemonStartError) -> SoundPack {
        let name = config.pack
        let url: URL
        switch PackLocator.locate(name) {
        case .success(let found): url = found
        case .failure(let error):
            throw DaemonStartError(
                status: .packError,
                description: error.description + (config.packOrigin.map { " (The pack is set by 'pack' in \($0).)" } ?? ""))
        }
        do {
            let pack = try SoundPack(directory: url, scan: true)
            try pack.requireLanguage(config.language)
            // Decode everything now: nothing is decoded on the boundary, and a damaged clip is
            // found at start or reload, not when it should be heard.
            try pack.preload()
            _ = try pack.chimePattern(for: config.chime)
            return pack
        } catch {
            throw DaemonStartError(status: .packError, description: error.description)
        }
    }

    private func zone() -> Zone { activeZone }

    /// The zone in effect now, read again: the configured zone's file re-read (a `tzdata` update
    /// changes its rules, not its name), or the system zone resolved again. What cannot be read
    /// now (a file half-replaced) leaves the zone as it was.
    private func currentZone() -> Zone {
        if let configured = scheduler.config.zone {
            guard configured.file != nil else { return configured }
            if let reread = ZoneResolver.lookup().reread(configured) { return reread }
            return activeZone.identifier == configured.identifier ? activeZone : configured
        }
        do { return try ZoneResolver.resolve(explicit: nil) } catch {
            logger.warning("zone unreadable, keeping the last one", metadata: ["zone": "\(activeZone.identifier)", "reason": "\(error.description)"])
            return activeZone
        }
    }

    /// Watches the directory of the zone file in use (after symlinks) for that file being
    /// replaced; nothing for a POSIX TZ string.
    private func watchZoneFile() {
        let file = ZoneResolver.realFile(of: activeZone)
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

    // MARK: - Running

    /// Runs until SIGTERM/SIGINT (daemon) or until the one announcement is decided (one-shot).
    public func run() -> ExitStatus {
        // A log reader that goes away (`run … | head`) must never stop the clock: writes to a
        // closed pipe fail with EPIPE instead of killing the process.
        signal(SIGPIPE, SIG_IGN)
        // --fake-clock T means T when the daemon is ready, not when the process started.
        options.clock = options.clock.startingNow()
        do {
            try loop.watch(boundaryTimer.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in self.boundaryTimerFired() }
            try loop.watch(playbackTimer.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                _ = self.playbackTimer.read()
                self.pumpPlayback()
            }
            try loop.watch(signals.fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in self.handleSignals() }
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
                "driver": "\(driver.rawValue)", "pack": "\(pack.name)", "device": "\(scheduler.config.device)",
                "zone": "\(zone().identifier)", "interval": "\(scheduler.config.interval.rawValue)",
                "socket": "\(server?.path ?? "none")",
            ])
        if options.oneShot {
            // The same path as `announce` through a daemon: one outcome, one exit status.
            if let reply = trigger(maxWait: options.maxWait, waiter: { [unowned self] in self.finishOneShot($0) }) {
                finishOneShot(reply)
            }
            if oneShotDone { return exitStatus }
        } else {
            if driver == .timer { armNext(after: options.clock.now()) }
            checkDevice()
        }
        watchZoneFile()
        mqtt?.start()
        notifier.send("READY=1\nSTATUS=\(statusLine())")
        releaseIdlePages()
        loop.run()
        notifier.send("STOPPING=1")
        mqtt?.stop()
        server?.close()
        return exitStatus
    }

    private var oneShotDone = false

    /// `announce --next`: the outcome of its boundary is the command's output and exit status.
    private func finishOneShot(_ reply: ControlReply) {
        oneShotDone = true
        switch reply {
        case .ok(let text):
            exitStatus = .ok
            if let text { print(text) }
        case .error(let message, let kind):
            exitStatus = kind.exitStatus
            logger.notice("not announcing", metadata: ["reason": "\(message)"])
            writeStandardError("talking-clock: \(message)\n")
        }
        loop.stop()
    }

    private func armNext(after now: Double) {
        let boundary = scheduler.nextBoundary(after: now, in: zone())
        arm(boundary)
    }

    /// Seconds of audio before the anchor of `boundary`'s announcement: 0 unless its chime
    /// starts before the boundary (the Westminster quarters before the first hour stroke).
    private func preroll(for boundary: Int) -> Double {
        let local = CivilTime.local(boundary, in: zone())
        guard let plan = try? pack.plan(hour: local.hour, minute: local.minute, style: scheduler.config.announcementStyle)
        else { return 0 }
        return Double(plan.anchorOffsetMs) / 1000
    }

    /// When to wake for `boundary` (clock seconds): the lead for opening the device, plus the
    /// chime's pre-roll.
    private func wakeTime(for boundary: Int) -> Double {
        Double(boundary) - (options.lead + preroll(for: boundary) + outputLatency) * options.clock.rate
    }

    /// The configured `output-latency` in seconds: every anchor is placed this much earlier.
    private var outputLatency: Double { scheduler.config.outputLatencyMs / 1000 }

    /// The real instant the first sample (the anchor) must be written for, so that it is heard at
    /// `instant` on this daemon's clock: `output-latency` earlier.
    private func realAnchor(for instant: Double) -> Double {
        options.clock.realInstant(for: instant) - outputLatency
    }

    private func arm(_ boundary: Int) {
        armed = boundary
        // An `announce` waiting for another boundary (the zone, the interval or the clock changed
        // under it) is answered now rather than never.
        for stale in Set(waiters.map(\.boundary)) where stale != boundary && stale != playing?.boundary {
            resolveWaiters(
                stale,
                .error("\(CivilTime.local(stale, in: zone()).rfc3339) is no longer the next boundary (the zone, the interval or the clock changed); trigger again", kind: .stale))
        }
        let wake = wakeTime(for: boundary)
        if options.clock.followsWallClock {
            boundaryTimer.arm(at: options.clock.realInstant(for: wake))
        } else {
            boundaryTimer.arm(after: max(0.001, options.clock.realSeconds(until: wake)))
        }
        statusChanged()
    }

    private func boundaryTimerFired() {
        let expiry = boundaryTimer.read()
        pingWatchdog()
        if expiry == .clockWasSet {
            // An NTP step or a manual `date`: re-read the clock and re-arm at once.
            let now = options.clock.now()
            logger.notice("clock was set", metadata: ["now": "\(CivilTime.utcString(Int(now)))"])
            if let boundary = armed, now <= Double(boundary) + scheduler.config.lateLimit, now >= wakeTime(for: boundary) - options.lead {
                announce(boundary)  // the step landed us right at it
            } else {
                rearmAfterDecision(now: now)
            }
            return
        }
        guard expiry == .fired, let boundary = armed else { return }
        let now = options.clock.now()
        if now < wakeTime(for: boundary) - 0.5 {
            // Woke early (cannot happen with an absolute timer unless the clock moved back): re-arm.
            arm(boundary)
            return
        }
        announce(boundary)
    }

    /// The system zone setting was replaced: if the zone in effect is now another, the boundary
    /// waited for may not be one any more and an earlier one may come first, so re-arm at once.
    /// Also when the zone file in use was replaced (a `tzdata` update): if its rules changed, the
    /// same.
    private func zoneMayHaveChanged() {
        guard refreshZone() else { return }
        if driver == .timer && !options.oneShot { arm(scheduler.boundaryToArm(after: nil, now: options.clock.now(), in: activeZone)) }
    }

    /// Reads the zone in effect again (`currentZone`) and, if it differs, makes it the active one
    /// (`noteZone`). Returns whether it changed.
    @discardableResult
    private func refreshZone() -> Bool {
        let z = currentZone()
        guard z != activeZone else { return false }
        noteZone(z)
        return true
    }

    /// Makes `z` the zone in effect, logging how it differs from the one before.
    private func noteZone(_ z: Zone) {
        let before = activeZone
        activeZone = z
        if z.identifier != before.identifier {
            logger.notice("zone changed", metadata: ["from": "\(before.identifier)", "to": "\(z.identifier)"])
        } else if z.rules != before.rules {
            let now = Int(options.clock.now())
            logger.notice(
                "zone rules reloaded",
                metadata: [
                    "zone": "\(z.identifier)", "file": "\(z.file ?? "none")",
                    "offset_before": "\(CivilTime.formatOffset(before.offset(at: now)))",
                    "offset_now": "\(CivilTime.formatOffset(z.offset(at: now)))",
                ])
        }
        watchZoneFile()
        statusChanged()
    }

    private func rearmAfterDecision(now: Double) {
        armed = nil
        // A boundary that passed within the late limit (the step landed just after it) is still spoken.
        if driver == .timer && !options.oneShot { arm(scheduler.boundaryToArm(after: nil, now: now, in: zone())) }
    }

    /// Decides about `boundary` and, if it is to be spoken, starts playing it anchored on it.
    private func announce(_ boundary: Int) {
        _ = cutIfStale()
        if let current = playing, current.boundary != boundary {
            // The boundary always wins: an on-demand `say` that would overlap its lead or pre-roll
            // is cut (its remaining clips report interrupted), and so is the tail of an earlier
            // boundary's announcement (only a fast simulated clock makes them overlap).
            cutPlaying(cutFor: boundary)
        }
        let now = options.clock.now()
        refreshZone()
        let zone = zone()
        if !BoundarySchedule.isBoundary(boundary, in: zone, interval: scheduler.config.interval) {
            // Armed in another zone (it changed while we waited, and no watch saw it): in this
            // zone it is no boundary at all.
            logger.notice("skipped", metadata: ["boundary": "\(CivilTime.local(boundary, in: zone).rfc3339)", "reason": "zone-changed"])
            mqtt?.publish(event: AnnouncementEvent(.skipped, boundary: CivilTime.local(boundary, in: zone).rfc3339, reason: "zone-changed"))
            armed = nil
            resolveWaiters(boundary, .error("\(CivilTime.local(boundary, in: zone).rfc3339) is no boundary in the zone \(zone.identifier) any more (the zone changed)", kind: .stale))
            if driver == .timer && !options.oneShot {
                arm(scheduler.boundaryToArm(after: nil, now: now, in: zone))
            }
            return
        }
        let decision = scheduler.decide(boundary: boundary, now: now, in: zone)
        armed = nil
        switch decision {
        case .skip(_, let local, let reason):
            scheduler.recordSkipped(decision)
            let level: JournalLog.Level = reason == .stale ? .warning : .info
            logger.log(level: level, "skipped", metadata: ["boundary": "\(local.rfc3339)", "reason": "\(reason.rawValue)", "late_s": "\(Format.fixed(now - Double(boundary), 3))"])
            last = LastAnnouncement(boundary: boundary, text: "", result: "skipped: \(reason.rawValue)", onsetErrorMs: nil)
            mqtt?.publish(event: AnnouncementEvent(.skipped, boundary: local.rfc3339, reason: reason.rawValue))
            statusChanged()
            let kind: ControlErrorKind = [.muted, .quiet, .nothingToPlay].contains(reason) ? .muted : .stale
            resolveWaiters(boundary, .error("\(local.rfc3339) not announced: \(reason.rawValue)", kind: kind))
        case .speak(_, let local, let style, let gain):
            start(boundary: boundary, local: local, style: style, gain: gain)
        }
        // After a stale skip (a resume), a later boundary that passed within the late limit is next.
        if driver == .timer && !options.oneShot { arm(scheduler.boundaryToArm(after: boundary, now: now, in: zone)) }
    }

    /// Why an announcement could not start (logged, shown by `status`, and the reply's kind).
    struct StartFailure {
        var reason: String
        var status: ExitStatus
    }

    /// Starts playing; returns why it could not, if it could not.
    @discardableResult
    /// - Parameter instant: for an on-demand `say at` (no boundary), the clock instant of its first sample.
    private func start(
        boundary: Int?, local: LocalDateTime, style: AnnouncementStyle, gain: Float, instant: Double? = nil
    ) -> StartFailure? {
        let plan: AnnouncementPlan
        var timeline: Timeline
        do {
            plan = try pack.plan(hour: local.hour, minute: local.minute, style: style)
            timeline = try pack.timeline(for: plan)
        } catch {
            return failBeforeStart(boundary, local, "\(error)", status: .packError)
        }
        guard !timeline.items.isEmpty else {
            return failBeforeStart(boundary, local, "nothing to play (voice off and no chime)", status: .muted)
        }
        var pcm = Mixer.render(timeline, gain: gain, clips: { [pack] in try? pack.audio($0).storage })
        let sink: ALSASink
        do { sink = try openSink(format: timeline.format) } catch {
            return failBeforeStart(boundary, local, error.description, status: .deviceError)
        }
        if let boundary, options.clock.now() > Double(boundary) + scheduler.config.lateLimit {
            // Opening the device took so long that the time would be said stale: abandon it.
            sink.close()
            return failBeforeStart(boundary, local, "abandoned: the device opened more than late-limit after the boundary", status: .stale)
        }
        if let boundary {
            // At most once, even across a crash in the middle of the announcement.
            scheduler.recordSpoken(boundary)
            persist()
        }
        let anchorReal = (boundary.map(Double.init) ?? instant).map { realAnchor(for: $0) }
        if let anchorReal {
            // Woken too late for the whole pre-roll (a trigger 15 s before a Westminster hour whose
            // quarters start 16.5 s early): leave out the first strikes so the anchor stays on time.
            // The margin covers the device's buffer and the first writes.
            let available = Int(((anchorReal - WallClock.now()) - 0.15) * Double(timeline.format.sampleRate))
            let fitted = timeline.droppingStrikes(before: available)
            if fitted.dropped > 0 {
                logger.notice("woke too late for the whole chime", metadata: [
                    "boundary": "\(local.rfc3339)", "strikes_left_out": "\(fitted.dropped)",
                    "chime_needs_s": "\(Format.fixed(Double(timeline.anchorFrame) / Double(timeline.format.sampleRate), 1))",
                    "hint": "trigger earlier, e.g. 30 s before the boundary",
                ])
                timeline = fitted.timeline
                pcm = Mixer.render(timeline, gain: gain, clips: { [pack] in try? pack.audio($0).storage })
            }
        }
        // Clip results are summarised from the session when it ends (finished, cut, or the device error).
        let session = PlaybackSession(sink: sink, timeline: timeline, pcm: pcm, anchorAt: anchorReal, clock: WallClock.now)
        playing = Playing(session: session, sink: sink, boundary: boundary, anchorReal: anchorReal, text: plan.phrase.text, watched: [])
        watchDevice(true)
        pumpPlayback()
        return nil
    }

    /// Watches the playing sink's descriptors, or keeps them registered with no events: a
    /// clockless sink (`null`, `file:`) is always writable, and while its session waits for the
    /// anchor that would wake the loop without end.
    private func watchDevice(_ on: Bool) {
        guard let current = playing else { return }
        var watched: [Int32] = []
        for d in current.sink.pollDescriptors() {
            try? loop.watch(d.fd, events: on ? UInt32(d.events) : 0) { [unowned self] events in
                self.playing?.sink.acknowledge(revents: self.reventsFor(fd: d.fd, events: events))
                self.pumpPlayback()
            }
            watched.append(d.fd)
        }
        playing?.watched = watched
        playing?.deviceEventsOn = on
    }

    private func reventsFor(fd: Int32, events: UInt32) -> [Int16] {
        guard let playing else { return [] }
        return playing.sink.pollDescriptors().map { $0.fd == fd ? Int16(truncatingIfNeeded: events) : 0 }
    }

    private func failBeforeStart(_ boundary: Int?, _ local: LocalDateTime, _ reason: String, status: ExitStatus) -> StartFailure {
        // An on-demand `say` has no boundary: it is logged with the time it was for.
        let key = boundary == nil ? "say_at" : "boundary"
        logger.error("announcement failed", metadata: [key: "\(local.rfc3339)", "reason": "\(reason)"])
        last = LastAnnouncement(boundary: boundary, text: "", result: "failed: \(reason)", onsetErrorMs: nil)
        mqtt?.publish(event: AnnouncementEvent(.failed, boundary: boundary == nil ? nil : local.rfc3339, reason: reason))
        statusChanged()
        if let boundary { resolveWaiters(boundary, .error("announcement failed: \(reason)", kind: Self.errorKind(for: status))) }
        return StartFailure(reason: reason, status: status)
    }

    /// The configured device, configured for `format`: the one held open ahead if there is one
    /// (falling back to a fresh open if that one went stale, e.g. the sound server restarted).
    private func openSink(format: StreamFormat) throws(SinkError) -> ALSASink {
        let device = scheduler.config.device
        if let opened = warm, opened.deviceName == device {
            warm = nil
            if let sink = try? ALSASink(opened: opened, format: format) { return sink }
        }
        return try ALSASink(device: device, format: format)
    }

    /// Opens the configured device ahead of the next announcement, and keeps it only if it is a
    /// sound-server plugin (PulseAudio, PipeWire): such a handle holds no hardware and costs no
    /// wake-ups while idle (measured: 0 context switches in 30 s). `hw:` and `dmix` devices are
    /// closed again and opened per announcement, so other programs can use them.
    /// With `check`, a device found earlier not to be a sound-server plugin is opened (and closed)
    /// again, to find out whether it can be opened now. Returns why it could not be opened.
    @discardableResult
    private func warmUp(check: Bool = false) -> SinkError? {
        let device = scheduler.config.device
        guard !options.oneShot, playing == nil else { return nil }
        if let warm, warm.deviceName == device { return nil }
        if coldDevice == device && !check { return nil }
        warm = nil
        let opened: ALSASink.Opened
        do { opened = try ALSASink.Opened(device: device) } catch { return error }  // also reported when it is needed
        if opened.isSoundServerPlugin {
            warm = opened
        } else {
            coldDevice = device
        }
        return nil
    }

    /// Cuts the announcement playing if the machine slept, or the clock was stepped forward, while
    /// it waited for its boundary or played: it would start more than late-limit late, or what is
    /// left of it would say a time that has passed. Returns whether it cut.
    private func cutIfStale() -> Bool {
        guard let current = playing, let anchor = current.anchorReal else { return false }
        let slack = max(scheduler.config.lateLimit / options.clock.rate, 1)
        let sound = current.session.anchorPlayed ? Self.soundAfterAnchor(current.session.timeline) : 0
        guard WallClock.now() > anchor + sound + slack else { return false }
        cutPlaying(staleCut: true)
        return true
    }

    private func pumpPlayback() {
        guard let current = playing, !cutIfStale() else { return }
        switch current.session.pump() {
        case .wait(let timeout):
            if current.session.wantsDeviceEvents != current.deviceEventsOn { watchDevice(current.session.wantsDeviceEvents) }
            if let timeout { playbackTimer.arm(after: max(0.0005, timeout)) }
        case .done:
            finishPlayback(interrupted: false)
        }
    }

    /// Seconds of sound from the anchor to the end of the timeline.
    static func soundAfterAnchor(_ timeline: Timeline) -> Double {
        Double((timeline.items.map(\.end).max() ?? 0) - timeline.anchorFrame) / Double(timeline.format.sampleRate)
    }

    /// Cuts the announcement playing: its unplayed clips report interrupted.
    private func cutPlaying(staleCut: Bool = false, cutFor: Int? = nil) {
        guard let current = playing else { return }
        current.session.cancel()
        finishPlayback(interrupted: true, staleCut: staleCut, cutFor: cutFor)
    }

    /// - Parameter cutFor: the boundary this announcement was cut for (it always wins).
    private func finishPlayback(interrupted: Bool, staleCut: Bool = false, cutFor: Int? = nil) {
        guard let current = playing else { return }
        playing = nil
        playbackTimer.disarm()
        for fd in current.watched { loop.unwatch(fd) }
        current.sink.close()
        var onset: Double?
        if current.session.failure == nil, !interrupted, let predicted = current.session.predictedAnchorTime, let anchor = current.anchorReal {
            onset = (predicted - anchor) * 1000
        }
        let result: String
        if let failure = current.session.failure {
            result = "failed: \(failure.description)"
            var meta: JournalLog.Metadata = ["text": "\(current.text)", "reason": "\(failure.description)"]
            if let b = current.boundary { meta["boundary"] = "\(CivilTime.local(b, in: zone()).rfc3339)" }
            logger.error("announcement failed", metadata: meta)
        } else if staleCut {
            result = "cut: stale"
            var meta: JournalLog.Metadata = ["text": "\(current.text)", "reason": "stale: the clock moved past it (suspend or clock step)"]
            if let b = current.boundary { meta["boundary"] = "\(CivilTime.local(b, in: zone()).rfc3339)" }
            logger.warning("announcement cut", metadata: meta)
        } else if interrupted {
            result = "interrupted"
            var meta: JournalLog.Metadata = ["text": "\(current.text)", "kind": "\(current.boundary == nil ? "say" : "boundary")"]
            if let b = current.boundary { meta["boundary"] = "\(CivilTime.local(b, in: zone()).rfc3339)" }
            if let cutFor { meta["reason"] = "the boundary \(CivilTime.local(cutFor, in: zone()).rfc3339) is due" }
            logger.info("announcement cut", metadata: meta)
        } else {
            result = "spoke"
            var meta: JournalLog.Metadata = ["text": "\(current.text)"]
            if let b = current.boundary { meta["boundary"] = "\(CivilTime.local(b, in: zone()).rfc3339)" }
            if let onset { meta["onset_error_ms"] = "\(Format.fixed(onset, 3))" }
            logger.info("spoke", metadata: meta)
        }
        last = LastAnnouncement(boundary: current.boundary, text: current.text, result: result, onsetErrorMs: onset)
        let at = current.boundary.map { CivilTime.local($0, in: zone()).rfc3339 }
        if let failure = current.session.failure {
            mqtt?.publish(event: AnnouncementEvent(.failed, boundary: at, text: current.text, reason: failure.description))
        } else if staleCut {
            mqtt?.publish(event: AnnouncementEvent(.failed, boundary: at, text: current.text, reason: "stale: the clock moved past it (suspend or clock step)"))
        } else if interrupted {
            let why = cutFor.map { "interrupted: the boundary \(CivilTime.local($0, in: zone()).rfc3339) is due" } ?? "interrupted"
            mqtt?.publish(event: AnnouncementEvent(.skipped, boundary: at, text: current.text, reason: why))
        } else {
            mqtt?.publish(event: AnnouncementEvent(.spoke, boundary: at, text: current.text, onsetErrorMs: onset))
        }
        statusChanged()
        if let b = current.boundary {
            let at = CivilTime.local(b, in: zone()).rfc3339
            if let failure = current.session.failure {
                resolveWaiters(b, .error("announcement of \(at) failed: \(failure.description)", kind: .device))
            } else if staleCut {
                resolveWaiters(b, .error("announcement of \(at) cut: the clock moved past it (suspend or clock step)", kind: .stale))
            } else if interrupted {
                resolveWaiters(b, .error("announcement of \(at) cut before it ended (skip, mute or stop)", kind: .muted))
            } else {
                resolveWaiters(b, .ok("spoke \(at) \"\(current.text)\"" + (onset.map { " (onset \(Format.fixed($0, 3, sign: true)) ms)" } ?? "")))
            }
        }
        if !options.oneShot && !stopping {
            warmUp()
            releaseIdlePages()
        }
    }

    /// Idle until the next boundary: give clean code pages back to the page cache and malloc's free
    /// memory back to the system (CodePages). Costs about a millisecond of CPU, once per announcement.
    private func releaseIdlePages() {
        guard CodePages.enabled, !options.oneShot else { return }
        CodePages.release()
    }

    private func pingWatchdog() {
        guard notifier.watchdogInterval != nil else { return }
        notifier.send("WATCHDOG=1")
        lastWatchdog = WallClock.monotonic()
    }

    private func handleSignals() {
        for signal in signals.read() {
            switch signal {
            case SIGHUP:
                logger.info("reload requested", metadata: ["signal": "SIGHUP"])
                _ = reload(later: { _ in })
            default:
                logger.info("stopping", metadata: ["signal": "\(signal == SIGTERM ? "SIGTERM" : "SIGINT")"])
                stopping = true
                cutPlaying()
                for boundary in Set(waiters.map(\.boundary)) {
                    resolveWaiters(boundary, .error("not announced: the daemon is stopping", kind: .stale))
                }
                exitStatus = .ok
                loop.stop()
            }
        }
    }

    private func persist() {
        guard let store else { return }
        do { try store.save(scheduler.state) } catch {
            logger.error("state not saved", metadata: ["error": "\(error)"])
        }
    }

    // MARK: - Control

    /// Answers one request line: the reply now, or nil when `respond` will call `reply` later
    /// (`announce`, which answers once its boundary has been spoken; `reload`, which decodes the
    /// pack off the loop).
    private func handleControl(_ line: [UInt8], reply: @escaping (String) -> Void) -> String? {
        switch ControlRequest.parse(line: line) {
        case .failure(let error): return error.reply.render()
        case .success(let request): return respond(to: request) { reply($0.render()) }?.render()
        }
    }

    /// The reply to `request`, or nil when it will be given later through `later` (on the loop
    /// thread). Tests call this directly.
    func respond(to request: ControlRequest, later: @escaping (ControlReply) -> Void = { _ in }) -> ControlReply? {
        let now = options.clock.now()
        switch request {
        case .help:
            return .ok(ControlRequest.helpText)
        case .status:
            return .ok(statusLine())
        case .statusJSON:
            return .ok(statusJSON())
        case .say:
            if let current = playing {
                if let b = current.boundary {
                    return .error(
                        "the announcement for \(CivilTime.local(b, in: zone()).rfc3339) is playing or about to; try again when it ends, or 'skip' it",
                        kind: .busy)
                }
                cutPlaying()  // a second `say` replaces the first
            }
            let local = CivilTime.local(Int(now.rounded(.down)), in: zone())
            var style = scheduler.config.announcementStyle
            style.chime = .none  // on demand: just the time
            if let failure = start(boundary: nil, local: local, style: style, gain: Float(scheduler.config.volume) / 100) {
                return .error("failed: \(failure.reason)", kind: Self.errorKind(for: failure.status))
            }
            return .ok("speaking \(Phrase.forTime(hour: local.hour, minute: local.minute, style: style.phrase).text)")
        case .sayAt(let instant):
            return sayAt(instant, now: now)
        case .trigger:
            return trigger(maxWait: options.maxWait, waiter: nil)
        case .announce(let maxWait):
            return trigger(maxWait: Double(maxWait), waiter: later)
        case .mute, .muteFor, .muteUntil, .unmute:
            var state = scheduler.state
            switch request {
            case .mute: state.mute = .muted
            case .muteFor(let seconds): state.mute = .mutedUntil(Int(now) + seconds)
            case .muteUntil(let h, let m): state.mute = .mutedUntil(Mute.nextInstant(hour: h, minute: m, after: Int(now), in: zone()))
            default: state.mute = .unmuted
            }
            do { try store?.save(state) } catch {
                return .error("mute state not changed: \(error)", kind: .state)
            }
            scheduler.state = state
            stateWarning = nil
            logger.info("mute changed", metadata: ["mute": "\(state.mute)"])
            if let current = playing, let b = current.boundary, state.mute.isMuted(at: b) {
                // Muted while its announcement waits for the boundary or plays: silence now.
                cutPlaying()
            }
            statusChanged()
            return .ok(state.mute.description(in: zone()))
        case .skip:
            if playing != nil {
                logger.info("skip requested", metadata: ["action": "cut the current announcement"])
                cutPlaying()
                return .ok("cut the current announcement")
            }
            scheduler.skipNext = true
            logger.info("skip requested", metadata: ["action": "leave out the next announcement"])
            statusChanged()
            return .ok("the next announcement will be left out ('unskip' takes it back)")
        case .unskip:
            guard scheduler.skipNext else { return .ok("no skip was pending") }
            scheduler.skipNext = false
            logger.info("skip taken back")
            statusChanged()
            return .ok("the next announcement will be spoken")
        case .chime(let style):
            // The same check as at start and reload: the pack must be able to ring it.
            do { _ = try pack.chimePattern(for: style) } catch {
                return .error("chime not changed: \(error.description)", kind: .pack)
            }
            scheduler.config.chime = style
            logger.info("chime changed", metadata: ["chime": "\(style.rawValue)", "until": "reload"])
            statusChanged()
            return .ok("chime \(style.rawValue) (until reload or restart; set chime in the config to keep it)")
        case .volume(let percent):
            scheduler.config.volume = percent
            logger.info("volume changed", metadata: ["volume": "\(percent)", "until": "reload"])
            statusChanged()
            return .ok("volume \(percent) (until reload or restart; set volume in the config to keep it)")
        case .reload:
            return reload(later: later)
        }
    }

    /// `say at T` (what `say --everywhere` sends every room): the time spoken with its first
    /// sample at `T` on this daemon's clock, less `output-latency`, like a boundary. A `T` already
    /// past by at most `late-limit` is spoken at once (the reply says how late); further past, or
    /// more than `ControlRequest.sayAtHorizon` ahead, it is refused.
    private func sayAt(_ instant: Double, now: Double) -> ControlReply {
        let at = Format.fixed(instant, 3)
        let ahead = instant - now
        logger.info(
            "say at",
            metadata: [
                "instant": "\(at)", "ahead_s": "\(Format.fixed(ahead, 3))",
                "received": "\(Format.fixed(WallClock.now(), 6))",
            ])
        guard ahead <= ControlRequest.sayAtHorizon else {
            return .error(
                "say at \(at) is \(Format.fixed(ahead, 1)) s ahead, more than \(Int(ControlRequest.sayAtHorizon)) s; send it closer to the instant (say --everywhere picks the next whole second at least 0.5 s away)",
                kind: .usage)
        }
        guard -ahead <= scheduler.config.lateLimit else {
            return .error(
                "say at \(at) arrived \(Format.fixed(-ahead, 3)) s after its instant, more than late-limit (\(Format.fixed(scheduler.config.lateLimit, 1)) s); nothing spoken. Check that this machine's clock is synchronised (chronyc tracking) and the broker is reachable",
                kind: .stale)
        }
        if let current = playing {
            if let b = current.boundary {
                return .error(
                    "the announcement for \(CivilTime.local(b, in: zone()).rfc3339) is playing or about to; try again when it ends, or 'skip' it",
                    kind: .busy)
            }
            cutPlaying()  // a later `say` replaces an earlier one
        }
        let spokenAt = max(instant, now)
        let local = CivilTime.local(Int(spokenAt.rounded(.down)), in: zone())
        var style = scheduler.config.announcementStyle
        style.chime = .none
        // Late: anchored on now (the session starts at once); on time: anchored on the instant.
        if let failure = start(
            boundary: nil, local: local, style: style, gain: Float(scheduler.config.volume) / 100,
            instant: ahead > 0 ? instant : nil)
        {
            return .error("failed: \(failure.reason)", kind: Self.errorKind(for: failure.status))
        }
        let text = Phrase.forTime(hour: local.hour, minute: local.minute, style: style.phrase).text
        if ahead > 0 { return .ok("speaking \"\(text)\" at \(at) (in \(Format.fixed(ahead, 3)) s)") }
        return .ok("speaking \"\(text)\" now, \(Format.fixed(-ahead, 3)) s late (say at \(at) arrived after its instant)")
    }

    /// The reply kind whose exit status is `status` (`ControlErrorKind.exitStatus` read backwards);
    /// statuses no reply carries are `usage`.
    static func errorKind(for status: ExitStatus) -> ControlErrorKind {
        ControlErrorKind.allCases.first { $0.exitStatus == status } ?? .usage
    }

    /// Replies owed for boundaries (`announce` requests, and the one-shot run itself): answered
    /// when the boundary is decided, and if it is spoken, once it has played.
    private var waiters: [(boundary: Int, reply: (ControlReply) -> Void)] = []

    private func resolveWaiters(_ boundary: Int, _ reply: ControlReply) {
        let due = waiters.filter { $0.boundary == boundary }
        guard !due.isEmpty else { return }
        waiters.removeAll { $0.boundary == boundary }
        for waiter in due { waiter.reply(reply) }
    }

    /// A trigger (control `trigger`, `announce`, `announce --next`): arm the next boundary if it
    /// is within `maxWait`; a second trigger for the same boundary changes nothing. With a
    /// `waiter`, the reply is given when the boundary has been decided and played (nil is
    /// returned then, unless the trigger is refused at once).
    func trigger(maxWait: Double, waiter: ((ControlReply) -> Void)?) -> ControlReply? {
        let now = options.clock.now()
        let zone = zone()
        let recent = BoundarySchedule.next(after: now - scheduler.config.lateLimit, in: zone, interval: scheduler.config.interval)
        if case .skip(_, let local, .alreadySpoken) = scheduler.decide(boundary: recent, now: now, in: zone), playing?.boundary != recent {
            logger.info("skipped", metadata: ["boundary": "\(local.rfc3339)", "reason": "\(SkipReason.alreadySpoken.rawValue)"])
            mqtt?.publish(event: AnnouncementEvent(.skipped, boundary: local.rfc3339, reason: SkipReason.alreadySpoken.rawValue))
            return .error("\(local.rfc3339) was already announced", kind: .stale)
        }
        let boundary = scheduler.nextBoundary(after: now - scheduler.config.lateLimit, in: zone)
        let local = CivilTime.local(boundary, in: zone)
        let wait = Double(boundary) - now
        logger.info("trigger", metadata: ["boundary": "\(local.rfc3339)", "wait_s": "\(Format.fixed(wait, 1))"])
        if playing?.boundary == boundary || armed == boundary {
            guard let waiter else { return .ok("already announcing \(local.rfc3339)") }
            waiters.append((boundary, waiter))
            return nil
        }
        guard wait <= maxWait else {
            return .error(
                "the next boundary (\(local.rfc3339)) is \(Int(wait.rounded())) s away, more than --max-wait \(Int(maxWait)) s; trigger closer to it",
                kind: .stale)
        }
        if let waiter { waiters.append((boundary, waiter)) }
        if now >= wakeTime(for: boundary) {
            announce(boundary)  // already inside the lead and pre-roll (or late, within the late limit)
        } else {
            arm(boundary)
        }
        return waiter == nil ? .ok("announcing \(local.rfc3339) in \(Format.fixed(max(0, wait), 1)) s") : nil
    }

    /// Reloads the config and the pack. The pack is decoded on a thread of its own (a large pack
    /// takes a second), so an announcement playing meanwhile never waits; the new config and pack
    /// are swapped in on the loop thread in one step. Requests that arrive while one reload runs
    /// are answered by the next one, which starts when it ends (five SIGHUPs make two loads).
    func reload(later: @escaping (ControlReply) -> Void) -> ControlReply? {
        reloadWaiters.append(later)
        if reloader.isRunning {
            reloadAgain = true
        } else {
            startReload()
        }
        return nil
    }

    private func startReload() {
        let options = self.options
        let waiting = reloadWaiters
        reloadWaiters = []
        reloader.start({ () -> ReloadOutcome in
            do throws(DaemonStartError) {
                let config = try Self.loadConfig(options)
                return ReloadOutcome(result: .success(LoadedSettings(config: config, pack: try Self.loadPack(for: config))))
            } catch {
                return ReloadOutcome(result: .failure(error))
            }
        }) { [unowned self] outcome in
            let reply = self.applyReload(outcome.result)
            for waiter in waiting { waiter(reply) }
            if self.reloadAgain {
                self.reloadAgain = false
                self.startReload()
            } else if self.playing == nil {
                // The old pack's clips are freed now: idle again.
                self.releaseIdlePages()
            }
        }
    }

    private func applyReload(_ result: Result<LoadedSettings, DaemonStartError>) -> ControlReply {
        switch result {
        case .failure(let error):
            logger.error("reload refused", metadata: ["reason": "\(error.description)"])
            return .error(
                "reload refused, the previous configuration and pack stay: \(error.description)",
                kind: Self.errorKind(for: error.status))
        case .success(let loaded):
            // A changed [mqtt] table: the new room is made (password file read) before anything
            // is swapped, so a bad one refuses the whole reload and the old connection stays.
            var newRoom: MQTTRoom??
            if loaded.config.mqtt != scheduler.config.mqtt && !options.oneShot {
                do throws(DaemonStartError) {
                    if let table = loaded.config.mqtt {
                        let settings = try MQTTSettings.resolve(
                            table, configPath: options.configPath ?? Self.defaultConfigPath(), version: options.version)
                        newRoom = .some(try makeRoom(settings))
                    } else {
                        newRoom = .some(nil)
                    }
                } catch {
                    logger.error("reload refused", metadata: ["reason": "\(error.description)"])
                    return .error(
                        "reload refused, the previous configuration and pack stay: \(error.description)",
                        kind: Self.errorKind(for: error.status))
                }
            }
            scheduler.config = loaded.config
            if let newRoom {
                // Reconnect with the new settings: the old room says `offline` and disconnects.
                mqtt?.stop()
                mqtt = newRoom
                mqtt?.start()
                logger.info("mqtt settings changed", metadata: ["broker": "\(mqtt?.settings.options.brokerName ?? "none")"])
            }
            pack = loaded.pack
            refreshZone()
            logger.info("reloaded", metadata: ["pack": "\(pack.name)", "device": "\(loaded.config.device)"])
            let problem = checkDevice()
            // Also while playing: the boundary armed then may not be one in the new zone or interval.
            if driver == .timer && !options.oneShot { arm(scheduler.boundaryToArm(after: nil, now: options.clock.now(), in: zone())) }
            statusChanged()
            return .ok("reloaded" + (problem.map { "; warning: \($0)" } ?? ""))
        }
    }

    /// Opens the configured device now (at start and reload) so that a wrong name or a missing
    /// card is reported at once rather than at the next boundary. The daemon keeps running
    /// either way: the device may appear later. Returns the warning, also logged.
    @discardableResult
    private func checkDevice() -> String? {
        let device = scheduler.config.device
        var failure: SinkError?
        if let current = playing, current.sink.deviceName == device {
            return nil  // it is playing on it
        } else if playing != nil {
            do { _ = try ALSASink.Opened(device: device) } catch { failure = error }
        } else {
            failure = warmUp(check: true)
        }
        guard let failure else { return nil }
        let text = "the sound device \"\(device)\" cannot be opened now (\(failure.description)); announcements will fail until it can. Fix 'device' in the config or --device ('aplay -L' lists the devices), then reload."
        logger.warning("device not usable", metadata: ["device": "\(device)", "reason": "\(failure.description)"])
        return text
    }

    private func statusLine() -> String {
        let z = zone()
        var parts = ["driver \(driver.rawValue)"]
        if let b = armed {
            let local = CivilTime.local(b, in: z)
            parts.append("next \(local.rfc3339) \"\(Phrase.forTime(hour: local.hour, minute: local.minute, style: scheduler.config.announcementStyle.phrase).text)\"")
        }
        parts.append("mute \(scheduler.state.mute.resolved(at: Int(options.clock.now())).description(in: z))")
        if scheduler.skipNext { parts.append("skip pending (the next announcement is left out; 'unskip' takes it back)") }
        if let stateWarning { parts.append("warning: \(stateWarning)") }
        if let last { parts.append("last \(last.result)" + (last.onsetErrorMs.map { " (onset \(Format.fixed($0, 3, sign: true)) ms)" } ?? "")) }
        parts.append("device \(scheduler.config.device)")
        parts.append("pack \(pack.name)")
        return parts.joined(separator: "; ")
    }

    /// What `status json` answers and MQTT retains on `<topic>/<room>/state`.
    func statusReport() -> StatusReport {
        let z = zone()
        let now = Int(options.clock.now())
        let next = armed.map { b -> StatusReport.Next in
            let local = CivilTime.local(b, in: z)
            return StatusReport.Next(
                at: local.rfc3339,
                text: Phrase.forTime(hour: local.hour, minute: local.minute, style: scheduler.config.announcementStyle.phrase).text)
        }
        let mute = scheduler.state.mute.resolved(at: now)
        return StatusReport(
            driver: driver.rawValue, next: next, muted: mute.isMuted(at: now), mute: mute.description(in: z),
            skipPending: scheduler.skipNext, stateWarning: stateWarning,
            quiet: QuietHours.rule(in: scheduler.config.quiet, at: CivilTime.local(now, in: z))?.description,
            last: last.map {
                StatusReport.Last(
                    result: $0.result, text: $0.text, boundary: $0.boundary.map { CivilTime.local($0, in: z).rfc3339 },
                    onsetErrorMs: $0.onsetErrorMs)
            },
            playing: playing != nil, device: scheduler.config.device, pack: pack.name, zone: z.identifier,
            chime: scheduler.config.chime.rawValue, volume: scheduler.config.volume)
    }

    private func statusJSON() -> String { statusReport().json }

    /// Something `status` shows changed: tell systemd, and republish the MQTT state.
    private func statusChanged() {
        notifier.send("STATUS=\(statusLine())")
        mqtt?.stateMayHaveChanged()
    }
}
