import Foundation
import XCTest

import Courtesy
import DesktopBus
import SoundServer
import TalkingClockCore
import TestSupport

/// The courtesy look and the MPRIS pauser against real peers, each private to the test:
/// PulseAudio (scripts/harness/pulse), a D-Bus session bus with real dconf behind GSettings,
/// mpv with mpv-mpris, a stand-in for KDE's notification server, speech-dispatcher with espeak-ng
/// (scripts/harness/desktop, scripts/harness/fake-notifications). The look runs in
/// `courtesy-probe`, a separate process given the private environment, as the daemon would.
final class CourtesyEdgeTests: XCTestCase {
    /// A private session: its bus, and whatever the test started on it; `stop()` ends it all.
    final class PrivateDesktop {
        let dir: String
        var environment: [String: String] = [:]
        var children: [Process] = []

        init(_ tag: String) throws {
            dir = "/tmp/tc-dt-\(getpid())-\(tag)"
            try? FileManager.default.removeItem(atPath: dir)
            environment = try Self.exports(try Self.harness("desktop", ["up", "--dir", dir]))
        }

        func run(_ tool: String, _ arguments: [String], extra: [String: String] = [:]) throws -> String {
            try Self.harness(tool, arguments + ["--dir", dir], environment: environment.merging(extra) { $1 })
        }

        func stop() {
            for child in children where child.isRunning {
                child.terminate()
                child.waitUntilExit()
            }
            _ = try? Self.harness("desktop", ["down", "--dir", dir])
            try? FileManager.default.removeItem(atPath: dir)
        }

        static func exports(_ text: String) throws -> [String: String] {
            var env: [String: String] = [:]
            for line in text.split(separator: "\n") where line.hasPrefix("export ") {
                let assignment = line.dropFirst("export ".count)
                guard let eq = assignment.firstIndex(of: "=") else { continue }
                var value = String(assignment[assignment.index(after: eq)...])
                if value.hasPrefix("'") && value.hasSuffix("'") { value = String(value.dropFirst().dropLast()) }
                env[String(assignment[..<eq])] = value
            }
            return env
        }

        static func harness(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
            let result = try CourtesyEdgeTests.run(AudioHarness.scripts.appendingPathComponent(tool).path, arguments, environment: environment)
            guard result.status == 0 else {
                throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
            }
            return result.stdout
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ tool: String, _ arguments: [String], environment: [String: String]) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    static var probe: String {
        BinaryRunner.binary.deletingLastPathComponent().appendingPathComponent("courtesy-probe").path
    }

    /// The look as the daemon would run it, in its own process with this environment only (no
    /// inherited session: a developer's own desktop must not leak in).
    func look(_ environment: [String: String], budget: Double = 2) throws -> (CourtesyFindings, String) {
        var clean = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        for (k, v) in environment { clean[k] = v }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.probe)
        process.arguments = ["look", "--budget", "\(budget)"]
        process.environment = clean
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard process.terminationStatus == 0, lines.count == 2 else {
            throw Failure(description: "courtesy-probe look exited \(process.terminationStatus): \(lines)")
        }
        return (try JSONDecoder().decode(CourtesyFindings.self, from: Data(lines[0].utf8)), lines[1])
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(
            ["/usr/bin/dbus-daemon", "/usr/bin/gsettings", "/usr/bin/mpv", "/usr/bin/speech-dispatcher", "/usr/bin/pulseaudio"]
                .allSatisfy(FileManager.default.isExecutableFile(atPath:)),
            "needs scripts/install-deps --test (dbus-daemon, dconf, mpv, mpv-mpris, speech-dispatcher)")
    }

    /// No session bus, no sound server: nothing found, nothing timed out, and fast.
    func testHeadlessLookFindsNothingAtOnce() throws {
        let empty = "/tmp/tc-headless-\(getpid())"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let (findings, timing) = try look(["XDG_RUNTIME_DIR": empty, "HOME": empty])
        XCTAssertEqual(findings, .nothing)
        // "ms median M max X first F": one look of a stat or two.
        let ms = Double(timing.split(separator: " ")[2]) ?? .infinity
        XCTAssertLessThan(ms, 20, timing)
    }

