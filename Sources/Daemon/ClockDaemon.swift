import ClockEngine
import ConfigFiles
import EventLoop
import FoundationEssentials
import Glibc
import Outputs
import TalkingClockCore

/// The user daemon: the event loop's descriptors (signals, the zone watches, the control socket,
/// MQTT) wired to one `EngineDriver` that runs the pure `ClockEngine` on the Linux ports. Every
/// decision is the engine's and every effect is carried out by the driver; this file only turns
/// what happens on a descriptor into an event.
public final class ClockDaemon {
    private let options: DaemonOptions
    private let logger: JournalLog
    private let loop: EventLoop
    /// Held for the daemon's lifetime: one daemon per state directory (see `singleInstanceLock`).
    private let stateLock: StateLock?
    private let notifier = SystemdNotifier()
    private let ports: LinuxPorts
    private let driver: EngineDriver
    private var server: ControlServer?
    private let signals: SignalFD
    /// Only when systemd asks for watchdog pings: every half `WatchdogSec`.
    private var watchdogTimer: TimerFD?
    /// /etc/localtime and /etc/timezone being replaced (nil if they cannot be watched).
    private let zoneWatch: DirectoryWatch?
    /// The zone file in use being replaced (a `tzdata` update).
    private var zoneFileWatch: DirectoryWatch?
    /// The room on the MQTT broker; nil without an `[mqtt]` table (then no MQTT code runs).
    private var mqtt: MQTTRoom?

    public var driverKind: Driver { driver.engine.driver }

    public init(options: DaemonOptions) throws(DaemonStartError) {
        self.options = options
        // `announce --next` from cron: only what went wrong (its result line is on stdout).
        logger = JournalLog(minimumLevel: options.oneShot && !options.verbose ? .warning : .info)
        let loaded = try Self.loadSettings(options)
        // Before any thread exists: the clock's own stream is labelled (and given the configured
        // media.role), so users can route or duck it in PulseAudio/WirePlumber.
        OutputRegistry.labelStreams(role: loaded.config.courtesy.role, environment: ProcessInfo.processInfo.environment)
        var store: StateStore?
        if let directory = options.stateDirectory {
            store = StateStore(directory: directory)
            try? store?.prepareDirectory()  // a directory that cannot be made is reported when saving
            stateLock = try StateLock.singleInstance(stateDirectory: directory.path)
        } else {
            stateLock = nil  // a demo keeps its state in memory and may run beside the real clock
        }
        let (state, warning) = store?.load() ?? (PersistentState(), nil)
        do {
            loop = try EventLoop()
            // The signals systemd, a terminal or a stray `kill` send: none may end the clock
            // without its goodbye (USR1/USR2/ALRM/QUIT are logged and ignored).
            signals = try SignalFD(signals: [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGQUIT])
            zoneWatch = try? DirectoryWatch(directory: "/etc", names: ["localtime", "timezone"])
            ports = try LinuxPorts(
                loop: loop, options: options, settings: loaded, store: store, loadedState: warning == nil ? state : nil, logger: logger, notifier: notifier)
        } catch {
            throw DaemonStartError(status: .internalError, description: error.description)
        }
        let zone = loaded.config.zone ?? ((try? ZoneResolver.resolve(explicit: nil)) ?? .utc)
        let engine = ClockEngine(
            options: ClockEngine.Options(
                driver: options.driver, oneShot: options.oneShot, maxWait: options.maxWait, lead: options.lead,
                rate: options.clock.rate, clock: options.clock.description),
            settings: loaded.engineSettings, state: state, stateWarning: warning, zone: zone)
        driver = EngineDriver(engine: engine, ports: ports, surfaces: [JournalSurface(logger: logger), SystemdSurface(notifier: notifier)])
        ports.attach(driver)
        driver.onOneShotReply { [unowned ports] in ports.oneShotReplied($0) }
        driver.zoneDidChange = { [unowned self] _ in self.watchZoneFile() }
        ports.onAdopt = { [unowned self] before, after in self.adopted(before, after) }
        if let warning { logger.warning("state file unreadable", metadata: ["detail": "\(warning)"]) }
        if let path = options.socketPath, !options.oneShot {
            do {
                server = try ControlServer(path: path, loop: loop) { [unowned self] line, reply in
                    self.control(line, reply)
                    return nil
                }
            } catch {
                throw DaemonStartError(
                    status: .badInput,
                    description: "Could not start the control socket: \(error.description)" + Self.socketHint(error, options))
            }
        }
        if let mqttSettings = loaded.mqtt, !options.oneShot { mqtt = try makeRoom(mqttSettings) }
    }

