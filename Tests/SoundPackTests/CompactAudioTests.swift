import Foundation
import Playback
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// Decoded clips are kept as 16-bit samples where that is exact (half the memory of float), and
/// the mixer's output does not change because of it.
final class CompactAudioTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("compact") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    static let bellIds = ["q1", "q2", "q3", "q4", "big"]
    static let bells = #""bells": {"quarter": ["q1", "q2", "q3", "q4"], "hour": "big"}, "chimes": {"beat_ms": 100, "hour_after_ms": 400, "strike_interval_ms": 300, "voice_after_ms": 250, "duck_db": 6},"#

    func testSixteenBitClipsAreStoredAsSixteenBitExactly() throws {
        let clips = try FixturePack.write(to: dir)
        let pack = try SoundPack(directory: dir)
        for id in ["one", "forty-five", "chime"] {
            let audio = try pack.audio(id)
            XCTAssertEqual(audio.storage, .pcm16(clips[id]!), id)
            XCTAssertEqual(audio.storage.byteCount, clips[id]!.count * 2)
            XCTAssertEqual(audio.samples, clips[id]!.map { Float($0) / 32768 }, "as float: s / 32768, exactly")
        }
    }

    func testAFloatClipThatIsNotSixteenBitStaysFloat() throws {
        try FixturePack.write(to: dir)
        // A 32-bit float WAV: 0.1 is not s / 32768 for any s; 0.5 and -0.25 are.
        let values: [Float] = [0.5, -0.25, 0.1, 0.0, 0.75]
        try Data(floatWAV(values, rate: 8000)).write(to: dir.appendingPathComponent("one.wav"))
        let audio = try SoundPack(directory: dir).audio("one")
        XCTAssertEqual(audio.storage, .float(values))

        try Data(floatWAV([0.5, -0.25, 0, 0.75, -1], rate: 8000)).write(to: dir.appendingPathComponent("two.wav"))
        XCTAssertEqual(try SoundPack(directory: dir).audio("two").storage, .pcm16([16384, -8192, 0, 24576, -32768]))
    }

    func testAMonoClipInAStereoPackStaysSixteenBit() throws {
        let clips = try FixturePack.write(to: dir)
        // The pack declares stereo; its clips are mono: duplicated to both channels at load.
        let manifest = dir.appendingPathComponent("pack.json")
        let text = try String(contentsOf: manifest, encoding: .utf8).replacingOccurrences(of: "\"channels\": 1", with: "\"channels\": 2")
        try text.write(to: manifest, atomically: true, encoding: .utf8)
        let audio = try SoundPack(directory: dir).audio("one")
        XCTAssertEqual(audio.format.channels, 2)
        XCTAssertEqual(audio.storage, .pcm16(clips["one"]!.flatMap { [$0, $0] }))
    }

    /// The westminster chime (overlapping bells, ducked under the voice) and gains below and above
    /// the headroom limit: rendering the stored 16-bit clips gives the same samples as rendering
    /// them as float, as the mixer did before.
    func testMixingSixteenBitClipsEqualsMixingTheirFloats() throws {
        try FixturePack.write(to: dir, ids: FixturePack.fullVocabulary + Self.bellIds, extraManifest: Self.bells)
        let pack = try SoundPack(directory: dir)
        for (hour, minute) in [(14, 0), (9, 15), (23, 45)] {
            let plan = try pack.plan(hour: hour, minute: minute, style: AnnouncementStyle(chime: .westminster))
            let timeline = try pack.timeline(for: plan)
            XCTAssertTrue(timeline.items.contains { $0.role == .chime })
            for gain: Float in [1, 0.37, 2] {
                let stored = Mixer.render(timeline, gain: gain, clips: { try? pack.audio($0).storage })
                let floats = Mixer.render(timeline, gain: gain) { (try? pack.audio($0).samples) ?? [] }
                XCTAssertEqual(stored, floats, "\(hour):\(minute) gain \(gain)")
                XCTAssertTrue(stored.contains { $0 != 0 })
            }
        }
    }

    func testCompactRefusesWhatIsNotExactlySixteenBit() {
        XCTAssertEqual(ClipSamples.compact([0, 0.5, -1, Float(32767) / 32768]), .pcm16([0, 16384, -32768, 32767]))
        XCTAssertEqual(ClipSamples.compact([0.5, 1.0]), .float([0.5, 1.0]), "+1.0 is beyond Int16")
        XCTAssertEqual(ClipSamples.compact([0.5, 0.1]), .float([0.5, 0.1]))
        XCTAssertEqual(ClipSamples.compact([0.5, 1.0 / 65536]), .float([0.5, 1.0 / 65536]), "half a 16-bit step")
        XCTAssertEqual(ClipSamples.compact([-0.0]), .float([-0.0]))
    }

    /// A WAVE_FORMAT_IEEE_FLOAT file, mono.
    private func floatWAV(_ samples: [Float], rate: Int) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
        let data = samples.flatMap { le32($0.bitPattern) }
        return Array("RIFF".utf8) + le32(UInt32(36 + data.count)) + Array("WAVEfmt ".utf8) + le32(16) + le16(3) + le16(1)
            + le32(UInt32(rate)) + le32(UInt32(rate * 4)) + le16(4) + le16(32) + Array("data".utf8)
            + le32(UInt32(data.count)) + data
    }
}
