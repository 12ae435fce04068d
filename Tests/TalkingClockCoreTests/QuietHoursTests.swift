import XCTest

@testable import TalkingClockCore
import TestSupport

final class QuietHoursTests: XCTestCase {
    /// Only the weekday and the time of day matter to quiet hours; the date is left arbitrary.
    private func at(_ weekday: Int, _ hour: Int, _ minute: Int, second: Int = 0) -> LocalDateTime {
        LocalDateTime(
            year: 2026, month: 1, day: 4 + weekday, hour: hour, minute: minute, second: second,
            weekday: weekday, utcOffset: 0)
    }

    private let mon = 1, tue = 2, wed = 3, fri = 5, sat = 6, sun = 7

    func testSingleWindowCoverage() {
        let nights = QuietWindow(days: .daily, from: 22 * 60, to: 7 * 60, mode: .silent)
        let mondayNight = QuietWindow(days: .monday, from: 22 * 60, to: 7 * 60, mode: .silent)
        let sundayNight = QuietWindow(days: .sunday, from: 23 * 60, to: 1 * 60, mode: .silent)
        let workHours = QuietWindow(days: .weekdays, from: 9 * 60, to: 17 * 60, mode: .chimeOnly)
        let allDay = QuietWindow(days: .saturday, from: 0, to: 1440, mode: .silent)
        let cases: [(why: String, window: QuietWindow, time: LocalDateTime, covered: Bool)] = [
            ("from is inclusive", nights, at(wed, 22, 0), true),
            ("just before from", nights, at(wed, 21, 59), false),
            ("the last second before from", nights, at(wed, 21, 59, second: 59), false),
            ("through midnight", nights, at(wed, 0, 0), true),
            ("to is exclusive", nights, at(wed, 7, 0), false),
            ("the last minute before to", nights, at(wed, 6, 59, second: 59), true),
            ("midday is outside a night window", nights, at(wed, 12, 0), false),
            ("Monday's window starts Monday evening", mondayNight, at(mon, 22, 0), true),
            ("…and covers Tuesday morning: it belongs to its start day", mondayNight, at(tue, 0, 0), true),
            ("…until Tuesday 07:00", mondayNight, at(tue, 6, 45), true),
            ("…but not Monday morning (that was Sunday night's)", mondayNight, at(mon, 6, 45), false),
            ("…nor Tuesday evening", mondayNight, at(tue, 22, 0), false),
            ("Sunday night wraps into Monday morning", sundayNight, at(mon, 0, 30), true),
            ("…not Sunday morning", sundayNight, at(sun, 0, 30), false),
            ("…Sunday 23:00 itself", sundayNight, at(sun, 23, 0), true),
            ("…ends Monday 01:00", sundayNight, at(mon, 1, 0), false),
            ("weekday window on a Friday", workHours, at(fri, 16, 45), true),
            ("weekday window at its end", workHours, at(fri, 17, 0), false),
            ("weekday window on a Saturday", workHours, at(sat, 12, 0), false),
            ("whole day from 00:00 to 24:00: first minute", allDay, at(sat, 0, 0), true),
            ("whole day: last minute", allDay, at(sat, 23, 59), true),
            ("whole day: not the next day", allDay, at(sun, 0, 0), false),
            ("whole day: not the day before", allDay, at(fri, 23, 59), false),
        ]
        for c in cases {
            XCTAssertEqual(c.window.covers(c.time), c.covered, c.why)
            XCTAssertEqual(
                QuietHours.rule(in: [c.window], at: c.time), c.covered ? QuietRule(c.window.mode) : nil, c.why)
        }
    }

    func testEmptyWindowCoversNothing() {
        let empty = QuietWindow(days: .daily, from: 600, to: 600, mode: .silent)
        for hour in [0, 9, 10, 11, 23] {
            XCTAssertFalse(
                empty.covers(at(wed, hour, 0)), "from == to is rejected by the config and covers nothing here")
        }
    }

