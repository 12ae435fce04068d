import ConfigFiles
import ALSAOutput
import Outputs
import Foundation
import Playback
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// Sample-exact playback through ALSA itself: the `file` plugin records exactly what was written.
final class ALSAFileDeviceTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("alsa") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// Reads the PCM data of a WAV written by ALSA's file plugin (its header lengths may be 0).
    func readWAVData(_ url: URL) throws -> [Int16] {
        // No data chunk means nothing was recorded: a failure, not a skip.
        try XCTUnwrap(WAVSamples.int16(at: url), "\(url.path) has no data chunk")
    }

    func testAnnouncementReachesTheDeviceSampleForSample() throws {
        let packDir = dir.appendingPathComponent("pack")
        try FixturePack.write(to: packDir, format: StreamFormat(sampleRate: 16000, channels: 1), spacing: Spacing(wordGapMs: 7))
        let pack = try SoundPack(directory: packDir)
        let plan = try pack.plan(hour: 15, minute: 45, style: .standard)
        let timeline = try pack.timeline(for: plan)
        let pcm = Mixer.render(timeline) { (try? pack.audio($0).samples) ?? [] }
        // Expected: each clip, with exactly 7 ms (112 frames) between them.
        var expected: [Int16] = []
        for (i, clip) in plan.voiceClips.enumerated() {
            if i > 0 { expected += [Int16](repeating: 0, count: 112) }
            expected += try pack.audio(clip).samples.map { Int16(($0 * 32768).rounded()) }
        }
        XCTAssertEqual(pcm, expected)

        let out = dir.appendingPathComponent("out.wav")
        let sink = try ALSASink(device: "file:FILE=\(out.path),FORMAT=wav", format: timeline.format)
        var finished: [String] = []
        let session = PlaybackSession(sink: sink, timeline: timeline, pcm: pcm, clock: WallClock.now) { item, result in
            XCTAssertEqual(result, .finished)
            finished.append(item.clip)
        }
        PlaybackRunner.run(session, sink: sink)
        sink.close()
        XCTAssertNil(session.failure)
        XCTAssertEqual(finished, ["three", "forty-five", "pm"])
        let written = try readWAVData(out)
        XCTAssertEqual(Array(written.prefix(expected.count)), expected, "the device received the clips plus the designed spacing")
        XCTAssertTrue(written.dropFirst(expected.count).allSatisfy { $0 == 0 }, "and nothing but silence after")
    }

    func testMissingDeviceIsAClearErrorNotACrash() {
        XCTAssertThrowsError(try ALSASink(device: "hw:CARD=NoSuchCard", format: StreamFormat(sampleRate: 22050, channels: 1))) { error in
            let e = error as! SinkError
            XCTAssertEqual(e.kind, .notFound)
            XCTAssertTrue(e.message.hasPrefix("Could not open ALSA device \"hw:CARD=NoSuchCard\": "), e.message)
            XCTAssertTrue(e.message.contains("snd_pcm_open: -"), e.message)
            XCTAssertTrue(e.message.contains("aplay -L"), e.message)
        }
        XCTAssertThrowsError(try ALSASink(device: "no-such-pcm-name", format: StreamFormat(sampleRate: 22050, channels: 1)))
    }
}
