import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// `talking-clock volume N` and `talking-clock chime STYLE` (issue 29, new-user findings): the
/// socket had `volume` and `chime`, the CLI did not.
extension ControlSocketAbuseTests {
    func testVolumeAndChimeFromTheCommandLine() throws {
        let volume = try BinaryRunner.run(["volume", "40", "--socket", daemon.socket])
        XCTAssertEqual(volume.status, 0, volume.stderr)
        XCTAssertTrue(try daemon.request("status json").contains(#""volume":40"#))

        let tooLoud = try BinaryRunner.run(["volume", "140", "--socket", daemon.socket])
        XCTAssertEqual(tooLoud.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(tooLoud.stderr.contains("the volume is a percentage from 0 to 100, not 140"), tooLoud.stderr)

        let chime = try BinaryRunner.run(["chime", "none", "--socket", daemon.socket])
        XCTAssertEqual(chime.status, 0, chime.stderr)
        XCTAssertTrue(try daemon.request("status json").contains(#""chime":"none""#))

        // The fixture pack has no bells for the Westminster Quarters: refused by the daemon, exit 65.
        let westminster = try BinaryRunner.run(["chime", "westminster", "--socket", daemon.socket])
        XCTAssertEqual(westminster.status, ExitStatus.packError.rawValue, westminster.stdout + westminster.stderr)
        XCTAssertTrue(try daemon.request("status json").contains(#""chime":"none""#), "the chime in use stays")

        let bogus = try BinaryRunner.run(["chime", "cuckoo", "--socket", daemon.socket])
        XCTAssertEqual(bogus.status, ExitStatus.badInput.rawValue, bogus.stderr)
    }
}
