import Clients
import ConfigFiles
import JSON
import ArgumentParser
import EventLoop
import FoundationEssentials
import TalkingClockCore

/// `--everywhere` and `--wait`, shared by the commands that can go to every room.
struct EverywhereFlags: ParsableArguments {
    @Flag(
        help:
            "Send it to every room on the MQTT broker of the config's [mqtt] table (<topic>/all/command) instead of the local daemon, and print each room's reply."
    )
    var everywhere = false

    @Option(help: "With --everywhere: the longest wait for the rooms' replies, in seconds (it ends as soon as every online room has answered).")
    var wait: Double = Everywhere.defaultWait

    func validate() throws {
        guard wait > 0 && wait <= 600 else { throw ValidationError("--wait must be above 0 and at most 600 seconds, not \(wait).") }
    }
}

/// A config file option for the commands that otherwise only talk to the socket.
struct RoomsConfigOption: ParsableArguments {
    @Option(help: "Config file whose [mqtt] table names the broker (default: $XDG_CONFIG_HOME/talking-clock/config.toml).")
    var config: String?
}

/// Commands sent to every room through the broker: `<topic>/all/command`, replies on `<topic>/<room>/reply`.
enum Everywhere {
    static let defaultWait = 3.0

    /// The broker connection of the config's `[mqtt]` table (a clear error without one).
    static func remote(configPath: String?) throws -> MQTTRemote {
        let path = configPath ?? ConfigFile.defaultConfigPath()
        let config: Config
        do { config = try ConfigFile.loadConfig(path: configPath, overrides: ConfigOverrides()) } catch {
            throw CLIError(error.status, error.description)
        }
        guard let mqtt = config.mqtt else {
            let file = path.map { FileManager.default.fileExists(atPath: $0) ? "the config file \($0)" : "\($0) (which does not exist)" } ?? "the config file"
            throw CLIError(
                .badInput,
                "--everywhere and 'rooms' need an [mqtt] table in \(file): add [mqtt] with broker = \"mqtt://HOST:1883\" (see docs/mqtt.md), or pass --config.")
        }
        do { return try MQTTRemote(config: mqtt, configPath: path) } catch { throw CLIError(error.status, error.description) }
    }

    /// Sends `line` to every room, prints `room: reply` per answer, and exits with the first
    /// failing reply's status, 4 if an online room did not answer or no room is online.
    static func send(_ line: String, configPath: String?, wait: Double) throws {
        let remote = try remote(configPath: configPath)
        let outcome: RemoteOutcome
        do { outcome = try remote.send(line, wait: wait) } catch { throw CLIError(error.status, error.description) }
        // Replies are the broker's text: escaped, so none can move the cursor or forge a line.
        for answer in outcome.answers { print("\(answer.room): \(Format.printable(answer.reply))") }
        if outcome.answers.isEmpty && outcome.online.isEmpty {
            throw CLIError(
                .noDaemon,
                "no room is online on \(remote.brokerName) under '\(remote.config.topic)/' (no retained 'online' availability); start a daemon with an [mqtt] table, or check 'topic'.")
        }
        let failed = outcome.answers.compactMap { answer -> ControlErrorKind? in
            if case .error(_, let kind) = ControlReply.parse(answer.reply) { return kind }
            return nil
        }
        if !outcome.ignored.isEmpty {
            let rooms = outcome.ignored.map { "\($0.room) (\($0.count))" }.joined(separator: ", ")
            writeError(
                "ignored replies not owed by an online room: \(rooms). Each online room's first reply is its answer; another client publishes on '\(remote.config.topic)/ROOM/reply' (or another --everywhere ran at the same time): restrict who may write there with the broker's ACL (see docs/mqtt.md).")
        }
        let silent = outcome.silent
        if !silent.isEmpty {
            let seconds = wait == wait.rounded() ? String(Int(wait)) : String(wait)
            writeError(
                "no reply within \(seconds) s from \(silent.joined(separator: ", ")) (online on \(remote.brokerName)); check that room's log, or wait longer with --wait.")
        }
        if let first = failed.first { throw ExitCode(first.exitStatus.rawValue) }
        if !silent.isEmpty { throw ExitCode(ExitStatus.noDaemon.rawValue) }
    }

    /// `say at T`: T is the next whole second at least `minimumAhead` from now (on this machine's
    /// clock shifted by `offset`), so that every room can open its device and land the first
    /// sample on the same instant.
    static func sayAtLine(now: Double, offset: Double = 0, minimumAhead: Double = 0.5) -> String {
        let instant = (now + offset + minimumAhead).rounded(.up)
        return "say at \(Format.fixed(instant, 3))"
    }

    static func writeError(_ text: String) {
        writeStandardError("talking-clock: \(text)\n")
    }
}

struct Rooms: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rooms",
        abstract: "List the rooms online on the MQTT broker of the config's [mqtt] table, with their state.",
        discussion: """
            Reads every room's retained <topic>/<room>/availability and <topic>/<room>/state. Exit 4 when no \
            room is online.
            """
    )

    @OptionGroup var configOption: RoomsConfigOption
    @Flag(help: "One JSON array of {room, online, state} (state: the room's 'status --json' object).") var json = false
    @Flag(name: .customLong("all"), help: "Also list rooms that are offline (their last retained state).") var includeOffline = false

    func run() throws {
        let remote = try Everywhere.remote(configPath: configOption.config)
        let reports: [RoomReport]
        do { reports = try remote.rooms() } catch { throw CLIError(error.status, error.description) }
        let shown = reports.filter { includeOffline || $0.online }
        if json {
            print(ReportJSON.encode(shown))
        } else {
            let width = shown.map(\.room.count).max() ?? 0
            for report in shown { print(Self.line(report, width: width)) }
        }
        if !reports.contains(where: \.online) {
            throw CLIError(
                .noDaemon,
                "no room is online on \(remote.brokerName) under '\(remote.config.topic)/'"
                    + (reports.isEmpty ? "" : " (\(reports.count) offline: \(reports.map(\.room).joined(separator: ", ")))") + ".")
        }
    }

    /// `kitchen  online; unmuted; next 2026-11-24T23:45:00Z "It's 11:45 PM"; last spoke (onset -0.270 ms)`.
    static func line(_ report: RoomReport, width: Int) -> String {
        var parts = [report.online ? "online" : "offline"]
        if let state = report.state {
            parts.append(state.mute)
            if let next = state.next { parts.append("next \(next.at) \"\(next.text)\"") }
            if let last = state.last {
                var text = "last \(last.result)"
                if let b = last.boundary { text += " \(b)" }
                if let onset = last.onsetErrorMs { text += " (onset \(Format.fixed(onset, 3, sign: true)) ms)" }
                parts.append(text)
            }
        } else {
            parts.append("no state published")
        }
        // The state is the broker's text: escaped (see `Format.printable`).
        return report.room + String(repeating: " ", count: max(1, width - report.room.count + 2))
            + Format.printable(parts.joined(separator: "; "))
    }
}
