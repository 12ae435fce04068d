import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// `check` and `say` with a float clip holding NaN, ±infinity or 1e30 (issue 29, item 3): both
/// died (SIGILL) converting such a sample to an integer; now both name the clip and exit 65.
final class FloatSampleTests: XCTestCase {
    var pack: URL!

    override func setUpWithError() throws {
        pack = FixturePack.temporaryDirectory("float")
        try FixturePack.write(to: pack)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: pack) }

    func testCheckAndSayRefuseTheClipByName() throws {
        for (value, shown) in [(Float.nan, "NaN (not a number)"), (.infinity, "+infinity"), (-.infinity, "-infinity"), (1e30, "1e+30")] {
            var samples = [Float](repeating: 0.2, count: 800)
            samples[400] = value
            let clip = pack.appendingPathComponent("seven.wav")
            try FloatWAV.encode(samples, sampleRate: 8000).write(to: clip)
            let sentence = "Clip 'seven' (\(clip.path)) has a sample of \(shown) at frame 400 (0.050 s); samples must be numbers within ±2 (full scale is ±1), so the file is damaged or was not written as audio. Re-export or regenerate it."

            let check = try BinaryRunner.run(["check", "--pack", pack.path])
            XCTAssertEqual(check.status, ExitStatus.packError.rawValue, "\(shown): \(check.stdout)\(check.stderr)")
            XCTAssertTrue(check.stdout.contains("problem: \(sentence)\n"), "\(shown): \(check.stdout)")

            let out = pack.appendingPathComponent("out.wav")
            let say = try BinaryRunner.run(["say", "--at", "07:15", "--tz", "UTC", "--pack", pack.path, "--output", out.path])
            XCTAssertEqual(say.status, ExitStatus.packError.rawValue, "\(shown): \(say.stderr)")
            XCTAssertTrue(say.stderr.contains(sentence), "\(shown): \(say.stderr)")
        }
    }
}
