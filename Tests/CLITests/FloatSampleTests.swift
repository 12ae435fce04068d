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

/// Pack limits as `check` and `run` meet them (issue 29, items 5 and 8).
final class PackLimitCLITests: XCTestCase {
    var pack: URL!

    override func setUpWithError() throws {
        pack = FixturePack.temporaryDirectory("limits")
        try FixturePack.write(to: pack)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: pack) }

    /// 20,000 notes in one minute (under the 1 MiB manifest cap): `check` passed it, and every
    /// hour then failed with a 17 s render.
    func testCheckRefusesTwentyThousandNotes() throws {
        let notes = (0..<20_000).map { #"{"bell": "chime", "at_ms": \#($0 % 120_000)}"# }.joined(separator: ",")
        let manifest = pack.appendingPathComponent("pack.json")
        var text = try String(contentsOf: manifest, encoding: .utf8)
        text = text.replacingOccurrences(
            of: #""format": 1,"#, with: #""format": 1, "chimes": {"patterns": {"hour": {"notes": {"0": [\#(notes)]}}}},"#)
        try text.write(to: manifest, atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["check", "--pack", pack.path])
        XCTAssertEqual(r.status, ExitStatus.packError.rawValue, r.stdout + r.stderr)
        XCTAssertTrue(
            r.stdout.contains(
                #"problem: \#(manifest.path): "chimes.patterns.hour.notes.0" has 20000 notes; one minute may ring at most 64"#),
            r.stdout)
    }

    /// A pack over the total-audio bound: `check` and the daemon refuse it from the headers, at once.
    func testCheckAndRunRefuseAPackOverTheBound() throws {
        // Three 30 s clips at 8 kHz in a pack declared 192 kHz stereo: 34,560,000 samples decoded.
        let big = pack.appendingPathComponent("big")
        try FileManager.default.createDirectory(at: big, withIntermediateDirectories: true)
        for i in 0..<3 {
            try FloatWAV.encode([Float](repeating: 0.01, count: 240_000), sampleRate: 8000)
                .write(to: big.appendingPathComponent("c\(i).wav"))
        }
        try #"{"format": 1, "name": "big", "sample_rate": 192000, "channels": 2, "clips": {"chime": "c0.wav", "one": "c1.wav", "two": "c2.wav"}}"#
            .write(to: big.appendingPathComponent("pack.json"), atomically: true, encoding: .utf8)
        let sentence = "Sound pack 'big' (\(big.path)) holds 1.5 minutes of audio at 192000 Hz, 2 channels, 16-bit (34560000 samples); a pack may hold at most 33554432 samples"
        let check = try BinaryRunner.run(["check", "--pack", big.path], timeout: 20)
        XCTAssertEqual(check.status, ExitStatus.packError.rawValue, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("problem: " + sentence), check.stdout)
        let run = try BinaryRunner.run(
            ["run", "--pack", big.path, "--device", "null", "--tz", "UTC", "--state-dir", pack.appendingPathComponent("state").path,
             "--socket", pack.appendingPathComponent("run/s").path], timeout: 20)
        XCTAssertEqual(run.status, ExitStatus.packError.rawValue, run.stderr)
        XCTAssertTrue(run.stderr.contains(sentence), run.stderr)
    }
}