    /// Every window covering an instant counts, each aspect taking the quieter of them: adding a
    /// window can never make the clock louder.
    func testOverlappingWindowsCombineByTheQuietestRuleForEachAspect() {
        let silentNight = QuietWindow(days: .daily, from: 23 * 60, to: 6 * 60, mode: .silent)
        let chimeEvening = QuietWindow(days: .daily, from: 20 * 60, to: 24 * 60, mode: .chimeOnly)
        let soft = QuietWindow(days: .daily, from: 18 * 60, to: 23 * 60 + 30, mode: .lowerVolume(percent: 40))
        let softer = QuietWindow(days: .weekends, from: 21 * 60, to: 22 * 60, mode: .lowerVolume(percent: 20))
        // The case: 11:00-13:00 lower-volume 30 with 12:00-12:30 chime-only inside it.
        let lunch = QuietWindow(days: .daily, from: 11 * 60, to: 13 * 60, mode: .lowerVolume(percent: 30))
        let lunchBell = QuietWindow(days: .daily, from: 12 * 60, to: 12 * 60 + 30, mode: .chimeOnly)
        let all = [soft, softer, chimeEvening, silentNight, lunch, lunchBell]
        let cases: [(why: String, time: LocalDateTime, expected: QuietRule?)] = [
            ("nothing applies in the afternoon", at(wed, 15, 0), nil),
            ("only the lower volume", at(wed, 19, 0), QuietRule(volume: 40)),
            (
                "chime-only inside lower-volume: the bell rings, at the lower volume", at(wed, 21, 0),
                QuietRule(chimeOnly: true, volume: 40)
            ),
            (
                "two lower volumes on a Saturday: the lower one, still chime-only", at(sat, 21, 30),
                QuietRule(chimeOnly: true, volume: 20)
            ),
            (
                "silent beats everything, whatever else covers the time", at(wed, 23, 15),
                QuietRule(silent: true, chimeOnly: true, volume: 40)
            ),
            ("after midnight only the silent window is left", at(wed, 0, 30), QuietRule(silent: true)),
            ("at 06:00 the silent window has ended", at(wed, 6, 0), nil),
            ("11:00-13:00 lower-volume 30 alone at 11:00", at(mon, 11, 0), QuietRule(volume: 30)),
            (
                "…and at 12:00 with the chime-only window: chime only at 30 %, not 100 %", at(mon, 12, 0),
                QuietRule(chimeOnly: true, volume: 30)
            ),
            ("…12:30, the chime-only window has ended (its end is exclusive)", at(mon, 12, 30), QuietRule(volume: 30)),
        ]
        for c in cases {
            XCTAssertEqual(QuietHours.rule(in: all, at: c.time), c.expected, c.why)
            XCTAssertEqual(QuietHours.rule(in: all.reversed(), at: c.time), c.expected, "\(c.why) (order reversed)")
        }
    }

    func testRuleDescriptionIsWhatStatusShows() {
        let cases: [(why: String, rule: QuietRule, expected: String)] = [
            ("one silent window", QuietRule(.silent), "silent"),
            ("silent hides the rest: nothing plays", QuietRule(silent: true, chimeOnly: true, volume: 10), "silent"),
            ("one chime-only window", QuietRule(.chimeOnly), "chime-only"),
            (
                "one lower-volume window, in the config's spelling", QuietRule(.lowerVolume(percent: 30)),
                "lower-volume (30%)"
            ),
            ("both aspects of two windows", QuietRule(chimeOnly: true, volume: 30), "chime-only, lower-volume (30%)"),
        ]
        for c in cases { XCTAssertEqual(c.rule.description, c.expected, c.why) }
    }

    func testWeekdays() {
        XCTAssertTrue(Weekdays.weekdays.contains(isoWeekday: 5))
        XCTAssertFalse(Weekdays.weekdays.contains(isoWeekday: 6))
        XCTAssertFalse(Weekdays.daily.contains(isoWeekday: 0), "out-of-range weekdays are in no set")
        XCTAssertFalse(Weekdays.daily.contains(isoWeekday: 8))
        XCTAssertEqual(Weekdays.daily.description, "daily")
        XCTAssertEqual(Weekdays([.monday, .friday]).description, "mon, fri")
        XCTAssertEqual(
            QuietWindow(days: .weekends, from: 22 * 60 + 30, to: 7 * 60, mode: .lowerVolume(percent: 20)).description,
            "weekends 22:30-07:00 lower-volume (20%)")
    }

    /// Real civil times from a zone, not hand-made ones: the window follows the local reading.
    func testWithRealZoneReadings() {
        let zone = Zone(identifier: "Asia/Kathmandu")!  // UTC+05:45
        let window = QuietWindow(days: .monday, from: 22 * 60, to: 7 * 60, mode: .silent)
        // 2026-01-05 is a Monday. 16:15Z is 22:00 in Kathmandu.
        let monday2200 = CivilTime.days(year: 2026, month: 1, day: 5) * 86_400 + 16 * 3600 + 15 * 60
        XCTAssertTrue(window.covers(CivilTime.local(monday2200, in: zone)))
        XCTAssertFalse(window.covers(CivilTime.local(monday2200 - 1, in: zone)), "21:59:59 Monday")
        XCTAssertTrue(window.covers(CivilTime.local(monday2200 + 9 * 3600 - 1, in: zone)), "06:59:59 Tuesday")
        XCTAssertFalse(window.covers(CivilTime.local(monday2200 + 9 * 3600, in: zone)), "07:00 Tuesday")
    }
}