    /// A phone-role stream is a call; music is media playing; GNOME's show-banners = false and
    /// KDE's Inhibited are do-not-disturb; mpv is a playing MPRIS player.
    func testLookSeesCallsDoNotDisturbAndPlayers() throws {
        let pulse = try AudioHarness.PrivatePulse("look")
        defer { pulse.stop() }
        let desktop = try PrivateDesktop("look")
        defer { desktop.stop() }
        var env = desktop.environment
        env["PULSE_SERVER"] = pulse.environment["PULSE_SERVER"]

        var (findings, _) = try look(env)
        XCTAssertEqual(findings, .nothing, "an empty session has nothing to be courteous to")

        let music = try paplay(["application.name": "Rhythmbox", "media.role": "music"], env)
        let player = try desktop.run("desktop", ["mpv", "radio"]).split(separator: " ")
        (findings, _) = try look(env)
        XCTAssertNil(findings.call)
        XCTAssertNil(findings.doNotDisturb)
        XCTAssertEqual(findings.playingStreams.map(\.application), ["Rhythmbox"])
        XCTAssertEqual(findings.playingPlayers, [String(player[1]).trimmingCharacters(in: .whitespacesAndNewlines)])

        let call = try paplay(["application.name": "FakeCall", "media.role": "phone"], env)
        (findings, _) = try look(env)
        XCTAssertEqual(findings.call, .init(application: "FakeCall", role: "phone"))
        XCTAssertEqual(findings.playingStreams.map(\.application), ["Rhythmbox"], "a call's audio is never ducked")
        call.terminate()
        call.waitUntilExit()
        music.terminate()
        music.waitUntilExit()

        // GNOME: through real dconf, written by the real gsettings.
        _ = try Self.run("/usr/bin/gsettings", ["set", "org.gnome.desktop.notifications", "show-banners", "false"], environment: env)
        (findings, _) = try look(env)
        XCTAssertEqual(findings.doNotDisturb, .gnomeShowBanners)
        XCTAssertNil(findings.call, "the call ended")
        _ = try Self.run("/usr/bin/gsettings", ["set", "org.gnome.desktop.notifications", "show-banners", "true"], environment: env)
        (findings, _) = try look(env)
        XCTAssertNil(findings.doNotDisturb)

        // KDE: the Inhibited property, against the stand-in implementing KDE's interface.
        let notifications = Process()
        notifications.executableURL = AudioHarness.scripts.appendingPathComponent("fake-notifications")
        notifications.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        let ready = Pipe()
        notifications.standardOutput = ready
        try notifications.run()
        desktop.children.append(notifications)
        XCTAssertEqual(String(decoding: ready.fileHandleForReading.availableDataLine(), as: UTF8.self), "ready")
        (findings, _) = try look(env)
        XCTAssertNil(findings.doNotDisturb, "a notification server that does not inhibit")
        let cookie = try Self.run(
            "/usr/bin/gdbus",
            ["call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications",
             "--method", "org.freedesktop.Notifications.Inhibit", "talking-clock-test", "presenting", "{}"], environment: env)
        XCTAssertEqual(cookie.status, 0, cookie.stderr)
        (findings, _) = try look(env)
        XCTAssertEqual(findings.doNotDisturb, .notificationsInhibited)
        XCTAssertEqual(CourtesyPolicy.decide(findings, CourtesyConfig()).text, "skip: do-not-disturb (notifications-inhibited)")
    }

