import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// The built daemon on a private PulseAudio, its sound captured with every frame time-stamped
/// (`scripts/harness`): a five-minute boundary, a reminder whose words espeak-ng renders at start,
/// one appended to the time, and an away range that silences it. Each run makes its instant come a
/// few seconds after start (`--clock-offset`, a fixed simulated time, never the hour the test runs
/// at) and ends when the daemon logs it; a few seconds each.
final class RhythmRealTimeTests: XCTestCase {
    /// 2026-07-01T10:05:00Z: a boundary of `interval = "5m"` only (not a quarter).
    static let fivePast = 1_782_900_300
    /// 2026-07-01T10:07:00Z: no boundary of any interval but 1m: a reminder alone.
    static let sevenPast = 1_782_900_420
    let eventTimeout = 30.0

    var dir: URL!
    var pulse: AudioHarness.PrivatePulse!
    var env: [String: String] = [:]

    override func setUpWithError() throws {
        guard AudioHarness.isAvailable else { throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng") else {
            return XCTFail("espeak-ng is not installed: run scripts/install-deps --test (it renders the reminders' words)")
        }
        dir = FixturePack.temporaryDirectory("rhythm-rt")
        pulse = try AudioHarness.PrivatePulse("rhythm-rt")
        env = pulse.environment
        env["XDG_RUNTIME_DIR"] = dir.path
        env["XDG_CONFIG_HOME"] = dir.appendingPathComponent("config").path
        env["XDG_CACHE_HOME"] = dir.appendingPathComponent("cache").path
        // A pack whose words say it was made with espeak-ng's US voice: the reminders are rendered
        // with it. Clips of 0.2 s of noise, never silent.
        try FixturePack.write(
            to: dir.appendingPathComponent("pack"), framesPerClip: { _ in 4410 }, format: StreamFormat(sampleRate: 22050, channels: 1),
            extraManifest: #""synthesis": {"engine": "espeak-ng", "voice": "en-us"},"#)
    }

    override func tearDown() {
        pulse?.stop()
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    func run(_ toml: String, _ clock: ShiftedClock, until logged: String, pack: URL? = nil) throws -> (DaemonProcess, URL) {
        let config = dir.appendingPathComponent("config.toml")
        let packPath = (pack ?? dir.appendingPathComponent("pack")).path
        try ("pack = \"\(packPath)\"\nchime = \"none\"\n" + toml).write(
            to: config, atomically: true, encoding: .utf8)
        let capture = try AudioHarness.startCapture(to: dir.appendingPathComponent("cap-\(UUID().uuidString.prefix(6)).wav"), environment: env)
        defer { capture.stop() }
        let d = try DaemonProcess(
            ["run", "--config", config.path, "--device", "pulse", "--tz", "UTC", "--state-dir", dir.appendingPathComponent("state").path]
                + clock.arguments,
            socket: dir.appendingPathComponent("run/control.sock").path, environment: env, logURL: dir.appendingPathComponent("daemon.log"))
        let (seen, status) = d.stop(whenLogged: logged, timeout: clock.secondsLeft + eventTimeout)
        capture.stop()
        XCTAssertTrue(seen, d.log)
        XCTAssertEqual(status, 0, d.log)
        return (d, capture.output)
    }

    /// `interval = "5m"`: 10:05, a boundary of five minutes only, lands on its instant; a reminder
    /// appended to it follows the time with no gap over 200 ms.
    func testAFiveMinuteBoundaryWithAnAppendedReminder() throws {
        let clock = ShiftedClock(boundary: Self.fivePast, secondsAhead: 5)
        let (d, capture) = try run(
            "interval = \"5m\"\n[[reminder]]\nat = \"10:05\"\nsay = \"Feed the cat\"\nappend = true\n", clock,
            until: "<6>spoke boundary=2026-07-01T10:05:00+00:00")
        XCTAssertTrue(d.log.contains(#"text="ten oh five AM. Feed the cat""#), d.log)
        let onset = try AudioHarness.analyze("onset", capture, ["--at", "\(clock.realInstant)"])
        let error = try XCTUnwrap(onset["error_ms"] as? Double, "\(onset)")
        XCTAssertLessThan(abs(error), 1.0, "onset \(error) ms from 10:05")
        print("rhythm-rt: 10:05 onset \(error) ms")
        // Sound from the first word to the reminder's last: no silence longer than 200 ms.
        let gaps = try AudioHarness.analyze("gaps", capture, ["--min-gap-ms", "10"])
        let segments = try XCTUnwrap(gaps["segments"] as? [[String: Any]], "\(gaps)")
        let inner = (gaps["gaps"] as? [[String: Any]] ?? []).filter { gap in
            let start = gap["start_time"] as? Double ?? 0
            return start > clock.realInstant && start < (segments.last?["end_time"] as? Double ?? 0)
        }
        let longest = inner.compactMap { $0["duration_ms"] as? Double }.max() ?? 0
        XCTAssertGreaterThan(segments.count, 0, "\(gaps)")
        XCTAssertLessThanOrEqual(longest, 200, "the reminder follows the time: gaps \(inner)")
        print("rhythm-rt: longest gap from the time to the reminder's end \(longest) ms")
        let span = (segments.last?["end_time"] as? Double ?? 0) - clock.realInstant
        XCTAssertGreaterThan(span, 0.6 + 0.5, "the time (0.6 s) and then the words were heard: \(segments)")
    }

    /// `date = "first"` with the shipped default pack: the first announcement of the day says the
    /// date after the time, from the pack's own date words, which the daemon keeps decoded because
    /// its config says dates (it drops them otherwise); the time lands on its instant and the date
    /// is heard after it (the time alone renders 1.27 s, with the date 3.06 s).
    func testTheShippedPackSaysTheDateWithTheFirstAnnouncement() throws {
        let quarterPast = Self.fivePast + 600  // 2026-07-01T10:15:00Z, a Wednesday
        let clock = ShiftedClock(boundary: quarterPast, secondsAhead: 5)
        let (d, capture) = try run(
            "date = \"first\"\n", clock, until: "<6>spoke boundary=2026-07-01T10:15:00+00:00",
            pack: BinaryRunner.packageRoot.appendingPathComponent("Sounds/default"))
        XCTAssertTrue(d.log.contains(#"text="ten fifteen AM. Wednesday, July first""#), d.log)
        // The pack's "ten" rises out of its fade-in: its first sample the analyzer counts as sound
        // (-60 dBFS) is 1.7 ms into the clip. That lead, read from the same announcement written to
        // a file, is where the sound is due.
        let render = dir.appendingPathComponent("render.wav")
        let said = try BinaryRunner.run(
            ["say", "--at", "10:15", "--date", "2026-07-01", "--chime", "none", "--tz", "UTC", "--pack",
             BinaryRunner.packageRoot.appendingPathComponent("Sounds/default").path, "--output", render.path], environment: env)
        XCTAssertEqual(said.status, 0, said.stderr)
        let lead = try XCTUnwrap(try AudioHarness.analyze("onset", render)["offset_ms"] as? Double)
        let onset = try AudioHarness.analyze("onset", capture, ["--at", "\(clock.realInstant)"])
        let error = try XCTUnwrap(onset["error_ms"] as? Double, "\(onset)") - lead
        XCTAssertLessThan(abs(error), 1.0, "onset \(error) ms from 10:15 (the clip's own lead of \(lead) ms taken off)")
        let gaps = try AudioHarness.analyze("gaps", capture, ["--min-gap-ms", "10"])
        let segments = try XCTUnwrap(gaps["segments"] as? [[String: Any]], "\(gaps)")
        let span = (segments.last?["end_time"] as? Double ?? 0) - clock.realInstant
        XCTAssertGreaterThan(span, 2.8, "the time and then the date were heard: \(segments)")
        XCTAssertLessThan(span, 3.5, "nothing after the date: \(segments)")
        print("rhythm-rt: 10:15 with the date: onset \(error) ms, heard for \(span) s")
    }

    /// A reminder alone at a minute that is no boundary: its words (rendered by espeak-ng at
    /// start) land on its instant, and the log line carries them.
    func testAReminderIsSaidOnItsInstant() throws {
        let clock = ShiftedClock(boundary: Self.sevenPast, secondsAhead: 5)
        let (d, capture) = try run(
            "[[reminder]]\nat = \"10:07\"\nsay = \"Stand-up meeting\"\n", clock, until: "<6>spoke boundary=2026-07-01T10:07:00+00:00")
        XCTAssertEqual(d.logLines(containing: "<6>spoke ").count, 1, d.log)
        XCTAssertTrue(d.log.contains(#"<6>spoke boundary=2026-07-01T10:07:00+00:00"#) && d.log.contains(#"text="Stand-up meeting""#), d.log)
        let onset = try AudioHarness.analyze("onset", capture, ["--at", "\(clock.realInstant)"])
        let error = try XCTUnwrap(onset["error_ms"] as? Double, "\(onset)")
        XCTAssertLessThan(abs(error), 1.0, "onset \(error) ms from 10:07")
        print("rhythm-rt: 10:07 reminder onset \(error) ms")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("cache/talking-clock/speech").path)
                .filter { $0.hasSuffix(".wav") }.count, 1, "the rendering is kept by its content")
    }

    /// An away range pauses the reminder: rendered at start, never heard.
    func testAnAwayRangeSilencesTheReminder() throws {
        let clock = ShiftedClock(boundary: Self.sevenPast, secondsAhead: 5)
        let (d, capture) = try run(
            "[[reminder]]\nat = \"10:07\"\nsay = \"Stand-up meeting\"\n[[away]]\nfrom = \"2026-06-28\"\nto = \"2026-07-05\"\n", clock,
            until: "<6>skipped boundary=2026-07-01T10:07:00+00:00 reason=away")
        XCTAssertTrue(d.log.contains(#"reminder left out at=2026-07-01T10:07:00+00:00 reason=away reminder="Stand-up meeting""#), d.log)
        XCTAssertFalse(d.log.contains("<6>spoke "), d.log)
        let onsets = try AudioHarness.analyze("onsets", capture)
        XCTAssertEqual(onsets["count"] as? Int, 0, "nothing heard: \(onsets)")
    }
}
