import ConfigFiles
import ALSAOutput
import Outputs
import Foundation
import Glibc
import Playback
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// Through a real-time sink: the project's harness (private PulseAudio null sink + time-stamped
/// capture of what it played).
final class RealTimeTests: XCTestCase {
    func testCompletionCallbacksFireWithinOnePeriodOfTheLastPlayedSample() throws {
        guard AudioHarness.isAvailable else { throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test") }
        let pulse = try AudioHarness.PrivatePulse("rt")
        let env = pulse.environment
        setenv("PULSE_SERVER", env["PULSE_SERVER"]!, 1)
        defer {
            unsetenv("PULSE_SERVER")
            pulse.stop()
        }
        let dir = FixturePack.temporaryDirectory("rt")
        defer { try? FileManager.default.removeItem(at: dir) }
        let format = StreamFormat(sampleRate: 48000, channels: 2)
        try FixturePack.write(to: dir, ids: ["three", "forty-five", "pm"], framesPerClip: { _ in 14400 }, format: format, spacing: Spacing(wordGapMs: 250))
        let pack = try SoundPack(directory: dir)
        let plan = AnnouncementPlan(hour: 15, minute: 45, phrase: Phrase.forTime(hour: 15, minute: 45), chime: [], voiceClips: ["three", "forty-five", "pm"], leadInCount: 0)
        let timeline = try pack.timeline(for: plan)
        let pcm = Mixer.render(timeline) { (try? pack.audio($0).samples) ?? [] }

        let capture = try AudioHarness.startCapture(to: dir.appendingPathComponent("cap.wav"), environment: env)
        let sink = try ALSASink(device: "pulse", format: format)
        var callbacks: [(String, Double)] = []
        let session = PlaybackSession(sink: sink, timeline: timeline, pcm: pcm, clock: WallClock.now) { item, result in
            XCTAssertEqual(result, .finished)
            callbacks.append((item.clip, WallClock.now()))
        }
        PlaybackRunner.run(session, sink: sink)
        sink.close()
        usleep(300_000)
        capture.stop()

        let gaps = try AudioHarness.analyze("gaps", capture.output, ["--min-gap-ms", "100"])
        let segments = try XCTUnwrap(gaps["segments"] as? [[String: Any]])
        XCTAssertEqual(segments.count, 3, "three clips, separated by the designed 250 ms")
        XCTAssertEqual(callbacks.map(\.0), ["three", "forty-five", "pm"])
        let periodMs = Double(sink.periodFrames) / 48.0
        for (segment, callback) in zip(segments, callbacks) {
            let end = try XCTUnwrap(segment["end_time"] as? Double)
            let lateMs = (callback.1 - end) * 1000
            // Not before the last sample was played, and within one ALSA period after it
            // (plus the capture's 2 ms block and a little scheduling slack).
            XCTAssertGreaterThan(lateMs, -1.0, "\(callback.0) reported before it was heard")
            XCTAssertLessThan(lateMs, periodMs + 4.0, "\(callback.0) reported \(lateMs) ms after its last sample")
        }
        for gap in try XCTUnwrap(gaps["gaps"] as? [[String: Any]]) {
            XCTAssertEqual(try XCTUnwrap(gap["duration_ms"] as? Double), 250, accuracy: 1.0, "no unintended silence")
        }
    }
}
