import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// The daemon binary on the real-time harness: a boundary made to come 3 s after start with
/// --clock-offset must be heard on the dot (the tight figure is the benchmark's; here, a few ms).
final class DaemonRealTimeTests: XCTestCase {
    func testDaemonLandsTheAnnouncementOnTheBoundary() throws {
        guard AudioHarness.isAvailable else { throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test") }
        var env = try AudioHarness.pulseUp()
        let dir = FixturePack.temporaryDirectory("daemon-rt")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FixturePack.write(to: dir.appendingPathComponent("pack"), framesPerClip: { _ in 4410 }, format: StreamFormat(sampleRate: 22050, channels: 1))
        env["XDG_RUNTIME_DIR"] = dir.path
        env["XDG_CONFIG_HOME"] = dir.appendingPathComponent("config").path

        let capture = try AudioHarness.startCapture(to: dir.appendingPathComponent("cap.wav"), environment: env)
        let now = Date().timeIntervalSince1970
        let boundary = (Int(now) / 900 + 2) * 900
        let realBoundary = Double(Int(now) + 3)
        let offset = Double(boundary) - realBoundary
        let outcome = try BinaryRunner.run(
            ["run", "--pack", dir.appendingPathComponent("pack").path, "--device", "pulse", "--tz", "UTC", "--clock-offset", "\(Int(offset))",
             "--state-dir", dir.appendingPathComponent("state").path],
            environment: env, timeout: 30, stopAfter: realBoundary + 2.5 - now)
        usleep(200_000)
        capture.stop()
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("<6>spoke boundary="), outcome.stderr)
        let onset = try AudioHarness.analyze("onset", capture.output, ["--at", "\(realBoundary)"])
        let error = try XCTUnwrap(onset["error_ms"] as? Double, "\(onset)")
        XCTAssertLessThan(abs(error), 5.0, "onset \(error) ms from the boundary")
        let state = try String(contentsOf: dir.appendingPathComponent("state/state.json"), encoding: .utf8)
        XCTAssertTrue(state.contains("\(boundary)"), "the spoken boundary is persisted: \(state)")
    }

    /// Westminster at :00: the quarters start early so that the first hour stroke is on the hour.
    /// A fixture pack with a fast tempo puts the first stroke 2.2 s after the first quarter note;
    /// the daemon must wake that much earlier and place the first quarter note 2.2 s before the
    /// boundary (the stream is continuous from there, sample-exact).
    func testWestminsterPutsTheFirstHourStrokeOnTheBoundary() throws {
        guard AudioHarness.isAvailable else { throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test") }
        var env = try AudioHarness.pulseUp()
        let dir = FixturePack.temporaryDirectory("rt-wm")
        defer { try? FileManager.default.removeItem(at: dir) }
        let bells = ["q1", "q2", "q3", "q4", "big"]
        try FixturePack.write(
            to: dir.appendingPathComponent("pack"), ids: FixturePack.fullVocabulary + bells, framesPerClip: { _ in 4410 },
            format: StreamFormat(sampleRate: 22050, channels: 1),
            extraManifest: #""bells": {"quarter": ["q1", "q2", "q3", "q4"], "hour": "big"}, "chimes": {"beat_ms": 100, "hour_after_ms": 400, "strike_interval_ms": 300, "voice_after_ms": 300},"#)
        env["XDG_RUNTIME_DIR"] = dir.path
        env["XDG_CONFIG_HOME"] = dir.appendingPathComponent("config").path

        let capture = try AudioHarness.startCapture(to: dir.appendingPathComponent("cap.wav"), environment: env)
        let now = Date().timeIntervalSince1970
        let boundary = (Int(now) / 3600 + 2) * 3600  // a top of the hour
        let realBoundary = Double(Int(now) + 6)
        let offset = Double(boundary) - realBoundary
        let anchorOffset = 2.2
        let outcome = try BinaryRunner.run(
            ["run", "--pack", dir.appendingPathComponent("pack").path, "--device", "pulse", "--tz", "UTC", "--clock-offset", "\(Int(offset))",
             "--chime", "westminster", "--state-dir", dir.appendingPathComponent("state").path],
            environment: env, timeout: 40, stopAfter: realBoundary + 2.5 - now)
        usleep(200_000)
        capture.stop()
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("<6>spoke boundary="), outcome.stderr)
        XCTAssertFalse(outcome.stderr.contains("woke too late"), outcome.stderr)
        let onset = try AudioHarness.analyze("onset", capture.output, ["--at", "\(realBoundary - anchorOffset)"])
        let error = try XCTUnwrap(onset["error_ms"] as? Double, "\(onset)")
        XCTAssertLessThan(abs(error), 5.0, "the first quarter note is \(error) ms from boundary - 2.2 s, so the hour stroke is off by as much")
    }

    /// The daemon holds a sound-server device open between announcements (so `say` starts
    /// sooner). When the sound server restarts, that handle is stale: the next `say` must still
    /// play, on a fresh connection, with no failure.
    func testSayThroughTheDaemonSurvivesASoundServerRestart() throws {
        guard AudioHarness.isAvailable else { throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test") }
        let pulseDir = "/tmp/tc-warm-\(getpid())"
        var env = try AudioHarness.pulseUp(dir: pulseDir)
        defer { try? AudioHarness.pulseDown(dir: pulseDir) }
        let dir = FixturePack.temporaryDirectory("warm")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FixturePack.write(to: dir.appendingPathComponent("pack"), framesPerClip: { _ in 4410 }, format: StreamFormat(sampleRate: 22050, channels: 1))
        env["XDG_RUNTIME_DIR"] = dir.path
        env["XDG_CONFIG_HOME"] = dir.appendingPathComponent("config").path
        let daemonEnv = env
        nonisolated(unsafe) var outcome: BinaryRunner.Outcome?
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            outcome = try? BinaryRunner.run(
                ["run", "--driver", "external", "--pack", dir.appendingPathComponent("pack").path, "--device", "pulse",
                 "--state-dir", dir.appendingPathComponent("state").path],
                environment: daemonEnv, timeout: 40, stopAfter: 9)
            done.signal()
        }
        usleep(1_500_000)
        func sayIsHeard(_ label: String) throws {
            let capture = try AudioHarness.startCapture(to: dir.appendingPathComponent("\(label).wav"), environment: env)
            let say = try BinaryRunner.run(["say"], environment: env, timeout: 10)
            XCTAssertEqual(say.status, 0, "\(label): \(say.stdout) \(say.stderr)")
            XCTAssertTrue(say.stdout.hasPrefix("speaking "), "\(label): the daemon answered: \(say.stdout)")
            usleep(1_500_000)
            capture.stop()
            let onset = try AudioHarness.analyze("onset", capture.output)
            XCTAssertEqual(onset["found"] as? Bool, true, "\(label): nothing was heard: \(onset)")
        }
        try sayIsHeard("before")
        try AudioHarness.pulseDown(dir: pulseDir)
        for (key, value) in try AudioHarness.pulseUp(dir: pulseDir) { env[key] = value }
        try sayIsHeard("after-restart")
        done.wait()
        let log = try XCTUnwrap(outcome).stderr
        XCTAssertEqual(log.components(separatedBy: "<6>spoke ").count - 1, 2, log)
        XCTAssertFalse(log.contains("announcement failed"), log)
    }
}
