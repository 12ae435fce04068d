import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// `announce --next`, the one-shot for cron and systemd timers.
final class AnnounceTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("announce")
        try FixturePack.write(to: dir.appendingPathComponent("pack"))
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// `announce --next` with its clock shifted so that 12:45 UTC is `seconds` away: always the
    /// same boundary, whatever the hour (two calls in one test never straddle a real quarter).
    func announce(offsetToBoundary seconds: Double, extra: [String] = []) throws -> BinaryRunner.Outcome {
        let clock = ShiftedClock(boundary: ShiftedClock.twelveFortyFive, secondsAhead: seconds)
        return try BinaryRunner.run(
            ["announce", "--next", "--pack", dir.appendingPathComponent("pack").path, "--device", "file:FILE=/dev/null", "--tz", "UTC",
             "--state-dir", dir.appendingPathComponent("state").path,
             "--socket", dir.appendingPathComponent("none.sock").path] + clock.arguments + extra,
            environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path])
    }

    func testWaitsForTheBoundaryThenSpeaksOnceAndASecondTriggerDoesNot() throws {
        let start = Date()
        let first = try announce(offsetToBoundary: 2.0)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 1.5, "it waited on its own clock for the boundary")
        // Quiet for cron: the one result line on stdout, no informational log lines.
        XCTAssertTrue(first.stdout.hasPrefix("spoke "), first.stdout)
        XCTAssertFalse(first.stderr.contains("<6>"), "cron would mail these: \(first.stderr)")
        // The same boundary again (a duplicate trigger, 1 s after it): already spoken; --verbose
        // writes the log lines too.
        let second = try announce(offsetToBoundary: -1.0, extra: ["--verbose"])
        XCTAssertEqual(second.status, ExitStatus.stale.rawValue, second.stderr)
        XCTAssertTrue(second.stderr.contains("reason=already-spoken"), second.stderr)
        XCTAssertTrue(second.stderr.contains("<6>started"), second.stderr)
    }

    func testTooFarFromABoundaryExitsWithAClearMessage() throws {
        let r = try announce(offsetToBoundary: 300, extra: ["--max-wait", "60"])
        XCTAssertEqual(r.status, ExitStatus.stale.rawValue)
        XCTAssertTrue(r.stderr.contains("s away, more than --max-wait 60 s"), r.stderr)
    }

    func testTooLateIsAbandoned() throws {
        let r = try announce(offsetToBoundary: -20)  // the boundary passed 20 s ago; late-limit is 5 s
        XCTAssertEqual(r.status, ExitStatus.stale.rawValue, r.stderr)
    }

    func testMutedExitsWith2() throws {
        let state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try #"{"mute":{"state":"muted"}}"#.write(to: state.appendingPathComponent("state.json"), atomically: true, encoding: .utf8)
        let r = try announce(offsetToBoundary: 1.5)
        XCTAssertEqual(r.status, ExitStatus.muted.rawValue, r.stderr)
        XCTAssertTrue(r.stderr.contains("not announced: muted"), r.stderr)
    }
}
