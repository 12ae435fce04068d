import ConfigFiles
import Outputs
import ArgumentParser
import EventLoop
import FoundationEssentials
import Glibc
import Synchronization
import Playback
import SoundPack
import TalkingClockCore

struct Say: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Speak the current time (or --at HH:MM) once.",
        discussion: """
            Words, chime, pack and device come from the config file (see 'talking-clock config-example'); \
            the options override it. The chime plays first (Westminster at :15/:30/:45/:00, the hour bell \
            at :00). Exit 0 when it spoke; see 'talking-clock --help' for the other codes.
            """
    )

    @OptionGroup var clock: ClockOptions

    @Option(help: "Config file (default: $XDG_CONFIG_HOME/talking-clock/config.toml, if it exists).")
    var config: String?

    @Option(help: "Speak this time of day instead of now (24-hour HH:MM).")
    var at: String?

    @Option(help: "Write the exact samples that would be played to this WAV file instead of playing.")
    var output: String?

    @Flag(help: "Print the phrase and its clips; play nothing.")
    var dryRun = false

    // `.unconditional`: `--clock-offset -3600` is a value, not an unknown option.
    @Option(parsing: .unconditional, help: "Shift the wall clock by this many seconds (negative: earlier).")
    var clockOffset: Double = 0

    @Flag(help: "Speak here even if a daemon is running (by default a plain 'say' asks the daemon).")
    var local = false

    @Option(help: "The daemon's control socket a plain 'say' is handed to (default: $XDG_RUNTIME_DIR/talking-clock/control.sock); if no daemon listens there, 'say' speaks here.")
    var socket: String?

    @OptionGroup var rooms: EverywhereFlags

    func run() throws {
        if rooms.everywhere {
            guard at == nil, output == nil, !dryRun, !local else {
                throw CLIError(
                    .badInput,
                    "--everywhere speaks the time now in every room, in unison; it cannot be combined with --at, --output, --dry-run or --local.")
            }
            // Every room gets the same instant: the next whole second at least 0.5 s away.
            try Everywhere.send(Everywhere.sayAtLine(now: WallClock.now(), offset: clockOffset), configPath: config, wait: rooms.wait)
            return
        }
        // A plain `say` goes through a running daemon (its device, pack and volume); anything
        // more specific, or no daemon, speaks here.
        if !local, at == nil, output == nil, !dryRun, clockOffset == 0, clock.zone == nil, clock.pack == nil, clock.device == nil,
            clock.chime == nil, clock.phrasing == nil, clock.language == nil, config == nil, let reply = try Self.throughDaemon(socket: socket)
        {
            print(reply)
            return
        }
        let settings = try Support.config(path: config, options: clock)
        // The stream is labelled as the daemon's is (application name and id, the configured
        // media.role), before the device-opening thread starts.
        if output == nil && !dryRun {
            OutputRegistry.labelStreams(role: settings.courtesy.role, environment: ProcessInfo.processInfo.environment)
        }
        // Opening the device (ALSA configuration, sound-server connection: ~3.5 ms with PulseAudio)
        // is the slowest step and needs only the device's name: start it on a second thread now,
        // while this one resolves the zone, loads the pack, plans, decodes and mixes.
        let opening = output == nil && !dryRun ? DeviceOpener(device: settings.device) : nil
        let zone = try settings.zone ?? Support.zone(nil)
        let (hour, minute): (Int, Int)
        if let at {
            do { (hour, minute) = try InstantParser.parseClockTime(at) } catch {
                throw CLIError(.badInput, "--at: \(error.description)")
            }
        } else {
            let local = CivilTime.local(Int((WallClock.now() + clockOffset).rounded(.down)), in: zone)
            (hour, minute) = (local.hour, local.minute)
        }
        let style = settings.announcementStyle
        // The phrase needs no pack: a dry run shows it even when the pack cannot say it.
        if dryRun { print(Phrase.forTime(hour: hour, minute: minute, style: style.phrase).text) }
        let pack = try Support.pack(settings.pack, origin: settings.packOrigin, scan: false)
        try Support.requireLanguage(pack, settings.language)
        // The stream format is known now: the opening thread configures the device (hw/sw params,
        // the sound server's stream) while this one decodes and mixes.
        opening?.configure(format: pack.format)
        let plan = try Support.plan(hour: hour, minute: minute, style: style, pack: pack)
        if dryRun {
            print("clips: " + Support.clipList(plan.clips))
            if let chime = Support.chimeSummary(plan, style: style.chime) { print(chime) }
            return
        }
        let timeline = try Support.timeline(plan, pack: pack)
        let pcm = Mixer.render(timeline, gain: Float(settings.volume) / 100, clips: { try? pack.audio($0).storage })
        if let output {
            do throws(FileOutput.Failure) { try FileOutput.write(WAV.encode(pcm, format: timeline.format), to: output) } catch {
                throw CLIError(.cannotWrite, error.description)
            }
            return
        }
        let sink: any AudioSink
        switch opening!.wait() {
        case .success(let opened): sink = opened
        case .failure(let error):
            // No such device (often: no sound card at all, a server, a container, SSH): the
            // commands that need none.
            let noCard =
                error.kind == .notFound
                ? " Without a sound card, write the samples to a file with --output FILE.wav, or print the words with --dry-run."
                : ""
            throw CLIError(.deviceError, error.description + noCard)
        }
        let session = PlaybackSession(sink: sink, timeline: timeline, pcm: pcm, clock: WallClock.now)
        PlaybackRunner.run(session, sink: sink)
        sink.close()
        if let failure = session.failure {
            throw CLIError(.deviceError, failure.description)
        }
    }
}

