import XCTest

@testable import TalkingClockCore
import TestSupport

/// `AnnouncementScheduler.boundaryToArm`: what the daemon waits for after a decision, a resume
/// or a clock step.
final class SchedulerTests: XCTestCase {
    let utc = Zone(identifier: "UTC")!
    let b = 1_800_000_000  // 2027-01-15T08:00:00Z, a boundary

    func scheduler(lastSpoken: Int? = nil) -> AnnouncementScheduler {
        AnnouncementScheduler(config: Config(), state: PersistentState(lastSpokenBoundary: lastSpoken))
    }

    func testBoundaryToArm() {
        let d = Double(b)
        let cases: [(why: String, handled: Int?, now: Double, lastSpoken: Int?, expected: Int)] = [
            ("decided 1 s ahead: the next one", b, d - 1, b, b + 900),
            (
                "resumed 3 s after a later boundary, having skipped an old one as stale: that boundary, late", b - 3600,
                d + 3, nil, b
            ),
            ("resumed 6 s after it: past the 5 s late limit, so the next one", b - 3600, d + 6, nil, b + 900),
            ("stepped to 4.9 s after a boundary (nothing handled)", nil, d + 4.9, nil, b),
            ("stepped to 5.1 s after it", nil, d + 5.1, nil, b + 900),
            ("stepped back to 2 s after a boundary already spoken: not again", nil, d + 2, b + 1800, b + 2700),
            (
                "stepped back to 2 s after a boundary not spoken (it was muted then): spoken late", nil, d + 2, b - 900,
                b
            ),
            ("a step landing inside the lead second: that boundary", nil, d - 0.5, nil, b),
        ]
        for c in cases {
            XCTAssertEqual(
                scheduler(lastSpoken: c.lastSpoken).boundaryToArm(after: c.handled, now: c.now, in: utc), c.expected,
                c.why)
        }
    }

    /// A boundary just decided is not decided again when something makes the daemon re-arm
    /// within the late limit: a `skip` stays a skip.
    func testABoundaryJustDecidedIsNotDecidedAgain() {
        var s = scheduler()
        s.skipNext = true
        let decision = s.decide(boundary: b, now: Double(b) - 1, in: utc)
        XCTAssertEqual(decision, .skip(boundary: b, local: CivilTime.local(b, in: utc), reason: .skipRequested))
        s.recordSkipped(decision)
        // A clock step of +2 s just after it: without the record, b (2 s ago) would be armed again.
        XCTAssertEqual(s.boundaryToArm(after: nil, now: Double(b) + 2, in: utc), b + 900)
        XCTAssertEqual(
            s.boundaryToArm(after: nil, now: Double(b) - 0.5, in: utc), b + 900, "a step back into its lead second")
        // An hour later the record no longer matters (a backward step then replays on time).
        XCTAssertEqual(s.boundaryToArm(after: nil, now: Double(b) + 3602, in: utc), b + 3600)
    }

    func testAStaleSkipIsNoVerdict() {
        var s = scheduler()
        let decision = s.decide(boundary: b, now: Double(b) + 1800, in: utc)  // woke half an hour late
        XCTAssertEqual(decision, .skip(boundary: b, local: CivilTime.local(b, in: utc), reason: .stale))
        s.recordSkipped(decision)
        // The clock is stepped back to 3 s after it: now it is only 3 s late.
        XCTAssertEqual(s.boundaryToArm(after: nil, now: Double(b) + 3, in: utc), b)
    }

