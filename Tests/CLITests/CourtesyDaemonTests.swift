import Foundation
import Glibc
import TalkingClockCore
import TestSupport
import XCTest

/// The daemon's courtesy with a real sound server (a private PulseAudio from the harness):
/// `paplay --property=media.role=phone` is a call in progress, a `paplay` of silence at a known
/// volume is music. What is checked is what a user hears and what `pactl`, an independent client,
/// reports; the look, the policy and the ducking are the daemon's own.
final class CourtesyDaemonTests: XCTestCase {
    var dir: URL!
    var pulse: AudioHarness.PrivatePulse?
    var daemons: [DaemonProcess] = []
    var players: [Process] = []

    override func setUpWithError() throws {
        guard AudioHarness.isAvailable else { throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test") }
        dir = FixturePack.temporaryDirectory("courtesy")
        pulse = try AudioHarness.PrivatePulse("courtesy")
        // "fifteen" lasts 2 s, so the announcement of 10:15 is long enough to watch the ducking.
        try FixturePack.write(
            to: dir.appendingPathComponent("pack"), ids: FixturePack.fullVocabulary,
            framesPerClip: { Int(22050 * ($0 == "fifteen" ? 2.0 : 0.1)) }, format: StreamFormat(sampleRate: 22050, channels: 1))
    }

    override func tearDown() {
        for d in daemons where d.isRunning { d.kill9() }
        for p in players where p.isRunning {
            p.terminate()
            p.waitUntilExit()
        }
        pulse?.stop()
        if dir != nil { try? FileManager.default.removeItem(at: dir) }
    }

    var environment: [String: String] { pulse!.environment }
    var server: String { environment["PULSE_SERVER"]! }

    func start(config: String = "", demo: Bool = false) throws -> DaemonProcess {
        let file = dir.appendingPathComponent("config-\(daemons.count).toml")
        try config.write(to: file, atomically: true, encoding: .utf8)
        var args = [
            "run", "--config", file.path, "--pack", dir.appendingPathComponent("pack").path, "--tz", "UTC", "--device", "pulse",
            "--fake-clock", "2026-07-01T10:14:57Z",
        ]
        // A demo keeps no state directory (its duck record goes to the runtime directory).
        if !demo { args += ["--state-dir", dir.appendingPathComponent("state-\(daemons.count)").path] }
        let d = try DaemonProcess(
            args, socket: dir.appendingPathComponent("run\(daemons.count)/control.sock").path, environment: environment,
            logURL: dir.appendingPathComponent("daemon\(daemons.count).log"))
        daemons.append(d)
        return d
    }

    /// Plays silence forever with these stream properties; returns the sink input index once the
    /// server lists it (`pactl`).
    @discardableResult
    func play(_ properties: [String: String], volume: Int? = nil) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/paplay")
        process.arguments =
            ["--raw", "--server=\(server)"] + properties.sorted { $0.key < $1.key }.map { "--property=\($0.key)=\($0.value)" }
            + (volume.map { ["--volume=\($0)"] } ?? []) + ["/dev/zero"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        try process.run()
        players.append(process)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            for (index, stream) in try sinkInputs() where stream.pid == process.processIdentifier { return index }
            usleep(20_000)
        }
        XCTFail("paplay's stream never appeared")
        return -1
    }

    /// `pactl list sink-inputs`: index → (pid, first channel's volume).
    func sinkInputs() throws -> [Int: (pid: Int32, volume: Int)] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        p.arguments = ["--server=\(server)", "list", "sink-inputs"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        var result: [Int: (pid: Int32, volume: Int)] = [:]
        var current: Int?
        for line in text.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("Sink Input #") {
                current = Int(t.dropFirst("Sink Input #".count))
                if let current { result[current] = (0, 0) }
            } else if let current, t.hasPrefix("Volume:") {
                let first = t.split(separator: ",").first?.split(separator: ":").last?.split(separator: "/").first
                result[current]?.volume = Int(first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
            } else if let current, t.hasPrefix("application.process.id = ") {
                result[current]?.pid = Int32(t.dropFirst("application.process.id = ".count).trimmingCharacters(in: ["\""])) ?? 0
            }
        }
        return result
    }

