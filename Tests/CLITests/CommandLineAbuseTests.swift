import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// Options that meant nothing, or something else, are refused with the reason (issue 22).
final class CommandLineAbuseTests: XCTestCase {
    /// Were `run` ever to start, it would use these, not the user's state and socket.
    let scratch = ["--state-dir", "/nonexistent/talking-clock-tests/state", "--socket", "/nonexistent/talking-clock-tests/control.sock"]

    func testAnEmptyDeviceOrPackIsRefused() throws {
        for argv in [["say", "--at", "12:00", "--device", ""], ["run", "--device", " "] + scratch, ["say", "--at", "12:00", "--pack", ""]] {
            let r = try BinaryRunner.run(argv, timeout: 30)
            XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, "\(argv): \(r.stderr)")
            let expected = argv.contains("--device")
                ? "Error: --device is empty; give an output such as default, pulse or plughw:1, or leave the option out to use the config's device (else default).\n"
                : "Error: --pack is empty; give a pack name such as default or a directory that contains pack.json, or leave the option out.\n"
            XCTAssertTrue(r.stderr.hasPrefix(expected), "\(argv): \(r.stderr)")
        }
    }

    func testClockRateWithoutAFakeClockIsRefused() throws {
        let r = try BinaryRunner.run(["run", "--clock-rate", "60", "--device", "file:FILE=/dev/null"] + scratch, timeout: 30)
        XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, r.stderr)
        XCTAssertTrue(
            r.stderr.hasPrefix(
                "Error: --clock-rate is the speed of the simulated clock, so it needs --fake-clock (e.g. --fake-clock 2026-07-01T12:44:50 --clock-rate 60); the real clock always runs at rate 1.\n"),
            r.stderr)
    }
}