    /// Peers that hang (stopped with SIGSTOP: a player that never answers, a sound server that
    /// accepts and says nothing): the look still returns within its budget, names the parts that
    /// ran out of time, and counts them as nothing found.
    func testALookThatRunsOutOfTimeReturnsOnTimeWithNothing() throws {
        let pulse = try AudioHarness.PrivatePulse("hang")
        defer { pulse.stop() }
        let desktop = try PrivateDesktop("hang")
        defer { desktop.stop() }
        var env = desktop.environment
        env["PULSE_SERVER"] = pulse.environment["PULSE_SERVER"]
        let player = Int32(try desktop.run("desktop", ["mpv", "frozen"]).split(separator: " ")[0])!
        let server = Int32(try String(contentsOfFile: pulse.dir + "/pid", encoding: .utf8).split(separator: "\n")[0])!
        kill(player, SIGSTOP)
        kill(server, SIGSTOP)
        defer {
            kill(server, SIGCONT)
            kill(player, SIGCONT)
        }
        let (findings, timing) = try look(env, budget: 0.2)
        XCTAssertEqual(findings.timedOut, ["sound server", "session bus"])
        XCTAssertNil(findings.call)
        XCTAssertEqual(findings.playingPlayers, [])
        let ms = Double(timing.split(separator: " ")[2]) ?? .infinity
        XCTAssertGreaterThanOrEqual(ms, 199, timing)
        XCTAssertLessThan(ms, 300, "the budget is 200 ms: \(timing)")
    }