    /// What to do when the socket is taken: a demo beside the running daemon needs a socket of its own.
    static func socketHint(_ error: SystemError, _ options: DaemonOptions) -> String {
        guard error.code == EADDRINUSE, !options.clock.isReal else { return "" }
        return " A demo (--clock-offset, --fake-clock) can run beside it with a socket of its own: add --socket /tmp/talking-clock-demo.sock."
    }

    private func makeRoom(_ settings: MQTTSettings) throws(DaemonStartError) -> MQTTRoom {
        let room = try MQTTRoom(
            settings: settings, loop: loop, logger: logger, state: driver.engine.status(now: ports.now()),
            execute: { [unowned self] line, _ in
                // Answered through the room in effect when the answer comes: a `reload` that
                // replaced the room (a changed [mqtt] table) answers through the new one.
                self.control(line) { [weak self] text in self?.mqtt?.replyWhenConnected(text) }
            })
        room.onValue = { [unowned self] reading in self.driver.send(.value(reading)) }
        driver.attach(room)
        return room
    }

    // MARK: - Running

    /// Runs until SIGTERM/SIGINT (daemon) or until the one announcement is decided (one-shot).
    public func run() -> ExitStatus {
        // A log reader that goes away (`run … | head`) must never stop the clock.
        signal(SIGPIPE, SIG_IGN)
        // --fake-clock T means T when the daemon is ready, not when the process started.
        ports.startClock()
        do {
            try loop.watch(signals.fd, events: .readable) { [unowned self] _ in self.handleSignals() }
            if let zoneWatch {
                try loop.watch(zoneWatch.fd, events: .readable) { [unowned self] _ in
                    if zoneWatch.read() { self.zoneMayHaveChanged() }
                }
            }
            if let interval = notifier.watchdogInterval {
                let timer = try TimerFD(realtime: false)
                try loop.watch(timer.fd, events: .readable) { [unowned self] _ in
                    _ = timer.read()
                    self.notifier.send("WATCHDOG=1")
                    timer.arm(after: interval)
                }
                timer.arm(after: interval)
                watchdogTimer = timer
            }
        } catch {
            logger.critical("event loop setup failed", metadata: ["error": "\(error)"])
            return .internalError
        }
        let engine = driver.engine
        var started: JournalLog.Metadata = [
            "driver": "\(engine.driver.rawValue)", "pack": "\(engine.pack.name)", "device": "\(engine.config.device)",
            "zone": "\(engine.zone.identifier)", "interval": "\(engine.config.interval.rawValue)",
            "socket": "\(server?.path ?? "none")", "clock": options.clock.isReal ? "real" : options.clock.description,
        ]
        // A simulated clock: the real instant it read its start, so each simulated boundary's real
        // instant is known (start + (boundary - fake start) / rate).
        if let real = ports.simulatedClockStart { started["clock_started_at"] = Format.fixed(real, 6) }
        // The rhythm beyond the base interval: its windows, and how many reminders it keeps.
        if !engine.config.windows.isEmpty { started["windows"] = engine.config.windows.map(\.description).joined(separator: "; ") }
        if !engine.config.reminders.isEmpty { started["reminders"] = "\(engine.config.reminders.count)" }
        logger.info("started", metadata: started)
        if !options.oneShot { ports.courtesy.repairAtStart() }
        driver.send(.start)
        if !ports.exited {
            if !options.oneShot { ports.checkDeviceAtStart() }
            watchZoneFile()
            mqtt?.start()
            notifier.send("READY=1\nSTATUS=\(ClockEngine.line(driver.engine.status(now: ports.now())))")
            ports.releaseIdlePages()
            loop.run()
        }
        notifier.send("STOPPING=1")
        mqtt?.stop()
        server?.close()
        if !ports.stopDevice() {
            // The device thread is stuck inside the sound server: leave without the process's exit
            // handlers (one could wait on the same lock), having said what happened.
            logger.warning("sound device still not answering at exit", metadata: ["hint": "the thread writing it is left behind"])
            _exit(ports.exitStatus.rawValue)
        }
        return ports.exitStatus
    }

