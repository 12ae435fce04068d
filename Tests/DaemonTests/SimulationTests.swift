import Foundation
import Playback
import TalkingClockCore
import TestSupport
import XCTest

/// The daemon's decision logic against a manual clock and a recording sink: whole simulated days,
/// DST nights, clock steps, suspend gaps, mute, quiet hours and triggers.
final class SimulationTests: XCTestCase {
    let format = StreamFormat(sampleRate: 1000, channels: 1)
    let lead = 1.0

    struct Spoken: Equatable {
        var boundary: Int
        var text: String
    }

    /// Drives the scheduler the way `ClockDaemon` does: wake `lead` seconds before the next
    /// boundary (or late, after a suspend), decide, play through a recording sink, record.
    final class Harness {
        var scheduler: AnnouncementScheduler
        let zone: Zone
        let clock: ManualClock
        var spoken: [Spoken] = []
        var skipped: [(Int, SkipReason)] = []
        let format = StreamFormat(sampleRate: 1000, channels: 1)

        init(config: Config = Config(), state: PersistentState = PersistentState(), zone: String, start: Double) {
            scheduler = AnnouncementScheduler(config: config, state: state)
            self.zone = Zone(identifier: zone)!
            clock = ManualClock(start)
        }

        /// One boundary: returns the boundary handled.
        @discardableResult
        func step(wakeDelay: Double = 0) -> Int {
            let boundary = scheduler.nextBoundary(after: clock.now, in: zone)
            let wait = clock.schedule(at: Double(boundary) - 1.0)
            XCTAssertEqual(clock.advance(to: Double(boundary) - 1.0 + wakeDelay), [wait])
            handle(boundary)
            return boundary
        }

        func handle(_ boundary: Int) {
            let woke = clock.now
            let decision = scheduler.decide(boundary: boundary, now: woke, in: zone)
            switch decision {
            case .skip(_, _, let reason):
                scheduler.recordSkipped(decision)
                skipped.append((boundary, reason))
            case .speak(_, let local, let style, let gain):
                scheduler.recordSpoken(boundary)
                let plan = try! AnnouncementPlan.make(hour: local.hour, minute: local.minute, style: style, pattern: .singleStrike(bell: "chime", timing: ChimeTiming()), available: Set(FixturePack.fullVocabulary))
                let timeline = Timeline.compose(chime: plan.chime, voice: plan.voiceClips, spacing: Spacing(), format: format) { _ in 50 }
                let pcm = Mixer.render(timeline, gain: gain) { _ in [Float](repeating: 0.5, count: 50) }
                let sink = RecordingSink(format: format, capacity: 200, periodFrames: 20)
                var finished = 0
                let session = PlaybackSession(sink: sink, timeline: timeline, pcm: pcm, anchorAt: Double(boundary), clock: { [clock] in clock.now }) { _, result in
                    XCTAssertEqual(result, .finished)
                    finished += 1
                }
                while case .wait = session.pump() {
                    sink.advance(frames: 20)
                    _ = clock.advance(to: clock.now + 0.020)
                }
                XCTAssertEqual(finished, timeline.items.count)
                // Anchored on the boundary; a late wake-up (within the late limit) starts at once.
                XCTAssertEqual(session.predictedAnchorTime ?? 0, max(Double(boundary), woke), accuracy: 0.0011)
                spoken.append(Spoken(boundary: boundary, text: plan.phrase.text + (style.voice ? "" : " [chime only]")))
            }
            // The daemon arms the next wait from max(now, boundary).
            _ = clock.advance(to: Double(boundary))
        }
    }

    func testASimulatedDayIs96AnnouncementsNoneMissedNoneDoubled() {
        let h = Harness(zone: "Europe/Berlin", start: try! InstantParser.parse("2026-07-01T00:00:30", in: Zone(identifier: "Europe/Berlin")!))
        for _ in 0..<96 { h.step() }
        XCTAssertEqual(h.spoken.count, 96)
        XCTAssertEqual(Set(h.spoken.map(\.boundary)).count, 96, "none doubled")
        XCTAssertEqual(zip(h.spoken, h.spoken.dropFirst()).map { $1.boundary - $0.boundary }, [Int](repeating: 900, count: 95), "none missed")
        XCTAssertEqual(h.spoken.first?.text, "twelve fifteen AM")
        XCTAssertEqual(h.spoken.last?.text, "midnight")
        XCTAssertTrue(h.clock.pending.isEmpty, "nothing still waiting")
    }

    func testBothDSTNightsInNewYork() {
        let ny = Zone(identifier: "America/New_York")!
        let spring = Harness(zone: "America/New_York", start: try! InstantParser.parse("2026-03-08T01:20", in: ny))
        for _ in 0..<3 { spring.step() }
        XCTAssertEqual(spring.spoken.map(\.text), ["one thirty AM", "one forty-five AM", "three AM"])
        let fall = Harness(zone: "America/New_York", start: try! InstantParser.parse("2026-11-01T01:35", in: ny))
        for _ in 0..<6 { fall.step() }
        XCTAssertEqual(fall.spoken.map(\.text), ["one forty-five AM", "one AM", "one fifteen AM", "one thirty AM", "one forty-five AM", "two AM"])
        XCTAssertEqual(Set(fall.spoken.map(\.boundary)).count, 6, "the repeated hour is a different instant each time")
    }