    /// The case through the decision itself: 11:00-13:00 lower-volume 30 with 12:00-12:30
    /// chime-only rang the 12:00 bell at 100 %.
    func testOverlappingQuietWindowsNeverRaiseTheVolume() {
        var config = Config()
        config.quiet = [
            QuietWindow(from: 11 * 60, to: 13 * 60, mode: .lowerVolume(percent: 30)),
            QuietWindow(from: 12 * 60, to: 12 * 60 + 30, mode: .chimeOnly),
        ]
        let s = AnnouncementScheduler(config: config, state: PersistentState())
        let noon = b + 4 * 3600  // 12:00Z
        let cases: [(why: String, boundary: Int, voice: Bool, gain: Float?)] = [
            ("11:00, lower-volume alone: spoken at 30 %", b + 3 * 3600, true, 0.3),
            ("12:00, both windows: the bell alone, still at 30 %", noon, false, 0.3),
            ("12:15, both windows, no bell at a quarter: nothing plays", noon + 900, false, nil),
            ("12:30, the chime-only window has ended: spoken at 30 %", noon + 1800, true, 0.3),
            ("13:00, both over: spoken at the configured volume", noon + 3600, true, 1),
        ]
        for c in cases {
            let decision = s.decide(boundary: c.boundary, now: Double(c.boundary) - 1, in: utc)
            switch decision {
            case .speak(_, _, let style, let gain):
                XCTAssertEqual(style.voice, c.voice, c.why)
                XCTAssertEqual(gain, c.gain ?? -1, accuracy: 1e-6, c.why)
            case .skip(_, _, let reason):
                XCTAssertNil(c.gain, "\(c.why): skipped (\(reason))")
                XCTAssertEqual(reason, .quiet, c.why)
            }
        }
    }

    /// The configuration's part of the decision, which `schedule` lists: one row per rule.
    func testConfiguredDecision() {
        func config(_ edit: (inout Config) -> Void) -> Config {
            var c = Config()
            edit(&c)
            return c
        }
        let quarter = b + 900  // 08:15Z
        let quiet = { (mode: QuietMode) in [QuietWindow(from: 8 * 60, to: 9 * 60, mode: mode)] }
        let cases: [(why: String, config: Config, mute: MuteState, boundary: Int, expected: String)] = [
            ("the defaults: spoken at full volume", Config(), .unmuted, b, "speak voice 100"),
            ("muted: nothing, whatever else", Config(), .mutedUntil(b + 1), b, "skip muted"),
            ("a mute that ended before it", Config(), .mutedUntil(b), b, "speak voice 100"),
            ("volume 70", config { $0.volume = 70 }, .unmuted, b, "speak voice 70"),
            ("silent hours", config { $0.quiet = quiet(.silent) }, .unmuted, b, "skip quiet"),
            (
                "chime-only hours on the hour: the bell alone", config { $0.quiet = quiet(.chimeOnly) }, .unmuted, b,
                "speak bell 100"
            ),
            (
                "chime-only hours at a quarter with the hour chime: nothing rings",
                config { $0.quiet = quiet(.chimeOnly) }, .unmuted, quarter, "skip quiet"
            ),
            (
                "lower-volume 30 below volume 70",
                config {
                    $0.volume = 70
                    $0.quiet = quiet(.lowerVolume(percent: 30))
                }, .unmuted, b, "speak voice 30"
            ),
            (
                "lower-volume 90 never raises volume 70",
                config {
                    $0.volume = 70
                    $0.quiet = quiet(.lowerVolume(percent: 90))
                }, .unmuted, b, "speak voice 70"
            ),
            ("voice = false on the hour: the bell", config { $0.voice = false }, .unmuted, b, "speak bell 100"),
            (
                "voice = false at a quarter, no bell then", config { $0.voice = false }, .unmuted, quarter,
                "skip nothing-to-play"
            ),
            (
                "voice-at [0] at a quarter with Westminster: the quarter bells",
                config {
                    $0.voiceAt = [0]
                    $0.chime = .westminster
                }, .unmuted, quarter, "speak bell 100"
            ),
            (
                "voice-at [0] at a quarter with the hour chime: nothing to play", config { $0.voiceAt = [0] }, .unmuted,
                quarter, "skip nothing-to-play"
            ),
        ]
        for c in cases {
            let got: String
            switch AnnouncementScheduler.configuredDecision(
                boundary: c.boundary, in: utc, config: c.config, mute: c.mute)
            {
            case .skip(_, _, let reason): got = "skip \(reason.rawValue)"
            case .speak(_, let local, let style, let gain):
                got = "speak \(style.speaks(atMinute: local.minute) ? "voice" : "bell") \(Int((gain * 100).rounded()))"
            }
            XCTAssertEqual(got, c.expected, c.why)
            // With no runtime reason in the way, the daemon decides exactly this.
            let daemon = AnnouncementScheduler(config: c.config, state: PersistentState(mute: c.mute))
            XCTAssertEqual(
                daemon.decide(boundary: c.boundary, now: Double(c.boundary) - 1, in: utc),
                AnnouncementScheduler.configuredDecision(boundary: c.boundary, in: utc, config: c.config, mute: c.mute),
                c.why)
        }
    }

