import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// `SoundPack.preload(keeping:)`: the daemon decodes every clip at load (a damaged one is refused
/// then), keeps those it will say, and measures and drops the others.
final class PreloadKeepingTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("keep") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testDroppedClipsAreMeasuredAndDecodedAgainOnlyForTheAsking() throws {
        let clips = try FixturePack.write(to: dir)
        let pack = try SoundPack(directory: dir)
        try pack.preload(keeping: { $0 != "forty-five" && $0 != "seven" })
        XCTAssertFalse(pack.isDecoded("forty-five"))
        XCTAssertFalse(pack.isDecoded("seven"))
        XCTAssertTrue(pack.isDecoded("three"))
        XCTAssertEqual(try pack.frames("forty-five"), clips["forty-five"]?.count)
        XCTAssertFalse(pack.isDecoded("forty-five"), "its length comes from the load, not a second decode")
        let again = try pack.audioUncached("forty-five")
        XCTAssertEqual(again.samples.map { Int16(($0 * 32768).rounded()) }, clips["forty-five"])
        XCTAssertFalse(pack.isDecoded("forty-five"), "decoded for one announcement, not kept")
        // A kept clip comes from the cache.
        XCTAssertEqual(try pack.audioUncached("three").samples, try pack.audio("three").samples)
    }

    func testADamagedClipThatWouldBeDroppedIsStillRefusedAtLoad() throws {
        try FixturePack.write(to: dir)
        var samples = [Float](repeating: 0.1, count: 400)
        samples[9] = .infinity
        try FloatWAV.encode(samples, sampleRate: 8000).write(to: dir.appendingPathComponent("seven.wav"))
        XCTAssertThrowsError(try SoundPack(directory: dir).preload(keeping: { $0 != "seven" })) { error in
            XCTAssertEqual((error as? PackError)?.kind, .badSamples)
            XCTAssertEqual((error as? PackError)?.clip, "seven")
        }
    }
}
