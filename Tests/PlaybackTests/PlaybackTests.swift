import Playback
import TalkingClockCore
import TestSupport
import XCTest

final class MixerTests: XCTestCase {
    let format = StreamFormat(sampleRate: 1000, channels: 1)

    func testNonOverlappingClipsAreCopiedSampleForSample() {
        let a = FixturePack.signal(for: "a", frames: 50, channels: 1)
        let b = FixturePack.signal(for: "b", frames: 70, channels: 1)
        let audio = ["a": a.map { Float($0) / 32768 }, "b": b.map { Float($0) / 32768 }]
        let t = Timeline.compose(chime: [], voice: ["a", "b"], spacing: Spacing(wordGapMs: 10), format: format) { audio[$0]!.count }
        let out = Mixer.render(t) { audio[$0]! }
        XCTAssertEqual(out, a + [Int16](repeating: 0, count: 10) + b, "clips plus exactly the designed gap")
    }

    func testOverlapsAreAddedAndScaledBelowFullScale() {
        let loud = [Float](repeating: 0.8, count: 100)
        let t = Timeline.compose(
            chime: [ChimeNote(clip: "bell", offsetMs: 0, isAnchor: true), ChimeNote(clip: "bell", offsetMs: 50)], voice: [],
            spacing: Spacing(), format: format) { _ in 100 }
        let out = Mixer.render(t) { _ in loud }
        XCTAssertEqual(out.count, 150)
        XCTAssertEqual(out.max(), 32767, "the 1.6 sum is scaled to just under full scale, not clipped")
        XCTAssertEqual(Int(out[10]) * 2, Int(out[60]), accuracy: 1, "relative levels are kept")
    }

    func testBellsAreLoweredUnderTheVoiceWithFadesAndOnlyThere() {
        let rate = StreamFormat(sampleRate: 1000, channels: 1)  // 60 ms fades = 60 frames
        let items = [
            TimelineItem(clip: "bell", start: 0, frames: 1000, role: .chime),
            TimelineItem(clip: "word", start: 400, frames: 200, role: .voice),
        ]
        let audio: (String) -> [Float] = { $0 == "bell" ? [Float](repeating: 0.5, count: 1000) : [Float](repeating: 0.1, count: 200) }
        let plain = Mixer.render(Timeline(items: items, anchorFrame: 0, format: rate), audio: audio)
        XCTAssertEqual(plain[500], Int16(((Float(0.5) + 0.1) * 32768).rounded()), "without ducking the bell rings on unchanged under the word")
        let ducked = Mixer.render(Timeline(items: items, anchorFrame: 0, format: rate, bellGainUnderVoice: 0.25), audio: audio)
        XCTAssertEqual(Array(ducked[0..<340]), Array(plain[0..<340]), "untouched until the fade before the word")
        XCTAssertEqual(Array(ducked[660...]), Array(plain[660...]), "untouched after the fade back")
        for f in 400..<600 { XCTAssertEqual(ducked[f], Int16(((Float(0.5) * 0.25 + 0.1) * 32768).rounded()), "frame \(f)") }
        for f in 341..<400 { XCTAssertLessThan(ducked[f], ducked[f - 1], "fades down before the word, frame \(f)") }
        for f in 601..<660 { XCTAssertGreaterThan(ducked[f], ducked[f - 1], "fades up after it, frame \(f)") }
        // The ChimeTiming knob: 12 dB is a quarter of the amplitude.
        XCTAssertEqual(ChimeTiming(duckDb: 12).bellGainUnderVoice, 0.251, accuracy: 0.001)
        XCTAssertEqual(ChimeTiming().bellGainUnderVoice, 1)
    }

    func testGainScales() {
        let t = Timeline.compose(chime: [], voice: ["a"], spacing: Spacing(), format: format) { _ in 4 }
        XCTAssertEqual(Mixer.render(t, gain: 0.5) { _ in [0.5, -0.5, 0.25, 0] }, [8192, -8192, 4096, 0])
    }
}

final class PlaybackSessionTests: XCTestCase {
    let format = StreamFormat(sampleRate: 1000, channels: 1)

