import Clients
import ConfigFiles
import TOML
import ArgumentParser
import Daemon
import EventLoop
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// Options of the commands that run the scheduling machinery.
struct DaemonArguments: ParsableArguments {
    @OptionGroup var clock: ClockOptions

    @Option(help: "Config file (default: $XDG_CONFIG_HOME/talking-clock/config.toml).")
    var config: String?

    // `.unconditional` takes `-3600` as the value (by default a leading '-' reads as an option:
    // "Missing value"); a value out of range is then refused by `validate` with its reason.
    @Option(parsing: .unconditional, help: "Shift the wall clock by this many seconds, negative for earlier (tests and demos: make a boundary come soon).")
    var clockOffset: Double = 0

    @Option(help: "Simulate the clock from this instant (RFC 3339 or local time in --tz), counted from when the daemon is ready.")
    var fakeClock: String?

    @Option(parsing: .unconditional, help: "With --fake-clock: how many times faster than real time the simulated clock runs.")
    var clockRate: Double = 1

    @Option(
        help: ArgumentHelp(
            "State directory (default: $XDG_STATE_HOME/talking-clock).",
            discussion: "With --clock-offset or --fake-clock and no --state-dir, mute and the last boundary spoken are kept in memory only, so a demo never changes what the real clock does."))
    var stateDir: String?

    @Option(help: "Control socket path (default: $XDG_RUNTIME_DIR/talking-clock/control.sock).")
    var socket: String?

    func validate() throws {
        guard clockRate > 0 && clockRate <= 3600 else { throw ValidationError("--clock-rate must be above 0 and at most 3600, not \(clockRate).") }
        guard abs(clockOffset) < 100 * 365 * 86_400 else { throw ValidationError("--clock-offset is out of range.") }
        guard clockRate == 1 || fakeClock != nil else {
            throw ValidationError(
                "--clock-rate is the speed of the simulated clock, so it needs --fake-clock (e.g. --fake-clock 2026-07-01T12:44:50 --clock-rate \(Format.fixed(clockRate, clockRate == clockRate.rounded() ? 0 : 2))); the real clock always runs at rate 1.")
        }
    }

    /// `--state-dir` if given; else the real state for a real clock, and none (memory only) for a
    /// shifted or simulated one: a demo must never store a simulated boundary or a mute until 2126.
    func stateDirectory(clockIsReal: Bool) -> URL? {
        if let stateDir { return URL(fileURLWithPath: stateDir) }
        return clockIsReal ? StateStore.defaultDirectory() : nil
    }

    func options(driver: Driver?, oneShot: Bool, maxWait: Double) throws -> DaemonOptions {
        let overrides = try clock.overrides()
        var source = ClockSource(offset: clockOffset)
        if let fakeClock {
            let zone = try Support.zone(clock.zone)
            do { source = ClockSource(fakeStart: try InstantParser.parse(fakeClock, in: zone), rate: clockRate) } catch {
                throw CLIError(.badInput, "--fake-clock: \(error.description)")
            }
        }
        return DaemonOptions(
            configPath: config, overrides: overrides, driver: driver,
            stateDirectory: stateDirectory(clockIsReal: source.isReal),
            socketPath: socket ?? ControlPaths.socket(), clock: source, oneShot: oneShot, maxWait: maxWait,
            version: BuildInfo.version)
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon: speak every boundary (or on triggers), controlled through its socket.",
        discussion: "Logs one line per decision to stderr with syslog priorities journald understands. SIGHUP reloads; SIGTERM/SIGINT cut the current clip and exit 0."
    )

    @OptionGroup var arguments: DaemonArguments

    @Option(help: "timer (own precise timer, default) or external (only on 'trigger').")
    var driver: Driver?

    func run() throws {
        let daemon: ClockDaemon
        do { daemon = try ClockDaemon(options: try arguments.options(driver: driver, oneShot: false, maxWait: 60)) } catch let e as DaemonStartError {
            throw CLIError(e.status, e.description)
        }
        let status = daemon.run()
        if status != .ok { throw ExitCode(status.rawValue) }
    }
}

extension Driver: ExpressibleByArgument {}