extension Say {
    /// Sends a plain `say` to the running daemon (on `socket`, default the usual one) and returns
    /// its reply; nil when no daemon listens (then `say` speaks here).
    static func throughDaemon(socket: String? = nil) throws -> String? {
        do { return try Control.send("say", socket: socket ?? ControlPaths.socket()) } catch let error as CLIError where error.status == .noDaemon {
            return nil
        }
    }
}

/// Opens a device (through the output registry) on its own thread as soon as its name is known,
/// then makes its stream once `configure(format:)` says the format; `wait()` joins it. Dropping
/// the opener before `configure(format:)` (the command failed before it needed the device) waits
/// for the thread to close the device, so the process never exits while another thread is inside
/// ALSA or libpulse.
final class DeviceOpener {
    /// Shared with the opening thread, which must not keep the opener itself alive.
    fileprivate final class Shared: Sendable {
        struct State {
            var format: StreamFormat?
            var abandoned = false
            var result: Unchecked<Result<any AudioSink, SinkError>>?
        }
        let state = Mutex(State())
        /// Given when the format is known or the opener is abandoned.
        let go: Latch
        /// Given when the thread is done (a result, or the device closed after abandonment).
        let done: Latch
        let device: String
        init(device: String) throws(SystemError) {
            self.device = device
            go = try Latch()
            done = try Latch()
        }
    }
    private let shared: Shared?
    /// Without a thread (none could be made): the device and format, opened in `wait()`.
    private var fallbackDevice = ""
    private var fallbackFormat: StreamFormat?

    init(device: String) {
        fallbackDevice = device
        guard let shared = try? Shared(device: device) else {
            self.shared = nil
            return
        }
        self.shared = shared
        if !Threads.spawn({ Self.run(shared) }) { Self.run(shared) }
    }

    private static func run(_ shared: Shared) {
        let opened = Self.open(shared.device, shared)
        shared.state.withLock { $0.result = opened.map(Unchecked.init) }
        shared.done.signal()
    }

    /// Opens, waits for the format, configures. nil when abandoned (the device is closed by then).
    private static func open(_ device: String, _ shared: Shared) -> Result<any AudioSink, SinkError>? {
        do throws(SinkError) {
            let prepared = try OutputRegistry.prepare(device)
            shared.go.wait()
            guard let format = shared.state.withLock({ $0.abandoned ? nil : $0.format }) else { return nil }
            return .success(try OutputRegistry.open(device, format: format, prepared: prepared))
        } catch {
            return .failure(error)
        }
    }

    func configure(format: StreamFormat) {
        fallbackFormat = format
        guard let shared else { return }
        shared.state.withLock { $0.format = format }
        shared.go.signal()
    }

    func wait() -> Result<any AudioSink, SinkError> {
        guard let shared else {
            guard let format = fallbackFormat else { return .failure(SinkError(.failed, "The device was never configured.")) }
            do throws(SinkError) { return .success(try OutputRegistry.open(fallbackDevice, format: format)) } catch {
                return .failure(error)
            }
        }
        shared.done.wait()
        return shared.state.withLock { $0.result?.value } ?? .failure(SinkError(.failed, "The device could not be opened."))
    }

    deinit {
        guard let shared else { return }
        let finished = shared.state.withLock { state -> Bool in
            if state.result != nil { return true }
            state.abandoned = true
            return false
        }
        if !finished {
            shared.go.signal()
            shared.done.wait()
        }
    }
}