    /// The session bus itself stopped (it accepts the connection and never answers): the look
    /// returns on time, and the connection attempt is cancelled rather than left hanging on a
    /// thread for ever (after the look the probe is back to one thread).
    func testAHungBusIsGivenUpAtTheBudget() throws {
        let desktop = try PrivateDesktop("hungbus")
        defer { desktop.stop() }
        let bus = Int32(try String(contentsOfFile: desktop.dir + "/dbus.pid", encoding: .utf8).split(separator: "\n")[0])!
        kill(bus, SIGSTOP)
        defer { kill(bus, SIGCONT) }
        var clean = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        for (k, v) in desktop.environment { clean[k] = v }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.probe)
        process.arguments = ["look", "--budget", "0.2", "--idle", "0.5"]
        process.environment = clean
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        process.waitUntilExit()
        XCTAssertEqual(lines.count, 3, "\(lines)")
        guard lines.count == 3 else { return }
        let findings = try JSONDecoder().decode(CourtesyFindings.self, from: Data(lines[0].utf8))
        XCTAssertEqual(findings.timedOut, ["session bus"])
        let ms = Double(lines[1].split(separator: " ")[2]) ?? .infinity
        XCTAssertLessThan(ms, 300, String(lines[1]))
        // Left besides the main thread: at most GLib's own threads ("gdbus", "gmain"), started
        // once and idle for good; not the look's thread (unnamed: "courtesy-probe"), stuck
        // connecting.
        XCTAssertTrue(lines[2].hasPrefix("idle wakeups 0 "), String(lines[2]))
        let others = lines[2].split(separator: "[").last.map { $0.dropLast().split(separator: ",").map(String.init) } ?? []
        XCTAssertTrue(Set(others).isSubset(of: ["gdbus", "gmain"]), "the connecting thread ended: \(lines[2])")
    }

    /// Waits until the player reports `status` (mpv-mpris updates it from mpv's own events, a
    /// moment after the command).
    private func waitFor(_ status: String, _ name: String, on bus: SessionBus) throws {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, try MPRIS.status(of: name, on: bus, timeout: 2) != status { usleep(10_000) }
        XCTAssertEqual(try MPRIS.status(of: name, on: bus, timeout: 2), status, name)
    }

    /// Pause pauses what plays; resume plays only what the clock paused and is still paused.
    func testPauseAndResumeOnlyWhatTheClockPaused() throws {
        let desktop = try PrivateDesktop("mpris")
        defer { desktop.stop() }
        let a = String(try desktop.run("desktop", ["mpv", "a"]).split(separator: " ")[1]).trimmingCharacters(in: .whitespacesAndNewlines)
        let b = String(try desktop.run("desktop", ["mpv", "b"]).split(separator: " ")[1]).trimmingCharacters(in: .whitespacesAndNewlines)
        let bus = try SessionBus(address: desktop.environment["DBUS_SESSION_BUS_ADDRESS"]!)
        XCTAssertEqual(Set(try MPRIS.playing(on: bus, timeout: 2)), [a, b])

        let paused = MPRIS.pause([a, b], on: bus, timeout: 2)
        XCTAssertEqual(Set(paused), [a, b])
        try waitFor("Paused", a, on: bus)
        try waitFor("Paused", b, on: bus)
        XCTAssertEqual(try MPRIS.playing(on: bus, timeout: 2), [])

        // Meanwhile the user stops b (a live stream they meant to end): it must stay stopped.
        try bus.call(b, "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", "Stop", timeout: 2)
        try waitFor("Stopped", b, on: bus)
        XCTAssertEqual(MPRIS.resume(paused, on: bus, timeout: 2), [a])
        try waitFor("Playing", a, on: bus)
        XCTAssertEqual(try MPRIS.status(of: b, on: bus, timeout: 2), "Stopped")

        // A player the user paused before the boundary is not in the list, so never resumed.
        try bus.call(a, "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", "Pause", timeout: 2)
        try waitFor("Paused", a, on: bus)
        XCTAssertEqual(MPRIS.pause(try MPRIS.playing(on: bus, timeout: 2), on: bus, timeout: 2), [])
        XCTAssertEqual(try MPRIS.status(of: a, on: bus, timeout: 2), "Paused")
    }

    /// The shell's one call per announcement: the plan the policy chose, carried out against a real
    /// PulseAudio and real mpv, then undone.
    func testMediaCourtesyRunDucksOrPausesAndPutsBack() throws {
        let pulse = try AudioHarness.PrivatePulse("run")
        defer { pulse.stop() }
        let desktop = try PrivateDesktop("run")
        defer { desktop.stop() }
        var env = desktop.environment
        env["PULSE_SERVER"] = pulse.environment["PULSE_SERVER"]
        let state = URL(fileURLWithPath: desktop.dir).appendingPathComponent("state/ducked.json")
        _ = try paplay(["application.name": "Rhythmbox", "media.role": "music"], env)
        let player = String(try desktop.run("desktop", ["mpv", "radio"]).split(separator: " ")[1])
            .trimmingCharacters(in: .whitespacesAndNewlines)

        var (findings, _) = try look(env)
        var config = CourtesyConfig()
        let duck = CourtesyPolicy.decide(findings, config).media
        guard case .duck(let streams, 30) = duck else { return XCTFail("\(duck)") }
        let run = MediaCourtesyRun(duck, stateFile: state, timeout: 2, environment: env)
        XCTAssertEqual(run.ducked, 1)
        XCTAssertEqual(run.problems, [])
        let server = env["PULSE_SERVER"]!
        XCTAssertEqual(try SoundServer.streams(server: server, timeout: 2).first { $0.index == streams[0] }?.volume, [19_660, 19_660])
        run.end()
        XCTAssertEqual(try SoundServer.streams(server: server, timeout: 2).first { $0.index == streams[0] }?.volume, [65_536, 65_536])
        XCTAssertFalse(FileManager.default.fileExists(atPath: state.path))

        config.media = .pause
        (findings, _) = try look(env)
        let pause = CourtesyPolicy.decide(findings, config).media
        XCTAssertEqual(pause, .pause(players: [player]))
        let paused = MediaCourtesyRun(pause, stateFile: state, timeout: 2, environment: env)
        XCTAssertEqual(paused.paused, [player])
        let bus = try SessionBus(address: env["DBUS_SESSION_BUS_ADDRESS"]!)
        try waitFor("Paused", player, on: bus)
        paused.end()
        try waitFor("Playing", player, on: bus)
    }

    /// A screen reader is mid-sentence at priority message; the clock's words queue behind it:
    /// the reader's message ends (702 END, not 703 CANCELED), then the clock's is spoken.
    func testSpeechDispatcherQueuesBehindAScreenReader() throws {
        let pulse = try AudioHarness.PrivatePulse("speechd")
        defer { pulse.stop() }
        let desktop = try PrivateDesktop("speechd")
        defer { desktop.stop() }
        var env = desktop.environment
        env["PULSE_SERVER"] = pulse.environment["PULSE_SERVER"]
        env.merge(try PrivateDesktop.exports(desktop.run("desktop", ["speechd"], extra: env))) { $1 }

        // The "screen reader": a raw SSIP client at priority message with events on.
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        reader.arguments = ["-c", Self.screenReader, env["SPEECHD_ADDRESS"]!.replacingOccurrences(of: "unix_socket:", with: "")]
        reader.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        let out = Pipe()
        reader.standardOutput = out
        try reader.run()
        desktop.children.append(reader)
        XCTAssertEqual(String(decoding: out.fileHandleForReading.availableDataLine(), as: UTF8.self), "begin")

        let said = try Self.run(Self.probe, ["say", "It is three forty-five PM"], environment: env)
        XCTAssertEqual(said.status, 0, said.stderr)
        XCTAssertTrue(said.stdout.hasPrefix("id "), said.stdout)
        XCTAssertEqual(String(decoding: out.fileHandleForReading.availableDataLine(), as: UTF8.self), "end", "not cancelled")
        reader.waitUntilExit()

        // The clock's text arrived at priority message (2), and went to the synthesiser after
        // the reader's sentence.
        let logFile = desktop.dir + "/speechd-log/speech-dispatcher.log"
        let deadline = Date().addingTimeInterval(15)
        var log = ""
        while Date() < deadline {
            log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
            if log.contains("Command sent to output module: |<speak>It is three forty-five PM") { break }
            usleep(20_000)
        }
        XCTAssertTrue(log.contains("Queueing message |It is three forty-five PM| with priority 2"), "priority message")
        let readerSent = log.range(of: "Command sent to output module: |<speak>Reading a long paragraph")
        let clockSent = log.range(of: "Command sent to output module: |<speak>It is three forty-five PM")
        XCTAssertNotNil(clockSent, "the clock's words were spoken")
        if let readerSent, let clockSent { XCTAssertLessThan(readerSent.lowerBound, clockSent.lowerBound) }
    }

    /// SSIP by hand: priority message, events on, one long sentence; prints "begin", then "end"
    /// or "cancel" for that message.
    static let screenReader = #"""
        import socket, sys
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb", buffering=0)
        def cmd(line):
            f.write(line.encode() + b"\r\n")
            while True:
                r = f.readline().decode()
                if r[3:4] == " ": return r
        cmd("SET self CLIENT_NAME reader:orca:main"); cmd("SET self PRIORITY message")
        cmd("SET self NOTIFICATION all on"); cmd("SPEAK")
        f.write(b"Reading a long paragraph of a document aloud, as a screen reader does, slowly and completely.\r\n.\r\n")
        msg = None; begun = False
        while True:
            r = f.readline().decode().strip()
            if r.startswith("225-"): msg = r[4:]
            if r.startswith("701-") and r[4:] == msg and not begun: begun = True; print("begin", flush=True)
            if r.startswith("702-") and r[4:] == msg: print("end", flush=True); break
            if r.startswith("703-") and r[4:] == msg: print("cancel", flush=True); break
        """#

    private func paplay(_ properties: [String: String], _ env: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/paplay")
        process.arguments = ["--raw"] + properties.sorted { $0.key < $1.key }.map { "--property=\($0.key)=\($0.value)" } + ["/dev/zero"]
        process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        process.standardError = FileHandle.nullDevice  // "Connection terminated" when the server stops first
        try process.run()
        addTeardownBlock {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
        // Wait until the server lists it (pactl, an independent client).
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let listed = try Self.run("/usr/bin/pactl", ["list", "sink-inputs"], environment: env)
            if listed.stdout.contains("application.process.id = \"\(process.processIdentifier)\"") { return process }
            usleep(10_000)
        }
        throw Failure(description: "paplay's stream never appeared")
    }
}

extension FileHandle {
    /// Reads up to the next newline (blocking), without it.
    func availableDataLine() -> Data {
        var line = Data()
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { return line }
            line.append(byte)
        }
    }
}