struct Announce: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "announce",
        abstract: "One-shot for cron or a systemd timer: wait for the next boundary and announce it on the dot.",
        discussion: """
            Exits 0 when it spoke, 2 when muted or in silent quiet hours, 3 when no boundary is within \
            --max-wait or it could not start by the boundary plus late-limit, 69 on a device error. \
            If a daemon is running, the trigger is handed to it instead.
            """
    )

    @OptionGroup var arguments: DaemonArguments

    @Flag(help: "Announce the next boundary (required; the only mode).")
    var next = false

    @Option(parsing: .unconditional, help: "Announce only if the next boundary is at most this many seconds away.")
    var maxWait: Double = 60

    @Flag(help: "Write every log line to stderr (by default only warnings and errors: cron mails what a job prints).")
    var verbose = false

    func validate() throws {
        guard next else { throw ValidationError("announce needs --next.") }
        guard maxWait >= 0 else { throw ValidationError("--max-wait must be 0 or more.") }
    }

    func run() throws {
        let socket = arguments.socket ?? ControlPaths.socket()
        if arguments.fakeClock == nil, arguments.clockOffset == 0, ControlClient.isListening(socket) {
            // The daemon answers once the boundary has been spoken (or not), with the outcome the
            // stand-alone path exits with; allow for the wait, the chime and the words.
            let wait = Int(maxWait.rounded(.up))
            print(try Control.send("announce \(wait)", socket: socket, timeout: Double(wait) + 300))
            return
        }
        let daemon: ClockDaemon
        var options = try arguments.options(driver: .external, oneShot: true, maxWait: maxWait)
        options.verbose = verbose
        do throws(DaemonStartError) { daemon = try ClockDaemon(options: options) } catch let e {
            throw CLIError(e.status, e.description)
        }
        let status = daemon.run()
        if status != .ok { throw ExitCode(status.rawValue) }
    }
}

/// Talking to a running daemon. An `error <kind>:` reply exits with the same status as the
/// stand-alone path would (`ControlErrorKind.exitStatus`).
enum Control {
    static func send(_ request: String, socket: String, timeout: Double = 10, waitingFor: String? = nil) throws -> String {
        let line: String
        // A request that takes a while (a reload decodes the pack) says so after a few seconds.
        let note: (() -> Void)? = waitingFor.map { what in
            { writeStandardError("talking-clock: waiting for the daemon to finish \(what) (at most \(Int(timeout)) s)…\n") }
        }
        do {
            line = try ControlClient.send(
                request, path: socket, timeout: timeout, waitingFor: waitingFor, noteAfter: note == nil ? nil : 3, note: note)
        } catch let failure as ControlClient.Failure {
            switch failure {
            case .noDaemon, .noAnswer: throw CLIError(.noDaemon, failure.description)
            case .io: throw CLIError(.internalError, failure.description)
            case .refused: throw CLIError(.badInput, failure.description)
            }
        }
        switch ControlReply.parse(line) {
        case .ok(let text): return text ?? "ok"
        case .error(let message, let kind): throw CLIError(kind.exitStatus, message)
        }
    }
}

struct SocketOption: ParsableArguments {
    @Option(help: "Control socket path (default: $XDG_RUNTIME_DIR/talking-clock/control.sock).")
    var socket: String?

    var path: String { socket ?? ControlPaths.socket() }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the daemon's state: driver, next boundary, mute, last announcement.")
    @OptionGroup var socket: SocketOption
    @Flag(help: "One line of JSON.") var json = false
    func run() throws { print(try Control.send(json ? "status json" : "status", socket: socket.path)) }
}

/// The socket of the local daemon, or with `--everywhere` every room on the broker.
struct Destination: ParsableArguments {
    @OptionGroup var socket: SocketOption
    @OptionGroup var rooms: EverywhereFlags
    @OptionGroup var roomsConfig: RoomsConfigOption

    /// `timeout` and `waitingFor`: for a request the local daemon may take a while to answer
    /// (see `Control.send`).
    func deliver(_ request: String, timeout: Double = 10, waitingFor: String? = nil) throws {
        if rooms.everywhere {
            try Everywhere.send(request, configPath: roomsConfig.config, wait: rooms.wait)
        } else {
            print(try Control.send(request, socket: socket.path, timeout: timeout, waitingFor: waitingFor))
        }
    }
}

struct Trigger: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger", abstract: "Tell the running daemon a boundary is near (it waits for it on its own clock).",
        discussion: """
            Returns at once. The daemon acts on it only if the next boundary is at most 60 s away and \
            otherwise replies "error stale: … more than a trigger waits (60 s); trigger closer to it". To \
            choose the wait, or to wait for the outcome, use 'announce --next --max-wait N'.
            """)
    @OptionGroup var destination: Destination
    func run() throws { try destination.deliver("trigger") }
}

struct MuteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mute", abstract: "Mute the daemon (kept across restarts).")
    @OptionGroup var destination: Destination
    @Option(name: .customLong("for"), parsing: .unconditional, help: "For a duration: 90s, 30m, 2h, 1h30m.") var duration: String?
    @Option(help: "Until the local time HH:MM.") var until: String?
    func validate() throws {
        if duration != nil && until != nil { throw ValidationError("give --for or --until, not both.") }
        if let duration, duration.hasPrefix("-") { throw ValidationError("--for must be a positive duration such as 30m, not \(duration).") }
    }
    func run() throws {
        var request = "mute"
        if let duration { request += " for \(duration)" }
        if let until { request += " until \(until)" }
        try destination.deliver(request)
    }
}