    func timeline(_ lengths: [Int]) -> (Timeline, [Int16]) {
        let ids = lengths.indices.map { "c\($0)" }
        let t = Timeline.compose(chime: [], voice: ids, spacing: Spacing(), format: format) { lengths[Int($0.dropFirst())!] }
        let pcm = ids.flatMap { FixturePack.signal(for: $0, frames: lengths[Int($0.dropFirst())!], channels: 1) }
        return (t, pcm)
    }

    /// Completion callbacks follow the device's delay: a clip is reported when its last frame has
    /// been played, not when it was written.
    func testCompletionsFireWhenTheLastFrameIsPlayed() {
        let (t, pcm) = timeline([300, 200, 400])
        let sink = RecordingSink(format: format, capacity: 250, periodFrames: 50)
        var reports: [(String, ClipResult, Int)] = []
        var played = 0
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, clock: { 0 }) { item, result in
            reports.append((item.clip, result, played))
        }
        var steps = 0
        while case .wait = session.pump() {
            sink.advance(frames: 50)
            played += 50
            steps += 1
            XCTAssertLessThan(steps, 1000)
        }
        XCTAssertEqual(reports.map(\.0), ["c0", "c1", "c2"])
        XCTAssertEqual(reports.map(\.1), [.finished, .finished, .finished])
        // Each report comes at the first pump after its end frame was played (one period of 50 at most late).
        XCTAssertEqual(reports.map(\.2), [300, 500, 900])
        XCTAssertEqual(Array(sink.samples.prefix(pcm.count)), pcm, "the stream starts with the timeline, sample for sample")
        XCTAssertTrue(sink.samples.dropFirst(pcm.count).allSatisfy { $0 == 0 }, "only silence after it")
        XCTAssertTrue(sink.stopped)
    }

    /// SIGTERM's soft end: after what the device already holds, 50 frames fall linearly to
    /// silence, nothing of the timeline is written after them, and the clips not finished report
    /// interrupted (before, the stream was cut at full level: a click).
    func testFadeOutRampsToSilenceAndWritesNothingAfter() {
        let (t, pcm) = timeline([300, 200, 400])
        let sink = RecordingSink(format: format, capacity: 100, periodFrames: 50)
        var reports: [String: ClipResult] = [:]
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, clock: { 0 }) { item, result in
            reports[item.clip] = result
        }
        // Play 350 frames (c0 done, c1 under way), with the device holding 100 more.
        for _ in 0..<7 {
            guard case .wait = session.pump() else { return XCTFail("ended early") }
            sink.advance(frames: 50)
        }
        let writtenBefore = sink.samples.count
        session.fadeOut(frames: 50)
        var steps = 0
        while case .wait = session.pump() {
            sink.advance(frames: 50)
            steps += 1
            XCTAssertLessThan(steps, 100)
        }
        let timelinePart = Array(sink.samples.prefix(writtenBefore + 50))
        XCTAssertEqual(Array(timelinePart.prefix(writtenBefore)), Array(pcm.prefix(writtenBefore)), "what was queued plays as it was")
        let ramp = timelinePart.suffix(50).map { abs(Int($0)) }
        let original = pcm[writtenBefore..<(writtenBefore + 50)].map { abs(Int($0)) }
        for (i, (r, o)) in zip(ramp, original).enumerated() {
            XCTAssertLessThanOrEqual(r, o, "frame \(i) of the ramp is not louder than the signal")
        }
        XCTAssertLessThan(ramp.last ?? 99999, (original.last ?? 0) / 20 + 1, "the ramp ends near silence")
        XCTAssertTrue(sink.samples.dropFirst(writtenBefore + 50).allSatisfy { $0 == 0 }, "nothing of the timeline after the ramp")
        XCTAssertEqual(reports["c0"], .finished)
        XCTAssertEqual(reports["c2"], .interrupted)
    }

    func testAClocklessSinkReceivesExactlyTheTimeline() {
        let (t, pcm) = timeline([30, 40])
        let sink = RecordingSink(format: format, paced: false)
        var finished: [String] = []
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, clock: { 0 }) { item, _ in finished.append(item.clip) }
        XCTAssertEqual(session.pump(), .done)
        XCTAssertEqual(sink.samples, pcm)
        XCTAssertEqual(finished, ["c0", "c1"])
    }

    /// The anchor frame is placed at the requested instant by writing the silence the delay says is owed.
    func testAnchorIsPlacedByTheDeviceDelay() {
        let (t, pcm) = timeline([100])
        let sink = RecordingSink(format: format, capacity: 200, periodFrames: 20)
        var now = 10.0
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, anchorAt: 11.0, clock: { now })
        var guardCount = 0
        while case .wait = session.pump() {
            // 20 frames of 1 ms each are played per step.
            sink.advance(frames: 20)
            now += 0.020
            guardCount += 1
            XCTAssertLessThan(guardCount, 500)
        }
        // Written at t=10.0 with delay 0: 1000 frames of silence are owed before the anchor.
        XCTAssertEqual(session.timelineStart, 1000)
        XCTAssertEqual(session.predictedAnchorTime ?? 0, 11.0, accuracy: 0.0005)
        XCTAssertTrue(sink.samples.prefix(1000).allSatisfy { $0 == 0 })
        XCTAssertEqual(Array(sink.samples[1000..<1100]), pcm)
    }

    func testLateStartBeginsAtOnceAndSaysHowLate() {
        let (t, pcm) = timeline([10])
        let sink = RecordingSink(format: format, paced: false)
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, anchorAt: 5.0, clock: { 5.25 })
        XCTAssertEqual(session.pump(), .done)
        XCTAssertEqual(session.timelineStart, 0)
        XCTAssertEqual(session.predictedAnchorTime ?? 0, 5.25, accuracy: 1e-9)
    }

    func testCancelReportsUnplayedClipsAsInterrupted() {
        let (t, pcm) = timeline([100, 100, 100])
        let sink = RecordingSink(format: format, capacity: 150, periodFrames: 50)
        var reports: [String: ClipResult] = [:]
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, clock: { 0 }) { reports[$0.clip] = $1 }
        _ = session.pump()
        sink.advance(frames: 120)
        _ = session.pump()
        session.cancel()
        XCTAssertEqual(reports, ["c0": .finished, "c1": .interrupted, "c2": .interrupted])
        XCTAssertEqual(session.pump(), .done)
        XCTAssertTrue(sink.stopped)
    }

    func testDeviceFailureReportsEveryUnfinishedClipAsFailed() {
        let (t, pcm) = timeline([100, 100])
        let sink = RecordingSink(format: format, capacity: 150, periodFrames: 50)
        var reports: [String: ClipResult] = [:]
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, clock: { 0 }) { reports[$0.clip] = $1 }
        _ = session.pump()
        let gone = SinkError(.failed, "ALSA device \"x\" failed while playing")
        sink.failNext = gone
        XCTAssertEqual(session.pump(), .done)
        XCTAssertEqual(reports, ["c0": .failed(gone), "c1": .failed(gone)])
        XCTAssertEqual(session.failure, gone)
    }

    /// A sound server that stops answering shows the session a device that neither plays nor takes
    /// anything (ALSA's pulse plugin reports a delay of 0 and accepts no frames): that is a stall
    /// too, cut at the same limit, and the owner is told to look again without a device event.
    func testADeviceThatNeitherPlaysNorTakesFramesIsCutAfterTheStallLimit() {
        final class FrozenSink: AudioSink {
            let deviceName = "pulse"
            let format: StreamFormat
            let periodFrames = 50
            private(set) var stopped = false
            init(format: StreamFormat) { self.format = format }
            func write(_ frames: UnsafeBufferPointer<Int16>) throws(SinkError) -> Int { 0 }
            func delay() throws(SinkError) -> Int { 0 }
            func pollDescriptors() -> [PollDescriptor] { [] }
            func acknowledge(revents: [Int16]) {}
            func stop() { stopped = true }
            func close() {}
        }
        let (t, pcm) = timeline([4000])
        let sink = FrozenSink(format: format)
        var now = 100.0
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, clock: { now })
        var waited = 0.0
        var result = session.pump()
        while case .wait(let timeout) = result {
            guard let timeout else { return XCTFail("a frozen device must not be waited on forever") }
            now += timeout
            waited += timeout
            result = session.pump()
            XCTAssertLessThan(waited, 10)
        }
        XCTAssertEqual(waited, 2.0, accuracy: 0.01)
        XCTAssertEqual(session.failure?.kind, .stalled)
        XCTAssertTrue(sink.stopped)
    }

    /// A device that stops taking frames (a sound server corked the stream) cuts the announcement
    /// after the stall limit, and the timeouts make the owner look again in time without any
    /// device event.
    func testACorkedStreamIsCutAfterTheStallLimit() {
        let (t, pcm) = timeline([4000, 4000])  // two 4 s clips
        let sink = RecordingSink(format: format, capacity: 500, periodFrames: 50)
        var now = 100.0
        var reports: [String: ClipResult] = [:]
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, clock: { now }) { reports[$0.clip] = $1 }
        // Plays normally for a while.
        for _ in 0..<10 {
            guard case .wait = session.pump() else { return XCTFail("ended early") }
            sink.advance(frames: 50)
            now += 50 / Double(format.sampleRate)
        }
        // Corked: nothing is consumed any more. The owner waits as told, no device event comes.
        var waited = 0.0
        var result = session.pump()
        while case .wait(let timeout) = result {
            guard let timeout else { return XCTFail("a stalled stream must not wait forever") }
            XCTAssertLessThanOrEqual(timeout, 2.0)
            now += timeout
            waited += timeout
            result = session.pump()
            XCTAssertLessThan(waited, 10)
        }
        XCTAssertEqual(waited, 2.0, accuracy: 0.01, "cut when 2 s had passed without progress, not later")
        XCTAssertEqual(session.failure?.kind, .stalled)
        XCTAssertEqual(
            session.failure?.message,
            "The sound device \"recording\" stopped taking audio for 2.0 s (the sound server paused the stream, "
                + "e.g. for a call, or stopped answering); the announcement was cut.")
        XCTAssertTrue(sink.stopped)
        XCTAssertEqual(reports.count, 2)
        for (clip, result) in reports {
            guard case .failed(let error) = result, error.kind == .stalled else { return XCTFail("\(clip): \(result)") }
        }
    }

    /// A slow device that still consumes something is not a stalled one.
    func testASlowButMovingStreamIsNotCut() {
        let (t, pcm) = timeline([300])
        let sink = RecordingSink(format: format, capacity: 300, periodFrames: 50)
        var now = 0.0
        var reports: [ClipResult] = []
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, clock: { now }) { reports.append($1) }
        var steps = 0
        while case .wait = session.pump() {
            sink.advance(frames: 1)  // one frame every 1.5 s
            now += 1.5
            steps += 1
            XCTAssertLessThan(steps, 2000)
        }
        XCTAssertEqual(reports, [.finished])
        XCTAssertNil(session.failure)
    }

    /// The wall clock stepped (NTP, a zone-independent jump) mid-announcement is not a stall; a
    /// real stall after it is still cut 2 s later.
    func testAClockStepIsNotAStall() {
        let (t, pcm) = timeline([4000])
        let sink = RecordingSink(format: format, capacity: 500, periodFrames: 50)
        var now = 100.0
        let session = PlaybackSession(sink: sink, timeline: t, pcm: pcm, clock: { now })
        guard case .wait = session.pump() else { return XCTFail("ended early") }
        sink.advance(frames: 50)
        now += 0.05
        guard case .wait = session.pump() else { return XCTFail("ended early") }
        now += 3600  // stepped forward an hour, the device still plays
        sink.advance(frames: 50)
        guard case .wait = session.pump() else { return XCTFail("a clock step was taken for a stall") }
        now -= 7200  // and back two
        guard case .wait = session.pump() else { return XCTFail("a clock step was taken for a stall") }
        XCTAssertNil(session.failure)
        // Now it really stalls.
        var waited = 0.0
        var result = session.pump()
        while case .wait(let timeout?) = result {
            now += timeout
            waited += timeout
            result = session.pump()
            XCTAssertLessThan(waited, 10)
        }
        XCTAssertEqual(session.failure?.kind, .stalled)
        XCTAssertEqual(waited, 2.0, accuracy: 0.01)
    }
}
