import ClockEngine
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

    /// The real `EngineDriver` and `ClockEngine` on the embedded ports: a manual clock, a recording
    /// device played period by period, state writes that succeed at once. `step` lets the armed
    /// wake-up come (optionally late) and plays the announcement out; `trigger` is the control
    /// request of an external driver.
    final class Harness: EngineSurface {
        let ports: EmbeddedPorts
        private(set) var driver: EngineDriver!
        var engine: ClockEngine { driver.engine }
        let zone: Zone
        let clock: ManualClock
        var spoken: [Spoken] = []
        var skipped: [(Int, SkipReason)] = []
        var replies: [ControlReply] = []
        /// What the courtesy look finds at every boundary (nothing: a headless machine).
        var findings: CourtesyFindings {
            get { ports.findings }
            set { ports.findings = newValue }
        }

        var scheduler: AnnouncementScheduler { engine.scheduler }

        init(config: Config = Config(), state: PersistentState = PersistentState(), zone: String, start: Double, driver: Driver = .timer) {
            self.zone = Zone(identifier: zone)!
            clock = ManualClock(start)
            let settings = EngineSettings(config: config, pack: .fixture())
            ports = EmbeddedPorts(clock: clock, zone: self.zone, settings: settings)
            let engine = ClockEngine(
                options: ClockEngine.Options(driver: driver), settings: settings, state: state, stateWarning: nil, zone: self.zone)
            self.driver = ports.start(engine, surfaces: [self])
            self.driver.send(.start)
        }

        func outcome(_ o: Outcome) {
            guard let boundary = o.boundary else { return }
            switch o.kind {
            case .spoke:
                let chimeOnly = ports.announcements.last?.request.planned.plan.voiceClips.isEmpty == true
                spoken.append(Spoken(boundary: boundary, text: o.text + (chimeOnly ? " [chime only]" : "")))
                // Anchored on the boundary; a late wake-up (within the late limit) starts at once.
                if let onset = o.onsetErrorMs, let woke = lastWake {
                    XCTAssertEqual(onset, max(0, woke - Double(boundary)) * 1000, accuracy: 1.1, "onset of \(o.at)")
                }
            case .skipped:
                switch o.reason {
                case .skipped(let reason)?: skipped.append((boundary, reason))
                case .courtesy?, .courtesyNoChime?: skipped.append((boundary, .courtesy))
                default: break
                }
            default: break
            }
        }

        fileprivate var lastWake: Double?

        /// The armed wake-up comes (`wakeDelay` seconds late) and the announcement plays out;
        /// returns the boundary it was for.
        @discardableResult
        func step(wakeDelay: Double = 0) -> Int {
            guard let wake = ports.armed[.boundary], let boundary = engine.armed else {
                XCTFail("nothing armed")
                return 0
            }
            if wakeDelay > 0 {
                clock.set(wake + wakeDelay)  // asleep: nothing ran meanwhile
                lastWake = clock.now
                ports.fire(.boundary)
            } else {
                lastWake = wake
                ports.advance(to: wake)
            }
            // Played out: the boundary, then the announcement (a few words of 50 ms).
            ports.advance(to: max(clock.now, Double(boundary)) + 5)
            return boundary
        }

        /// The wall clock is set to `instant` (an NTP step or `date`).
        func stepClock(to instant: Double) {
            clock.set(instant)
            ports.fire(.boundary, clockWasSet: true)
        }

        /// A control request; its reply (now or later) is appended to `replies`.
        func control(_ request: ControlRequest) {
            ports.control(request) { [unowned self] in self.replies.append($0) }
        }

        /// A `trigger` (cron, a systemd timer); the engine decides which boundary it is for.
        func trigger() {
            lastWake = clock.now
            control(.trigger)
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
        XCTAssertEqual(h.ports.armed.compactMapValues { $0 }.keys.sorted { "\($0)" < "\($1)" }, [.boundary], "nothing waiting but the next wake-up")
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
        h.stepClock(to: h.clock.now - 2400)
        let next = h.step()
        XCTAssertEqual(next, h.spoken[1].boundary + 900)
        XCTAssertEqual(h.spoken.count, 3)
        // Stepped forward 2 hours in the middle of a wait: the boundary waited for is not spoken,
        // and the one armed next is ahead of the new time.
        let waited = h.engine.armed!
        h.stepClock(to: Double(waited) + 7300)
        XCTAssertEqual(h.spoken.count, 3)
        XCTAssertGreaterThan(Double(h.engine.armed!), h.clock.now)
        h.step()
        XCTAssertEqual(h.spoken.count, 4)
        XCTAssertEqual(h.spoken.last?.boundary, waited + 7200 + 900)
    }

    func testSuspendGapSkipsStaleBoundariesThenResumes() {
        let h = Harness(zone: "UTC", start: 1_800_000_000 - 30)
        h.step()
        // Suspended through a boundary: woke 6 s after it (late-limit 5 s): stale, skipped.
        let b1 = h.step(wakeDelay: 7)
        XCTAssertEqual(h.skipped.map(\.1), [.stale])
        XCTAssertEqual(h.engine.armed, b1 + 900, "the next boundary after waking")
        // Woke 4 s after the next one: within the late limit, spoken late.
        h.step(wakeDelay: 5)
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
        h.stepClock(to: try InstantParser.parse("2026-07-02T06:59:00Z", in: h.zone))
        h.step()  // 07:00 chime only
        h.step()  // 07:15 quiet (no chime at a quarter)
        XCTAssertEqual(h.spoken.map(\.text), ["seven AM [chime only]"])
        XCTAssertEqual(h.skipped.last?.1, .quiet)
        let decision = h.scheduler.decide(boundary: Int(try InstantParser.parse("2026-07-02T12:30:00Z", in: h.zone)), now: try InstantParser.parse("2026-07-02T12:29:59Z", in: h.zone), in: h.zone)
        guard case .speak(_, _, _, let gain) = decision else { return XCTFail("\(decision)") }
        XCTAssertEqual(gain, 0.3, accuracy: 1e-6)

        h.stepClock(to: try InstantParser.parse("2026-07-02T09:50:00Z", in: h.zone))
        h.control(.muteFor(seconds: 1800))  // until 10:20
        XCTAssertEqual(h.replies.last, .ok("muted until 2026-07-02T10:20:00+00:00"))
        h.step()
        h.step()
        XCTAssertEqual(h.skipped.suffix(2).map(\.0), [1_782_986_400, 1_782_987_300], "10:00 and 10:15")
        XCTAssertEqual(h.skipped.suffix(2).map(\.1), [.muted, .muted])
        h.step()
        XCTAssertEqual(h.spoken.last?.text, "ten thirty AM", "mute ends on time")
    }

    func testTriggersEarlyLateAndDuplicated() {
        let h = Harness(zone: "UTC", start: 1_800_000_000 - 15, driver: .external)
        XCTAssertNil(h.engine.armed, "the external driver waits for a trigger")
        // A trigger 15 s early: the boundary is the one 15 s away; it is spoken on it.
        let b = h.scheduler.nextBoundary(after: h.clock.now, in: h.zone)
        XCTAssertEqual(Double(b) - h.clock.now, 15)
        h.trigger()
        XCTAssertEqual(h.engine.armed, b)
        XCTAssertEqual(h.ports.armed[.boundary], h.engine.wakeTime(for: b))
        h.step()
        XCTAssertEqual(h.spoken.map(\.boundary), [b])
        // A duplicate trigger for the same boundary: already spoken, skipped.
        h.trigger()
        XCTAssertEqual(h.spoken.count, 1)
        XCTAssertEqual(h.skipped.map(\.1), [.alreadySpoken])
        // A late trigger (3 s after the next boundary) still speaks it, within the late limit…
        let b2 = b + 900
        h.ports.advance(to: Double(b2) + 3)
        h.trigger()
        h.ports.advance(to: Double(b2) + 10)
        XCTAssertEqual(h.spoken.map(\.boundary), [b, b2])
        // …but 30 s late it is not spoken: the next boundary is too far for the trigger.
        let b3 = b2 + 900
        h.ports.advance(to: Double(b3) + 30)
        h.trigger()
        XCTAssertEqual(h.spoken.count, 2)
        guard case .error(let text, .stale) = h.replies.last else { return XCTFail("\(String(describing: h.replies.last))") }
        XCTAssertTrue(text.contains("more than a trigger waits (60 s)"), text)
    }

    func testALastSpokenFarInTheFutureIsNotTrusted() {
        let state = PersistentState(mute: .unmuted, lastSpokenBoundary: 1_900_000_000)
        let h = Harness(state: state, zone: "UTC", start: 1_800_000_000 - 30)
        h.step()
        XCTAssertEqual(h.spoken.count, 1, "a clock once set years ahead must not silence the clock")
    }
}