struct Unmute: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unmute", abstract: "Unmute the daemon.")
    @OptionGroup var destination: Destination
    func run() throws { try destination.deliver("unmute") }
}

struct Skip: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "skip", abstract: "Cut the announcement playing now (or, if none plays, leave out the next one).")
    @OptionGroup var destination: Destination
    @Flag(help: "\(ControlCommand.help("skip reminder").prefix(1).uppercased() + ControlCommand.help("skip reminder").dropFirst()) instead.")
    var reminder = false
    func run() throws { try destination.deliver(reminder ? "skip reminder" : "skip") }
}

struct RemindersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders", abstract: "List the daemon's reminders and when each is next said (and whether they pause: away).")
    @OptionGroup var socket: SocketOption
    @Flag(help: "One line of JSON.") var json = false
    func run() throws {
        let reply = try Control.send(json ? "reminders json" : "reminders", socket: socket.path)
        // One reminder a line (the socket answers on one line, `; `-separated).
        print(json ? reply : reply.replacing("; ", with: "\n"))
    }
}

struct AwayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "away", abstract: "Turn the away switch on (reminders pause; the clock still speaks) or off; kept across restarts.")
    @OptionGroup var destination: Destination
    @Argument(help: "on or off.") var state: String
    func validate() throws {
        guard ["on", "off"].contains(state.lowercased()) else { throw ValidationError("away takes 'on' or 'off', not '\(state)'.") }
    }
    func run() throws { try destination.deliver("away \(state.lowercased())") }
}

struct Speak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speak",
        abstract: "Say words through the running daemon, in its pack's voice (its synthesis engine renders them).",
        discussion: "With --everywhere every room says them with the first sample at the same instant, \(Int(ControlRequest.speakEverywhereLead)) s ahead (time to render them).")
    @OptionGroup var destination: Destination
    @Argument(help: "The words.") var words: [String]
    func validate() throws {
        guard !words.joined().isEmpty else { throw ValidationError("speak needs the words to say, such as: talking-clock speak Dinner is ready") }
    }
    func run() throws {
        let text = words.joined(separator: " ")
        if destination.rooms.everywhere {
            let at = (WallClock.now() + ControlRequest.speakEverywhereLead).rounded(.up)
            try Everywhere.send("speak at \(Int(at)) \(text)", configPath: destination.roomsConfig.config, wait: destination.rooms.wait)
        } else {
            try destination.deliver("speak \(text)", timeout: 60)
        }
    }
}

struct Unskip: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unskip", abstract: "Take back a pending 'skip': the next announcement is spoken after all.")
    @OptionGroup var destination: Destination
    func run() throws { try destination.deliver("unskip") }
}

struct VolumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Set the daemon's volume in percent (0-100) until reload or restart; the config file is not changed.")
    @OptionGroup var destination: Destination
    @Argument(help: "The volume in percent, 0 to 100.") var percent: Int
    func validate() throws {
        guard (0...100).contains(percent) else {
            throw ValidationError("the volume is a percentage from 0 to 100, not \(percent) (for good: 'volume' in the config file).")
        }
    }
    func run() throws { try destination.deliver("volume \(percent)") }
}

struct ChimeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chime",
        abstract: "Set the daemon's chime (none, hour, westminster or ships-bells) until reload or restart; the config file is not changed.",
        discussion: "A chime the pack cannot ring is refused (exit 65), and the chime in use stays.")
    @OptionGroup var destination: Destination
    @Argument(help: "none, hour, westminster or ships-bells.") var style: ChimeStyle
    func run() throws { try destination.deliver("chime \(style.rawValue)") }
}

struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload", abstract: "Re-read the config and the pack; a bad one is refused and the old one stays.",
        discussion: """
            The daemon replies once the new config and pack are in use (or refused): it decodes every clip first, \
            which takes seconds for a large pack. This waits up to \(Int(Reload.timeout)) s for that, and says so \
            after 3 s.
            """)
    /// The longest wait for a reload's reply: a pack at the size limit took up to 6.9 s to decode
    /// on the shared 2-core build machine (scripts/bench-pack-load), a Raspberry Pi several times
    /// that; the unit's TimeoutStartSec is the same 5 minutes.
    static let timeout = 300.0
    @OptionGroup var destination: Destination
    func run() throws {
        try destination.deliver(
            "reload", timeout: Self.timeout, waitingFor: "the reload (reading the config and decoding every clip of the pack)")
    }
}

struct ConfigExample: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "config-example", abstract: "Print a commented example config.toml.")
    func run() throws { print(Config.exampleTOML) }
}
