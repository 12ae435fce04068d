import XCTest

@testable import TalkingClockCore

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
            XCTAssertEqual(QuietHours.window(in: [c.window], at: c.time), c.covered ? c.window : nil, c.why)
        }
    }

    func testEmptyWindowCoversNothing() {
        let empty = QuietWindow(days: .daily, from: 600, to: 600, mode: .silent)
        for hour in [0, 9, 10, 11, 23] {
            XCTAssertFalse(
                empty.covers(at(wed, hour, 0)), "from == to is rejected by the config and covers nothing here")
        }
    }

    func testMostRestrictiveWins() {
        let silentNight = QuietWindow(days: .daily, from: 23 * 60, to: 6 * 60, mode: .silent)
        let chimeEvening = QuietWindow(days: .daily, from: 20 * 60, to: 24 * 60, mode: .chimeOnly)
        let soft = QuietWindow(days: .daily, from: 18 * 60, to: 23 * 60 + 30, mode: .lowerVolume(percent: 40))
        let softer = QuietWindow(days: .weekends, from: 21 * 60, to: 22 * 60, mode: .lowerVolume(percent: 20))
        let all = [soft, softer, chimeEvening, silentNight]
        let cases: [(why: String, time: LocalDateTime, expected: QuietMode?)] = [
            ("nothing applies in the afternoon", at(wed, 15, 0), nil),
            ("only the lower volume", at(wed, 19, 0), .lowerVolume(percent: 40)),
            ("chime-only beats lower volume", at(wed, 21, 0), .chimeOnly),
            ("on a Saturday the lower of two volumes is still beaten by chime-only", at(sat, 21, 30), .chimeOnly),
            ("silent beats both", at(wed, 23, 15), .silent),
            ("after midnight only the silent window is left", at(wed, 0, 30), .silent),
            ("at 06:00 the silent window has ended", at(wed, 6, 0), nil),
        ]
        for c in cases {
            XCTAssertEqual(QuietHours.mode(in: all, at: c.time), c.expected, c.why)
            XCTAssertEqual(QuietHours.mode(in: all.reversed(), at: c.time), c.expected, "\(c.why) (order reversed)")
        }
        // Between two lower volumes, the lower one wins, whatever the order.
        let a = QuietWindow(days: .daily, from: 0, to: 600, mode: .lowerVolume(percent: 50))
        let b = QuietWindow(days: .daily, from: 0, to: 600, mode: .lowerVolume(percent: 10))
        XCTAssertEqual(QuietHours.mode(in: [a, b], at: at(mon, 1, 0)), .lowerVolume(percent: 10))
        XCTAssertEqual(QuietHours.mode(in: [b, a], at: at(mon, 1, 0)), .lowerVolume(percent: 10))
        // On a tie the first listed window is the one reported.
        let first = QuietWindow(days: .monday, from: 0, to: 600, mode: .silent)
        let second = QuietWindow(days: .daily, from: 60, to: 120, mode: .silent)
        XCTAssertEqual(QuietHours.window(in: [first, second], at: at(mon, 1, 0)), first)
    }

    func testRestrictivenessOrder() {
        let modes: [QuietMode] = [
            .silent, .chimeOnly, .lowerVolume(percent: 0), .lowerVolume(percent: 30), .lowerVolume(percent: 100),
        ]
        for (i, a) in modes.enumerated() {
            for (j, b) in modes.enumerated() {
                XCTAssertEqual(a.isMoreRestrictive(than: b), i < j, "\(a) vs \(b)")
            }
        }
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
        let zone = TimeZone(identifier: "Asia/Kathmandu")!  // UTC+05:45
        let window = QuietWindow(days: .monday, from: 22 * 60, to: 7 * 60, mode: .silent)
        // 2026-01-05 is a Monday. 16:15Z is 22:00 in Kathmandu.
        let monday2200 = CivilTime.days(year: 2026, month: 1, day: 5) * 86_400 + 16 * 3600 + 15 * 60
        XCTAssertTrue(window.covers(CivilTime.local(monday2200, in: zone)))
        XCTAssertFalse(window.covers(CivilTime.local(monday2200 - 1, in: zone)), "21:59:59 Monday")
        XCTAssertTrue(window.covers(CivilTime.local(monday2200 + 9 * 3600 - 1, in: zone)), "06:59:59 Tuesday")
        XCTAssertFalse(window.covers(CivilTime.local(monday2200 + 9 * 3600, in: zone)), "07:00 Tuesday")
    }
}
