import Foundation
import XCTest

@testable import TalkingClockCore
import TestSupport

final class MuteTests: XCTestCase {
    private func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> Int {
        CivilTime.days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + s
    }

    func testIsMuted() {
        let t = 1_767_225_600
        let cases: [(state: MuteState, instant: Int, muted: Bool)] = [
            (.unmuted, t, false),
            (.muted, t, true),
            (.muted, .max, true),
            (.mutedUntil(t), t - 1, true),
            (.mutedUntil(t), t, false),  // the end instant itself speaks again
            (.mutedUntil(t), t + 1, false),
        ]
        for c in cases {
            XCTAssertEqual(c.state.isMuted(at: c.instant), c.muted, "\(c.state) at \(c.instant)")
        }
        XCTAssertEqual(MuteState.mutedUntil(t).resolved(at: t - 1), .mutedUntil(t))
        XCTAssertEqual(MuteState.mutedUntil(t).resolved(at: t), .unmuted)
        XCTAssertEqual(MuteState.muted.resolved(at: t), .muted)
    }

    func testJSONFormIsStable() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let cases: [(MuteState, String)] = [
            (.unmuted, #"{"state":"unmuted"}"#),
            (.muted, #"{"state":"muted"}"#),
            (.mutedUntil(1_767_250_800), #"{"state":"muted-until","until":1767250800}"#),
        ]
        for (state, json) in cases {
            XCTAssertEqual(String(decoding: try encoder.encode(state), as: UTF8.self), json)
            XCTAssertEqual(try JSONDecoder().decode(MuteState.self, from: Data(json.utf8)), state)
        }
        for bad in [#"{"state":"snoozed"}"#, #"{"state":"muted-until"}"#, #"{"until":5}"#, #""muted""#] {
            XCTAssertThrowsError(try JSONDecoder().decode(MuteState.self, from: Data(bad.utf8)), bad)
        }
    }

    func testPersistentStateJSON() throws {
        let state = PersistentState(mute: .mutedUntil(100), lastSpokenBoundary: 1_767_225_600)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(state), as: UTF8.self)
        XCTAssertEqual(json, #"{"last-spoken-boundary":1767225600,"mute":{"state":"muted-until","until":100}}"#)
        XCTAssertEqual(try JSONDecoder().decode(PersistentState.self, from: Data(json.utf8)), state)
        // Older or newer files: missing keys take defaults, unknown keys are ignored.
        XCTAssertEqual(try JSONDecoder().decode(PersistentState.self, from: Data("{}".utf8)), PersistentState())
        XCTAssertEqual(
            try JSONDecoder().decode(PersistentState.self, from: Data(#"{"mute":{"state":"muted"},"future":1}"#.utf8)),
            PersistentState(mute: .muted))
    }

    func testParseDuration() throws {
        let valid: [(String, Int)] = [
            ("90s", 90), ("30m", 1800), ("2h", 7200), ("1h30m", 5400), ("1h 30m", 5400), ("90", 90), ("  45  ", 45),
            ("1H30M", 5400), ("1d", 86_400), ("1d2h3m4s", 93_784), ("0h5m", 300), ("30 m", 1800),
            ("366d", 366 * 86_400),
        ]
        for (text, seconds) in valid {
            XCTAssertEqual(try Mute.parseDuration(text), seconds, text)
        }
        let format =
            "use a number with a unit (s, m, h or d), such as 90s, 30m, 2h or 1h30m; a plain number means seconds."
        let invalid: [(String, String)] = [
            ("", "The duration is missing: give one such as 90s, 30m, 2h or 1h30m."),
            ("   ", "The duration is missing: give one such as 90s, 30m, 2h or 1h30m."),
            ("0", "A duration of zero would not mute anything: give one such as 30m, or use unmute."),
            ("0m0s", "A duration of zero would not mute anything: give one such as 30m, or use unmute."),
            ("5x", "\"5x\" is not a duration: \(format)"),
            ("m", "\"m\" is not a duration: \(format)"),
            ("1.5h", "\"1.5h\" is not a duration: \(format)"),
            ("-5m", "\"-5m\" is not a duration: \(format)"),
            ("1h30", "\"1h30\" is not a duration: \(format)"),
            ("٣m", "\"٣m\" is not a duration: \(format)"),
            ("1m1h", "\"1m1h\" is not a duration: give each unit once, from largest to smallest, as in 1h30m."),
            ("1h1h", "\"1h1h\" is not a duration: give each unit once, from largest to smallest, as in 1h30m."),
            ("367d", "\"367d\" is longer than 366 days: to mute with no end, use mute alone."),
            (
                "99999999999999999999",
                "\"99999999999999999999\" is longer than 366 days: to mute with no end, use mute alone."
            ),
        ]
        for (text, message) in invalid {
            XCTAssertThrowsError(try Mute.parseDuration(text), text) { error in
                XCTAssertEqual("\(error)", message, text)
            }
        }
    }

    func testNextInstantOfLocalTime() {
        let utcZone = Zone(identifier: "UTC")!
        let newYork = Zone(identifier: "America/New_York")!
        let kathmandu = Zone(identifier: "Asia/Kathmandu")!
        let lordHowe = Zone(identifier: "Australia/Lord_Howe")!
        let cases: [(why: String, zone: Zone, now: Int, hour: Int, minute: Int, expected: Int)] = [
            ("later today", utcZone, utc(2026, 1, 10, 6, 0), 7, 0, utc(2026, 1, 10, 7, 0)),
            (
                "exactly now means tomorrow (strictly after)", utcZone, utc(2026, 1, 10, 7, 0), 7, 0,
                utc(2026, 1, 11, 7, 0)
            ),
            ("one second before", utcZone, utc(2026, 1, 10, 6, 59, 59), 7, 0, utc(2026, 1, 10, 7, 0)),
            ("midnight is tomorrow", utcZone, utc(2026, 1, 10, 23, 0), 0, 0, utc(2026, 1, 11, 0, 0)),
            ("across the new year", utcZone, utc(2026, 12, 31, 23, 30), 0, 15, utc(2027, 1, 1, 0, 15)),
            ("across 29 February", utcZone, utc(2028, 2, 28, 23, 0), 8, 0, utc(2028, 2, 29, 8, 0)),
            ("a 45-minute offset", kathmandu, utc(2026, 1, 10, 0, 0), 6, 0, utc(2026, 1, 10, 0, 15)),
            (
                "02:30 is skipped on spring-forward night: the end of the gap, 03:00 EDT",
                newYork, utc(2026, 3, 8, 4, 0), 2, 30, utc(2026, 3, 8, 7, 0)
            ),
            (
                "after the gap, the next 02:30 is the day after", newYork, utc(2026, 3, 8, 7, 30), 2, 30,
                utc(2026, 3, 9, 6, 30)
            ),
            (
                "01:30 repeats on fall-back night: the earlier one (EDT)",
                newYork, utc(2026, 11, 1, 3, 0), 1, 30, utc(2026, 11, 1, 5, 30)
            ),
            (
                "at 01:40 EDT the next 01:30 is the repeated one (EST)",
                newYork, utc(2026, 11, 1, 5, 40), 1, 30, utc(2026, 11, 1, 6, 30)
            ),
            (
                "at 01:40 EST both have passed: tomorrow", newYork, utc(2026, 11, 1, 6, 40), 1, 30,
                utc(2026, 11, 2, 6, 30)
            ),
            (
                "a 30-minute spring-forward gap (02:00→02:30) ends at 02:30 +11:00",
                lordHowe, utc(2026, 10, 3, 14, 30), 2, 15, utc(2026, 10, 3, 15, 30)
            ),
        ]
        for c in cases {
            let got = Mute.nextInstant(hour: c.hour, minute: c.minute, after: c.now, in: c.zone)
            XCTAssertEqual(
                got, c.expected,
                "\(c.why): got \(CivilTime.utcString(got)), expected \(CivilTime.utcString(c.expected))")
            XCTAssertGreaterThan(got, c.now, c.why)
        }
    }

    func testNextInstantIsAlwaysTheFirstMatchingReading() {
        // Brute force as an oracle: step minute by minute and find the first local reading of HH:MM
        // (or, across a gap, the first reading past it).
        let zone = Zone(identifier: "America/New_York")!
        var now = utc(2026, 3, 7, 12, 7, 13)
        for _ in 0..<40 {
            for (hour, minute) in [(2, 30), (1, 30), (0, 0), (23, 45)] {
                let got = Mute.nextInstant(hour: hour, minute: minute, after: now, in: zone)
                let target = hour * 60 + minute
                var u = now + 1
                var previous = CivilTime.local(now, in: zone)
                while true {
                    let l = CivilTime.local(u, in: zone)
                    let m = l.minuteOfDay
                    let crossedGap = l.day == previous.day && previous.minuteOfDay < target && m > target
                    if (m == target && l.second == 0) || crossedGap { break }
                    previous = l
                    u += l.second == 0 ? 60 : 60 - l.second  // whole minutes from here on
                }
                XCTAssertEqual(got, u, "\(hour):\(minute) after \(CivilTime.utcString(now))")
            }
            now += 5 * 3600 + 17 * 60  // wander across the spring-forward night and beyond
        }
    }

    func testInstantUntilText() throws {
        let zone = Zone(identifier: "UTC")!
        XCTAssertEqual(
            try Mute.instant(until: " 07:30 ", after: utc(2026, 1, 10, 6, 0), in: zone), utc(2026, 1, 10, 7, 30))
        XCTAssertEqual(
            try Mute.instant(until: "7:30", after: utc(2026, 1, 10, 6, 0), in: zone), utc(2026, 1, 10, 7, 30))
        XCTAssertThrowsError(try Mute.instant(until: "7pm", after: 0, in: zone)) { error in
            XCTAssertEqual("\(error)", "\"7pm\" is not a time of day: use 24-hour HH:MM, such as 07:30 or 15:45.")
        }
        XCTAssertThrowsError(try Mute.instant(until: "24:00", after: 0, in: zone))
    }
}