    /// A call in progress: the boundary is skipped (call = "skip", the default), the log and
    /// `status` say why, and nothing of the clock's reaches the sound server.
    func testACallInProgressSkipsTheBoundary() throws {
        try play(["media.role": "phone", "application.name": "FakeCall"])
        let d = try start()
        XCTAssertTrue(d.waitForLog("skipped boundary=2026-07-01T10:15:00+00:00", timeout: 20), d.log)
        XCTAssertTrue(d.log.contains(#"reason="courtesy: call (FakeCall, phone)""#), d.log)
        XCTAssertFalse(d.log.contains("spoke boundary"), d.log)
        let status = try d.request("status json")
        XCTAssertTrue(status.contains(#""courtesy":"skip: call (FakeCall, phone)""#), status)
    }

    /// `call = "speak"`: the same call changes nothing.
    func testACallIsIgnoredWhenConfiguredToSpeak() throws {
        try play(["media.role": "phone", "application.name": "FakeCall"])
        let d = try start(config: "[courtesy]\ncall = \"speak\"\n")
        XCTAssertTrue(d.waitForLog("spoke boundary=2026-07-01T10:15:00+00:00", timeout: 20), d.log)
    }

    /// Music playing: while the clock speaks it is lowered to duck-percent (30 %) and then put
    /// back exactly, as `pactl` sees it.
    func testMusicIsDuckedWhileTheClockSpeaksAndRestoredExactly() throws {
        let music = try play(["media.role": "music", "application.name": "FakeMusic"], volume: 40000)
        let d = try start()
        var lowest = Int.max
        let deadline = Date().addingTimeInterval(25)
        while !d.log.contains("spoke boundary=2026-07-01T10:15:00+00:00"), Date() < deadline {
            if let v = try sinkInputs()[music]?.volume { lowest = min(lowest, v) }
            usleep(30_000)
        }
        XCTAssertTrue(d.log.contains("spoke boundary=2026-07-01T10:15:00+00:00"), d.log)
        XCTAssertEqual(lowest, 12000, "ducked to 30 % of 40000 while the clock spoke")
        // Restored after it (the restore runs off the loop: wait for it).
        let restored = Date().addingTimeInterval(5)
        while (try sinkInputs()[music]?.volume) != 40000, Date() < restored { usleep(20_000) }
        XCTAssertEqual(try sinkInputs()[music]?.volume, 40000, d.log)
    }

    /// A demo (no state directory) killed while the music is ducked: the next daemon to start
    /// puts the music back (the record is in the runtime directory, not lost with the demo).
    func testADemoKilledWhileDuckingIsRepairedAtTheNextStart() throws {
        let music = try play(["media.role": "music", "application.name": "FakeMusic"], volume: 40000)
        let d = try start(demo: true)
        XCTAssertTrue(waitUntil(timeout: 25, poll: 0.02) { (try? self.sinkInputs()[music]?.volume) == 12000 }, "ducked: \(d.log)")
        d.kill9()
        XCTAssertEqual(try sinkInputs()[music]?.volume, 12000, "left ducked by the kill")
        let next = try start(demo: true)
        XCTAssertTrue(waitUntil(timeout: 5) { (try? self.sinkInputs()[music]?.volume) == 40000 }, "restored at the next start: \(next.log)")
        XCTAssertTrue(next.log.contains("<5>ducked volumes restored"), next.log)
    }

    /// `check` shows the courtesy settings and what one look finds now, with the decision.
    func testCheckShowsWhatALookFindsAndDecides() throws {
        try play(["media.role": "phone", "application.name": "FakeCall"])
        let config = dir.appendingPathComponent("check.toml")
        try "[courtesy]\ncall = \"chime-only\"\n".write(to: config, atomically: true, encoding: .utf8)
        let out = try BinaryRunner.run(
            ["check", "--config", config.path, "--pack", dir.appendingPathComponent("pack").path], environment: environment,
            timeout: 30)
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stdout.contains("ok: courtesy: call chime-only, do-not-disturb skip, media duck to 30 %"), out.stdout)
        XCTAssertTrue(
            out.stdout.contains("ok: courtesy now: a call (FakeCall, phone) → a boundary now would chime-only: call (FakeCall, phone)."),
            out.stdout)
    }
}

