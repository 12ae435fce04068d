import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// The bundled pack, as the README's first command uses it.
final class DefaultPackTests: XCTestCase {
    var pack: String { BinaryRunner.packageRoot.appendingPathComponent("Sounds/default").path }

    func testTheDefaultPackPassesCheck() throws {
        let r = try BinaryRunner.run(["check", "--pack", pack])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("all 1440 minutes can be said"), r.stdout)
    }

    func testTheDefaultPackIsFoundByNameFromTheBuildDirectory() throws {
        let r = try BinaryRunner.run(["say", "--at", "00:00", "--dry-run"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "midnight\nclips: chime midnight\n")
    }

    func testTopOfTheHourMixesTheVoiceOverTheBellTailWithoutClipping() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("tc-default-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try BinaryRunner.run(["say", "--at", "15:00", "--output", out.path, "--pack", pack])
        XCTAssertEqual(r.status, 0, r.stderr)
        let data = try Data(contentsOf: out)
        let samples = stride(from: 44, to: data.count - 1, by: 2).map { Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8) }
        XCTAssertGreaterThan(samples.count, 22050 * 5, "the bell rings on for seconds")
        XCTAssertNotEqual(samples[0], 0, "the strike is the first sample (the anchor)")
        XCTAssertLessThan(samples.map { abs(Int($0)) }.max()!, 32768, "never clipped")
    }
}