    /// The runtime reasons keep their order around the configured decision, and the one "how
    /// quiet" fold orders the rest: the mute, a skip, quiet hours, then courtesy.
    func testRuntimeReasonsComeInTheirOrder() {
        var s = AnnouncementScheduler(
            config: Config(), state: PersistentState(mute: .mutedUntil(b + 3600), lastSpokenBoundary: b))
        s.skipNext = true
        let call = CourtesyReason.call(.init(application: "Zoom", role: "phone"))
        XCTAssertEqual(
            s.decide(boundary: b, now: Double(b) - 1, in: utc, courtesy: .skip(call)).skipReason, .alreadySpoken,
            "spoken before beats everything")
        XCTAssertEqual(
            s.decide(boundary: b + 900, now: Double(b + 900) + 60, in: utc, courtesy: .skip(call)).skipReason, .stale,
            "then stale")
        XCTAssertEqual(
            s.decide(boundary: b + 900, now: Double(b + 900) - 1, in: utc, courtesy: .skip(call)).skipReason, .muted,
            "then muted")
        s.state.mute = .unmuted
        XCTAssertEqual(
            s.decide(boundary: b + 900, now: Double(b + 900) - 1, in: utc, courtesy: .skip(call)).skipReason, .skipRequested,
            "then skip")
        s.skipNext = false
        s.config.quiet = [QuietWindow(from: 0, to: 1440, mode: .silent)]
        XCTAssertEqual(
            s.decide(boundary: b + 900, now: Double(b + 900) - 1, in: utc, courtesy: .skip(call)).skipReason, .quiet,
            "then the configuration")
        s.config.quiet = []
        XCTAssertEqual(
            s.decide(boundary: b + 900, now: Double(b + 900) - 1, in: utc, courtesy: .skip(call)).skipReason, .courtesy,
            "then courtesy")
        // Chime-only (quiet hours or a call) at a minute whose chime does not ring is silent, for
        // that rule's reason: the fold says it once for both.
        s.config.chime = .hour
        XCTAssertEqual(
            s.decide(boundary: b + 900, now: Double(b + 900) - 1, in: utc, courtesy: .chimeOnly(call, .leave)).skipReason,
            .courtesy, "chime-only for a call, and no bell at a quarter past")
        s.config.quiet = [QuietWindow(from: 0, to: 1440, mode: .chimeOnly)]
        XCTAssertEqual(
            s.decide(boundary: b + 900, now: Double(b + 900) - 1, in: utc).skipReason, .quiet,
            "chime-only hours, and no bell at a quarter past")
        guard case .speak(_, _, let style, _) = s.decide(boundary: b + 3600, now: Double(b + 3600) - 1, in: utc) else {
            return XCTFail("the hour's bell rings in chime-only hours")
        }
        XCTAssertFalse(style.voice, "the bell without the voice")
    }

    /// The fold itself: silent wins; the lowest volume wins; chime-only silences the voice.
    func testHushFoldCombinesEveryRuleOnce() {
        let style = AnnouncementStyle(chime: .hour, voice: true)
        XCTAssertEqual(Hush.fold([], style: style, gain: 0.8, minute: 0), .speak(style, gain: 0.8))
        XCTAssertEqual(
            Hush.fold([Hush(.volume(30), .quiet), Hush(.volume(50), .courtesy)], style: style, gain: 0.8, minute: 15),
            .speak(style, gain: 0.3))
        XCTAssertEqual(
            Hush.fold([Hush(.chimeOnly, .courtesy), Hush(.silent, .quiet)], style: style, gain: 1, minute: 0), .silent(.quiet))
        var bellOnly = style
        bellOnly.voice = false
        XCTAssertEqual(Hush.fold([Hush(.chimeOnly, .courtesy)], style: style, gain: 1, minute: 0), .speak(bellOnly, gain: 1))
        XCTAssertEqual(Hush.fold([Hush(.chimeOnly, .courtesy)], style: style, gain: 1, minute: 15), .silent(.courtesy))
    }
}

extension Decision {
    fileprivate var skipReason: SkipReason? {
        if case .skip(_, _, let reason) = self { return reason }
        return nil
    }
}
