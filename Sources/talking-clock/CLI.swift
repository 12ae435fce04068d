import ConfigFiles
import ArgumentParser
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

/// A failure with its exit code; printed as one sentence on stderr.
struct CLIError: Error, CustomStringConvertible {
    var status: ExitStatus
    var description: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.description = message
    }
}

@main
struct TalkingClock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "talking-clock",
        abstract: "A talking clock: speaks the time every quarter hour (or any interval, see config-example) and your reminders, through ALSA.",
        discussion: """
            Exit codes:
            \(ExitStatus.table)
            """,
        version: BuildInfo.versionLine,
        subcommands: [
            Say.self, Schedule.self, Check.self, RecordPack.self, Words.self, Run.self, Announce.self, Status.self, Trigger.self, MuteCommand.self,
            Unmute.self, Skip.self, Unskip.self, VolumeCommand.self, ChimeCommand.self, Reload.self, RemindersCommand.self,
            AwayCommand.self, Speak.self, Rooms.self, ListOutputs.self, ConfigExample.self,
        ]
    )

    static func main() {
        do {
            // `talking-clock say` without options asks the running daemon (see `Say.run`). Answer it
            // before the argument parser builds its command tree: that takes ~1.5 ms of reflection at
            // every start, and a spoken `say` is measured from process start (scripts/bench launch).
            if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "say", let reply = try Say.throughDaemon() {
                print(reply)
                return
            }
            try refuseUnknownCommand(CommandLine.arguments.dropFirst().first)
            var command = try parseAsRoot()
            try command.run()
        } catch let error as CLIError {
            writeStandardError("talking-clock: \(error.description)\n")
            Glibc.exit(error.status.rawValue)
        } catch let code as ExitCode {
            Glibc.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure || code.rawValue == 64 {
                writeStandardError(fullMessage(for: error) + "\n")
                Glibc.exit(ExitStatus.badInput.rawValue)
            }
            exit(withError: error)
        }
    }
}

extension TalkingClock {
    /// The names a first argument may have: the subcommands and the parser's own `help`.
    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// `talking-clock foo` names the commands (the parser would say "Unexpected argument 'foo'").
    static func refuseUnknownCommand(_ first: String?) throws {
        guard let first, !first.hasPrefix("-"), !commandNames.contains(first) else { return }
        let near = Suggestion.closest(to: first, in: commandNames).map { " Did you mean '\($0)'?" } ?? ""
        throw CLIError(
            .badInput,
            "unknown command '\(first)'; commands: \(commandNames.joined(separator: ", "))."
                + "\(near) See 'talking-clock --help'.")
    }
}

/// Options shared by every command that speaks or plans.
struct ClockOptions: ParsableArguments {
    @Option(name: .customLong("tz"), help: "Time zone, as TZ takes it: a name (Europe/London), :name, a zone file path, or a POSIX TZ string (UTC+5 is 5 h WEST; CET-1CEST,M3.5.0,M10.5.0/3) (default: TZ, else /etc/localtime).")
    var zone: String?

    @Option(help: "Sound pack: a name (e.g. 'default') or a directory containing pack.json.")
    var pack: String?

    @Option(help: "Output: an ALSA device (default, pulse, pulse:SINK, plughw:1, 'file:FILE=/tmp/x.wav,FORMAT=wav') or snapcast://HOST:PORT ('talking-clock outputs' lists them).")
    var device: String?

    @Option(help: "Chime: none, hour, westminster or ships-bells (default: the config's, else hour).")
    var chime: ChimeStyle?

    @Option(help: "Language: \(SpokenLanguages.knownList) (default: the config's, else en-US).", completion: .list(SpokenLanguages.known))
    var language: String?

    @Option(help: "\(Support.phrasingHelp) (default: the config's, else the language's).")
    var phrasing: Phrasing?

    func validate() throws {
        if let device, device.allSatisfy(\.isWhitespace) {
            throw ValidationError(
                "--device is empty; give an output such as default, pulse or plughw:1, or leave the option out to use the config's device (else default).")
        }
        if let pack, pack.allSatisfy(\.isWhitespace) {
            throw ValidationError("--pack is empty; give a pack name such as default or a directory that contains pack.json, or leave the option out.")
        }
    }

    /// The command line's settings that override the config file.
    func overrides() throws -> ConfigOverrides {
        try Support.checkLanguage(language)
        return ConfigOverrides(
            zone: try zone.map { try Support.zone($0) }, device: device, pack: pack, chime: chime, phrasing: phrasing,
            language: language)
    }
}

extension ChimeStyle: ExpressibleByArgument {}
extension Phrasing: ExpressibleByArgument {}
