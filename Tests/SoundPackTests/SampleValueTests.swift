import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// Float clips whose samples are not audio (issue 29, item 3): NaN, ±infinity and 1e30 made the
/// player trap (SIGILL) converting them to integers, in `say`, `check` and the daemon. Each is
/// refused when the clip is decoded, naming the clip, the value and where it is.
final class SampleValueTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("samples") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// 100 frames of a quiet tone with `bad` at frame 40 (channel 2 when stereo).
    func clip(_ bad: Float, channels: Int = 1) throws -> String {
        var samples = (0..<(100 * channels)).map { Float(sin(Double($0) * 0.1) * 0.25) }
        samples[40 * channels + channels - 1] = bad
        let url = dir.appendingPathComponent("bad-\(channels).wav")
        try FloatWAV.encode(samples, sampleRate: 8000, channels: channels).write(to: url)
        return url.path
    }

    func testNaNInfinitiesAndHugeValuesAreRefusedNamingTheClip() throws {
        let cases: [(Float, String)] = [
            (.nan, "NaN (not a number)"), (.infinity, "+infinity"), (-.infinity, "-infinity"), (1e30, "1e+30"),
        ]
        for (value, shown) in cases {
            let path = try clip(value)
            XCTAssertThrowsError(try ClipDecoder.decode(path: path, clip: "seven"), shown) { error in
                let e = error as! PackError
                XCTAssertEqual(e.kind, .badSamples)
                XCTAssertEqual(e.clip, "seven")
                XCTAssertEqual(
                    e.message,
                    "Clip 'seven' (\(path)) has a sample of \(shown) at frame 40 (0.005 s); samples must be numbers within ±2 (full scale is ±1), so the file is damaged or was not written as audio. Re-export or regenerate it.")
            }
        }
        let stereo = try clip(-1e30, channels: 2)
        XCTAssertThrowsError(try ClipDecoder.decode(path: stereo, clip: "seven")) { error in
            XCTAssertTrue((error as! PackError).message.contains("a sample of -1e+30 at frame 40 (0.005 s, channel 2);"), "\(error)")
        }
    }

    /// A float clip a little over full scale is audio (clipped when played), and so are the
    /// limits themselves.
    func testAFloatClipOverFullScaleWithinTheLimitIsAccepted() throws {
        for value: Float in [1.5, -2, 2] {
            let audio = try ClipDecoder.decode(path: try clip(value), clip: "seven")
            XCTAssertEqual(audio.samples[40], value)
        }
    }

    /// Through a whole pack: `check`'s report lists the clip, and `preload` (the daemon's load and
    /// `reload`) refuses the pack.
    func testAPackWithSuchAClipIsRefusedAtLoad() throws {
        let pack = dir.appendingPathComponent("pack")
        try FixturePack.write(to: pack)
        var samples = [Float](repeating: 0.1, count: 400)
        samples[7] = .nan
        try FloatWAV.encode(samples, sampleRate: 8000).write(to: pack.appendingPathComponent("seven.wav"))
        let loaded = try SoundPack(directory: pack)
        let report = loaded.check()
        // The clip, then the minutes it leaves unsayable.
        XCTAssertEqual(report.problems.map(\.kind), [.badSamples, .vocabulary], "\(report.problems)")
        XCTAssertEqual(report.problems.first?.clip, "seven")
        XCTAssertThrowsError(try SoundPack(directory: pack).preload()) { error in
            XCTAssertEqual((error as! PackError).kind, .badSamples)
        }
    }
}