    func testClockSteppedBackDoesNotRepeatAndForwardDoesNotSpeakStale() {
        let h = Harness(zone: "UTC", start: 1_800_000_000 - 30)  // 2027-01-15T08:00:00Z is a boundary
        h.step()
        h.step()
        XCTAssertEqual(h.spoken.count, 2)
        // Stepped back 40 minutes: the boundaries already spoken are not spoken again.
        h.clock.set(h.clock.now - 2400)
        let next = h.step()
        XCTAssertEqual(next, h.spoken[1].boundary + 900)
        XCTAssertEqual(h.spoken.count, 3)
        // Stepped forward 2 hours in the middle of a wait: the boundary we were waiting for is stale.
        let boundary = h.scheduler.nextBoundary(after: h.clock.now, in: h.zone)
        h.clock.set(Double(boundary) + 7200)
        h.handle(boundary)
        XCTAssertEqual(h.skipped.last?.1, .stale)
        XCTAssertEqual(h.spoken.count, 3)
    }

    func testSuspendGapSkipsStaleBoundariesThenResumes() {
        let h = Harness(zone: "UTC", start: 1_800_000_000 - 30)
        h.step()
        // Suspended for 50 minutes: woke 4 s after one boundary (within late-limit 5 s) → speak late.
        let b1 = h.scheduler.nextBoundary(after: h.clock.now, in: h.zone)
        _ = h.clock.advance(to: Double(b1) + 6)  // 6 s late: stale
        h.handle(b1)
        XCTAssertEqual(h.skipped.map(\.1), [.stale])
        let b2 = h.scheduler.nextBoundary(after: h.clock.now, in: h.zone)
        XCTAssertEqual(b2, b1 + 900, "the next boundary after waking")
        _ = h.clock.advance(to: Double(b2) + 4)
        h.handle(b2)
        XCTAssertEqual(h.spoken.count, 2, "4 s late is within the 5 s late-limit")
    }

    func testMuteAndQuietWindows() throws {
        var config = Config()
        config.quiet = [
            QuietWindow(days: .daily, from: 22 * 60, to: 7 * 60, mode: .silent),
            QuietWindow(days: .daily, from: 7 * 60, to: 8 * 60, mode: .chimeOnly),
            QuietWindow(days: .daily, from: 12 * 60, to: 13 * 60, mode: .lowerVolume(percent: 30)),
        ]
        let h = Harness(config: config, zone: "UTC", start: try InstantParser.parse("2026-07-01T21:50:00Z", in: Zone(identifier: "UTC")!))
        h.step()  // 22:00 silent
        XCTAssertEqual(h.skipped.last?.1, .quiet)
        _ = h.clock.advance(to: try InstantParser.parse("2026-07-02T06:59:00Z", in: h.zone))
        h.step()  // 07:00 chime only
        h.step()  // 07:15 quiet (no chime at a quarter)
        XCTAssertEqual(h.spoken.map(\.text), ["seven AM [chime only]"])
        XCTAssertEqual(h.skipped.last?.1, .quiet)
        let decision = h.scheduler.decide(boundary: Int(try InstantParser.parse("2026-07-02T12:30:00Z", in: h.zone)), now: try InstantParser.parse("2026-07-02T12:29:59Z", in: h.zone), in: h.zone)
        guard case .speak(_, _, _, let gain) = decision else { return XCTFail("\(decision)") }
        XCTAssertEqual(gain, 0.3, accuracy: 1e-6)

        _ = h.clock.advance(to: try InstantParser.parse("2026-07-02T09:50:00Z", in: h.zone))
        h.scheduler.state.mute = .mutedUntil(Int(h.clock.now) + 1800)  // until 10:20
        h.step()
        h.step()
        XCTAssertEqual(h.skipped.suffix(2).map(\.0), [1_782_986_400, 1_782_987_300], "10:00 and 10:15")
        XCTAssertEqual(h.skipped.suffix(2).map(\.1), [.muted, .muted])
        h.step()
        XCTAssertEqual(h.spoken.last?.text, "ten thirty AM", "mute ends on time")
    }

    func testTriggersEarlyLateAndDuplicated() {
        let h = Harness(zone: "UTC", start: 1_800_000_000 - 15)
        // A trigger 15 s early: the boundary is the one 15 s away.
        let b = h.scheduler.nextBoundary(after: h.clock.now, in: h.zone)
        XCTAssertEqual(Double(b) - h.clock.now, 15)
        _ = h.clock.advance(to: Double(b) - 1)
        h.handle(b)
        // A duplicate trigger for the same boundary: already spoken, skipped.
        h.handle(b)
        XCTAssertEqual(h.spoken.count, 1)
        XCTAssertEqual(h.skipped.map(\.1), [.alreadySpoken])
        // A late trigger (3 s after the next boundary) still speaks it, within the late limit…
        let b2 = b + 900
        _ = h.clock.advance(to: Double(b2) + 3)
        h.handle(b2)
        XCTAssertEqual(h.spoken.count, 2)
        // …but 30 s late is refused as stale.
        let b3 = b2 + 900
        _ = h.clock.advance(to: Double(b3) + 30)
        h.handle(b3)
        XCTAssertEqual(h.skipped.last?.1, .stale)
    }

    func testALastSpokenFarInTheFutureIsNotTrusted() {
        let state = PersistentState(mute: .unmuted, lastSpokenBoundary: 1_900_000_000)
        let h = Harness(state: state, zone: "UTC", start: 1_800_000_000 - 30)
        h.step()
        XCTAssertEqual(h.spoken.count, 1, "a clock once set years ahead must not silence the clock")
    }
}