    /// One control line from the socket or MQTT; the reply comes through `reply`, now or later.
    private func control(_ line: [UInt8], _ reply: @escaping (String) -> Void) {
        switch ControlRequest.parse(line: line) {
        case .failure(let error): reply(error.reply.render())
        case .success(let request): driver.control(request) { reply($0.render()) }
        }
    }

    private func handleSignals() {
        for signal in signals.read() {
            switch signal {
            case SIGHUP: driver.send(.reloadRequested)
            case SIGTERM, SIGINT:
                logger.info("stop requested", metadata: ["signal": "\(signal == SIGTERM ? "SIGTERM" : "SIGINT")"])
                driver.send(.stop)
            default:
                logger.notice("signal ignored", metadata: ["signal": "\(signal)", "hint": "SIGTERM stops the daemon, SIGHUP reloads it"])
            }
        }
    }

    // MARK: - The zone

    private func zoneMayHaveChanged() {
        let z = ports.currentZone()
        if z != driver.engine.zone { driver.send(.zoneChanged(z)) }
    }

    /// The zone for `config` read again; what cannot be read now (a file half-replaced) leaves the
    /// zone as it was.
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
        let file = ZoneResolver.realFile(of: driver.engine.zone)
        if let current = zoneFileWatch, let file, current.directory + "/" + (current.names.first ?? "") == file { return }
        if let current = zoneFileWatch {
            loop.unwatch(current.fd)
            zoneFileWatch = nil
        }
        guard let file, let slash = file.lastIndex(of: "/") else { return }
        let directory = slash == file.startIndex ? "/" : String(file[..<slash])
        let name = String(file[file.index(after: slash)...])
        do {
            let watch = try DirectoryWatch(directory: directory, names: [name])
            try loop.watch(watch.fd, events: .readable) { [unowned self] _ in
                if watch.read() { self.zoneMayHaveChanged() }
            }
            zoneFileWatch = watch
        } catch {
            logger.warning("cannot watch the zone file", metadata: ["file": "\(file)", "reason": "\(error)"])
        }
    }

    // MARK: - Reload

    /// New settings are in effect: MQTT follows a changed table (or a pack that rings other chimes:
    /// the discovery's select changes).
    private func adopted(_ before: LoadedSettings, _ after: LoadedSettings) {
        let changed =
            (after.config.mqtt != before.config.mqtt || after.mqtt?.discovery?.text != before.mqtt?.discovery?.text
                || after.mqtt?.valueTopic != before.mqtt?.valueTopic)
            && !options.oneShot
        guard changed else { return }
        // Reconnect with the new settings: the old room says `offline` and disconnects.
        if let old = mqtt {
            old.stop()
            driver.detach(old)
        }
        mqtt = nil
        if let table = after.mqtt {
            do { mqtt = try makeRoom(table) } catch {
                logger.error("mqtt not started", metadata: ["reason": "\(error.description)"])
            }
        }
        mqtt?.start()
        logger.info("mqtt settings changed", metadata: ["broker": "\(mqtt?.settings.options.brokerName ?? "none")"])
    }
}

extension ClockEngine {
    /// The reply kind whose exit status is `status`; statuses no reply carries are `usage`.
    static func errorKind(for status: ExitStatus) -> ControlErrorKind {
        ControlErrorKind.allCases.first { $0.exitStatus == status } ?? .usage
    }
}
