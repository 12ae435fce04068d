import Foundation
import XCTest

@testable import TalkingClockCore
import TestSupport

/// Intervals of any divisor of 60 and windows with their own interval: tables around real DST
/// nights, and every boundary of whole weeks against an oracle that knows only Foundation's
/// calendar (a minute-by-minute scan of the local clock).
final class RhythmTests: XCTestCase {
    func zone(_ id: String) throws -> Zone { try XCTUnwrap(Zone(identifier: id), id) }

    func instant(_ text: String, _ zone: Zone) throws -> Double { try InstantParser.parse(text, in: zone) }

    func locals(_ instants: [Int], _ zone: Zone) -> [String] { instants.map { CivilTime.local($0, in: zone).rfc3339 } }

    func testIntervalsAreTheDivisorsOfTheHour() throws {
        XCTAssertEqual(Interval.divisors, [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60])
        XCTAssertEqual(Interval(rawValue: "5m")?.minutes, 5)
        XCTAssertEqual(Interval(rawValue: "10min")?.minutes, 10)
        XCTAssertEqual(Interval(rawValue: "quarter"), .quarter)
        XCTAssertEqual(Interval(rawValue: "60m"), .hour)
        XCTAssertEqual(Interval(minutes: 15)?.rawValue, "quarter", "a quarter is written as it always was")
        for bad in ["7m", "0m", "45m", "90m", "m", "5", "-5m", "5 m", "five"] {
            XCTAssertNil(Interval(rawValue: bad), bad)
        }
    }

    /// `interval = "5m"`: 288 boundaries on an ordinary day, 276 on the spring-forward day and 300
    /// on the fall-back day in London, every one on a local multiple of five minutes.
    func testFiveMinutesIs288ADayAndFollowsDST() throws {
        let london = try zone("Europe/London")
        let rhythm = Rhythm(interval: Interval(minutes: 5)!)
        for (day, expected) in [("2026-07-01", 288), ("2026-03-29", 276), ("2026-10-25", 300)] {
            let start = try instant("\(day)T00:00", london) - 1
            let end = CivilTime.instants(
                year: Int(day.prefix(4))!, month: Int(day.dropFirst(5).prefix(2))!, day: Int(day.suffix(2))! + 1, hour: 0, minute: 0,
                second: 0, in: london)[0]
            var count = 0
            var t = start
            while true {
                let b = BoundarySchedule.next(after: t, in: london, rhythm: rhythm)
                if b >= end { break }
                let local = CivilTime.local(b, in: london)
                XCTAssertEqual(local.minute % 5, 0, "\(local)")
                XCTAssertEqual(local.second, 0, "\(local)")
                count += 1
                t = Double(b)
            }
            XCTAssertEqual(count, expected, day)
        }
    }

    struct Row {
        let zone: String
        let from: String
        let windows: [IntervalWindow]
        let expected: [String]
        let why: String
    }

    /// Windows switch the interval at their edges, also across a DST change.
    func testWindowsSwitchAtTheirEdges() throws {
        let rows = [
            Row(
                zone: "Europe/London", from: "2026-07-01T07:40",
                windows: [IntervalWindow(days: .weekdays, from: 8 * 60, to: 8 * 60 + 20, interval: Interval(minutes: 5)!)],
                expected: [
                    "2026-07-01T07:45:00+01:00", "2026-07-01T08:00:00+01:00", "2026-07-01T08:05:00+01:00",
                    "2026-07-01T08:10:00+01:00", "2026-07-01T08:15:00+01:00", "2026-07-01T08:30:00+01:00",
                ],
                why: "a Wednesday: every 5 minutes from 08:00 until 08:20, then quarters again (08:20 and 08:25 are not in it)"),
            Row(
                zone: "Europe/London", from: "2026-07-04T07:40",
                windows: [IntervalWindow(days: .weekdays, from: 8 * 60, to: 8 * 60 + 20, interval: Interval(minutes: 5)!)],
                expected: ["2026-07-04T07:45:00+01:00", "2026-07-04T08:00:00+01:00", "2026-07-04T08:15:00+01:00"],
                why: "a Saturday: the weekday window does not apply"),
            Row(
                zone: "Europe/London", from: "2026-03-29T00:20",
                windows: [IntervalWindow(days: .daily, from: 30, to: 3 * 60, interval: Interval(minutes: 10)!)],
                expected: [
                    "2026-03-29T00:30:00+00:00", "2026-03-29T00:40:00+00:00", "2026-03-29T00:50:00+00:00",
                    "2026-03-29T02:00:00+01:00", "2026-03-29T02:10:00+01:00", "2026-03-29T02:20:00+01:00",
                    "2026-03-29T02:30:00+01:00", "2026-03-29T02:40:00+01:00", "2026-03-29T02:50:00+01:00",
                    "2026-03-29T03:00:00+01:00", "2026-03-29T03:15:00+01:00",
                ],
                why: "spring forward inside a 10-minute window: 01:00-01:59 does not exist, the window's edge at 03:00 does"),
            Row(
                zone: "Europe/London", from: "2026-10-25T00:35",
                windows: [IntervalWindow(days: .daily, from: 60 + 30, to: 2 * 60, interval: Interval(minutes: 10)!)],
                expected: [
                    "2026-10-25T00:45:00+01:00", "2026-10-25T01:00:00+01:00", "2026-10-25T01:15:00+01:00",
                    "2026-10-25T01:30:00+01:00", "2026-10-25T01:40:00+01:00", "2026-10-25T01:50:00+01:00",
                    "2026-10-25T01:00:00+00:00", "2026-10-25T01:15:00+00:00", "2026-10-25T01:30:00+00:00",
                    "2026-10-25T01:40:00+00:00", "2026-10-25T01:50:00+00:00", "2026-10-25T02:00:00+00:00",
                ],
                why: "fall back: the window 01:30-02:00 applies in both occurrences of the hour"),
            Row(
                zone: "America/New_York", from: "2026-07-01T11:50",
                windows: [
                    IntervalWindow(days: .daily, from: 12 * 60, to: 13 * 60, interval: Interval(minutes: 10)!),
                    IntervalWindow(days: .daily, from: 12 * 60 + 20, to: 12 * 60 + 40, interval: Interval(minutes: 4)!),
                ],
                expected: [
                    "2026-07-01T12:00:00-04:00", "2026-07-01T12:10:00-04:00", "2026-07-01T12:20:00-04:00",
                    "2026-07-01T12:24:00-04:00", "2026-07-01T12:28:00-04:00", "2026-07-01T12:32:00-04:00",
                    "2026-07-01T12:36:00-04:00", "2026-07-01T12:40:00-04:00", "2026-07-01T12:50:00-04:00",
                    "2026-07-01T13:00:00-04:00",
                ],
                why: "overlapping windows: the shortest interval applies where they overlap"),
            Row(
                zone: "Asia/Kathmandu", from: "2026-07-01T23:50",
                windows: [IntervalWindow(days: .wednesday, from: 23 * 60 + 55, to: 10, interval: Interval(minutes: 1)!)],
                expected: [
                    "2026-07-01T23:55:00+05:45", "2026-07-01T23:56:00+05:45", "2026-07-01T23:57:00+05:45",
                    "2026-07-01T23:58:00+05:45", "2026-07-01T23:59:00+05:45", "2026-07-02T00:00:00+05:45",
                    "2026-07-02T00:01:00+05:45",
                ],
                why: "a window that crosses midnight belongs to the day it starts on (Wednesday), at a +05:45 offset"),
        ]
        for row in rows {
            let z = try zone(row.zone)
            let got = BoundarySchedule.upcoming(
                after: try instant(row.from, z), count: row.expected.count, in: z, rhythm: Rhythm(interval: .quarter, windows: row.windows))
            XCTAssertEqual(locals(got, z), row.expected, row.why)
            for b in got { XCTAssertTrue(BoundarySchedule.isBoundary(b, in: z, rhythm: Rhythm(windows: row.windows)), row.why) }
        }
    }

    /// Every boundary of two weeks around each DST change of New York, London and Lord Howe, with
    /// seeded windows of every interval, against Foundation's calendar read minute by minute.
    func testWindowsAgainstACalendarOracle() throws {
        var rng = SeededGenerator(seed: 26)
        for (id, days) in [
            ("America/New_York", ["2026-03-01", "2026-10-25"]), ("Europe/London", ["2026-03-22", "2026-10-18"]),
            ("Australia/Lord_Howe", ["2026-03-29", "2026-09-27"]),
        ] {
            let z = try zone(id)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: id)!
            for day in days {
                var windows: [IntervalWindow] = []
                for _ in 0..<(1 + Int(rng.next() % 4)) {
                    let from = Int(rng.next() % 1440)
                    var to = Int(rng.next() % 1441)
                    if to == from { to = (from + 1) % 1440 + 1 }
                    let days = Weekdays(rawValue: UInt8(truncatingIfNeeded: rng.next() % 127 + 1))
                    windows.append(IntervalWindow(days: days, from: from, to: to, interval: Interval.all[Int(rng.next() % 12)]))
                }
                let rhythm = Rhythm(interval: Interval.all[Int(rng.next() % 12)], windows: windows)
                let start = Int(try instant("\(day)T00:00", z))
                let end = start + 14 * 86_400
                // The oracle: each UTC minute whose local reading (Foundation) is a boundary.
                var expected: [Int] = []
                for t in stride(from: start - start % 60 + 60, to: end, by: 60) {
                    let c = calendar.dateComponents([.weekday, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(t)))
                    let weekday = (c.weekday! + 5) % 7 + 1  // Foundation: 1 = Sunday
                    let minuteOfDay = c.hour! * 60 + c.minute!
                    func covers(_ w: IntervalWindow) -> Bool {
                        if w.from < w.to { return minuteOfDay >= w.from && minuteOfDay < w.to && w.days.contains(isoWeekday: weekday) }
                        if minuteOfDay >= w.from { return w.days.contains(isoWeekday: weekday) }
                        return minuteOfDay < w.to && w.days.contains(isoWeekday: weekday == 1 ? 7 : weekday - 1)
                    }
                    let interval = windows.filter(covers).map(\.interval.minutes).min() ?? rhythm.interval.minutes
                    if c.second == 0 && c.minute! % interval == 0 { expected.append(t) }
                }
                var got: [Int] = []
                var t = Double(start)
                while true {
                    let b = BoundarySchedule.next(after: t, in: z, rhythm: rhythm)
                    if b >= end { break }
                    got.append(b)
                    t = Double(b)
                }
                XCTAssertGreaterThanOrEqual(expected.count, 14 * 23, "at least one an hour: the oracle found them")
                XCTAssertEqual(got.count, expected.count, "\(id) \(day) \(rhythm.description)")
                XCTAssertEqual(got, expected, "\(id) \(day) \(rhythm.description)")
            }
        }
    }

    // MARK: Reminders

    func reminder(_ times: [Int], _ days: Reminder.Days = .weekdays(.daily), _ text: String = "Feed the cat", append: Bool = false)
        throws -> Reminder
    {
        Reminder(times: times, days: days, content: .text(try ReminderTemplate(parsing: text)), append: append)
    }

    /// A reminder at a time the clock skips is said once, when the clock jumps past it; at a time it
    /// reads twice, once, the first time.
    func testRemindersOnDSTNights() throws {
        let london = try zone("Europe/London")
        let r = try reminder([90])  // 01:30
        // 2026-03-29: 01:00 GMT jumps to 02:00 BST; 01:30 does not exist: said at 02:00 BST (01:00Z).
        XCTAssertEqual(
            locals([try XCTUnwrap(ReminderSchedule.next(after: try instant("2026-03-29T00:00", london), reminders: [r], in: london))], london),
            ["2026-03-29T02:00:00+01:00"])
        XCTAssertEqual(ReminderSchedule.due(at: 1_774_746_000, reminders: [r], in: london), [0], "02:00 BST = 01:00Z")
        // 2026-10-25: 01:30 BST and 01:30 GMT; said at the first only.
        let first = try XCTUnwrap(ReminderSchedule.next(after: try instant("2026-10-25T00:00", london), reminders: [r], in: london))
        XCTAssertEqual(locals([first], london), ["2026-10-25T01:30:00+01:00"])
        let after = try XCTUnwrap(ReminderSchedule.next(after: Double(first), reminders: [r], in: london))
        XCTAssertEqual(locals([after], london), ["2026-10-26T01:30:00+00:00"], "not again at 01:30 GMT")
        XCTAssertEqual(ReminderSchedule.due(at: first + 3600, reminders: [r], in: london), [], "the second 01:30 is not it")
    }

    func testReminderDaysAndDates() throws {
        let utc = Zone.utc
        let from = try instant("2026-12-23T12:00Z", utc)  // a Wednesday
        let weekly = try reminder([9 * 60], .weekdays(.monday))
        XCTAssertEqual(locals([ReminderSchedule.next(after: from, reminders: [weekly], in: utc)!], utc), ["2026-12-28T09:00:00+00:00"])
        let once = try reminder([8 * 60], .dates([.once(CalendarDate(year: 2026, month: 12, day: 24)!)]))
        XCTAssertEqual(locals([ReminderSchedule.next(after: from, reminders: [once], in: utc)!], utc), ["2026-12-24T08:00:00+00:00"])
        XCTAssertNil(ReminderSchedule.next(after: from + 86_400 * 2, reminders: [once], in: utc), "a one-off in the past: never again")
        let yearly = try reminder([8 * 60], .dates([.yearly(month: 12, day: 24)]))
        XCTAssertEqual(
            locals([ReminderSchedule.next(after: from + 86_400 * 2, reminders: [yearly], in: utc)!], utc), ["2027-12-24T08:00:00+00:00"])
        let leap = try reminder([7 * 60], .dates([.yearly(month: 2, day: 29)]))
        XCTAssertEqual(locals([ReminderSchedule.next(after: from, reminders: [leap], in: utc)!], utc), ["2028-02-29T07:00:00+00:00"])
        // Several times and reminders: the earliest next.
        let two = try reminder([13 * 60, 12 * 60 + 30])
        XCTAssertEqual(locals([ReminderSchedule.next(after: from, reminders: [weekly, two], in: utc)!], utc), ["2026-12-23T12:30:00+00:00"])
        XCTAssertEqual(ReminderSchedule.due(at: 1_798_029_000, reminders: [weekly, two], in: utc), [1], "12:30 on 2026-12-23")
    }

    func testTemplates() throws {
        let t = try ReminderTemplate(parsing: "It is {time}, {Date}: {value} outside. {{not a placeholder}}")
        XCTAssertEqual(t.segments, [.text("It is"), .time, .date, .text(":"), .value, .text("outside. {not a placeholder}")].filter {
            $0 != .text(":")
        })
        XCTAssertEqual(t.texts, ["It is", "outside. {not a placeholder}"])
        XCTAssertTrue(t.usesValue && t.usesDate)
        XCTAssertEqual(try ReminderTemplate(parsing: "{time}.").segments, [.time], "punctuation alone is not rendered")
        for (bad, says) in [
            ("Meet at {tiem}", "unknown placeholder {tiem}"), ("Meet {time", "a '{' that is never closed"), ("a } b", "a '}' without its '{'"),
        ] {
            XCTAssertThrowsError(try ReminderTemplate(parsing: bad), bad) { error in
                XCTAssertTrue("\(error)".contains(says), "\(error)")
            }
        }
    }

    // MARK: The volume curve

    func testVolumeCurveInterpolates() throws {
        let curve = try XCTUnwrap(
            VolumeCurve(points: [.init(minute: 21 * 60, percent: 40), .init(minute: 7 * 60, percent: 70), .init(minute: 23 * 60, percent: 20)]))
        let table: [(String, Int, String)] = [
            ("07:00", 70, "on a point"), ("14:00", 55, "halfway from 07:00 (70) to 21:00 (40)"), ("22:00", 30, "halfway to 23:00"),
            ("23:00", 20, "the last point"), ("03:00", 45, "round midnight: halfway from 23:00 (20) to 07:00 (70)"),
            ("00:00", 26, "an eighth of the way from 23:00 to 07:00: 26.25"), ("06:59", 70, "a minute before 07:00: 69.9"),
        ]
        for (time, expected, why) in table {
            let m = Int(time.prefix(2))! * 60 + Int(time.suffix(2))!
            XCTAssertEqual(curve.percent(atSecondOfDay: m * 60), expected, why)
        }
        XCTAssertEqual(VolumeCurve(points: [.init(minute: 0, percent: 33)])?.percent(atSecondOfDay: 5000), 33, "one point: flat")
        XCTAssertNil(VolumeCurve(points: []))
    }

    /// The quieter of the curve, quiet hours and `volume` wins: one fold.
    func testTheCurveFoldsWithQuietHours() throws {
        var config = Config()
        config.volumeCurve = VolumeCurve(points: [.init(minute: 7 * 60, percent: 70), .init(minute: 21 * 60, percent: 40)])
        config.quiet = [QuietWindow(from: 12 * 60, to: 13 * 60, mode: .lowerVolume(percent: 30)), QuietWindow(from: 22 * 60, to: 23 * 60)]
        let utc = Zone.utc
        func decided(_ text: String, volume: Int = 100) throws -> Decision {
            var c = config
            c.volume = volume
            return AnnouncementScheduler.configuredDecision(boundary: Int(try instant(text, utc)), in: utc, config: c)
        }
        guard case .speak(_, _, _, let at7) = try decided("2026-07-01T07:00Z") else { return XCTFail() }
        XCTAssertEqual(at7, 0.70, accuracy: 0.001, "the curve")
        guard case .speak(_, _, _, let at12) = try decided("2026-07-01T12:00Z") else { return XCTFail() }
        XCTAssertEqual(at12, 0.30, accuracy: 0.001, "quiet hours' 30 % is quieter than the curve's 55 %")
        guard case .speak(_, _, _, let quieter) = try decided("2026-07-01T07:00Z", volume: 50) else { return XCTFail() }
        XCTAssertEqual(quieter, 0.50, accuracy: 0.001, "volume 50 is quieter than the curve's 70 %")
        guard case .skip(_, _, .quiet) = try decided("2026-07-01T22:00Z") else { return XCTFail("silent quiet hours stay silent") }
        XCTAssertEqual(AnnouncementScheduler.volume(at: CivilTime.local(Int(try instant("2026-07-01T14:00Z", utc)), in: utc), config: config), 55)
    }

    // MARK: Bad input

    /// Every new key's bad values: the file, the line, the key, the value and the fix.
    func testErrorSentences() throws {
        let cases: [(String, String, String)] = [
            (
                "interval = \"7m\"", "interval",
                "config.toml: line 1: 'interval' is \"7m\", but 7 minutes does not divide the hour, so the boundaries would drift from hour to hour; use a divisor of 60 such as \"6m\""
            ),
            ("interval = 5", "interval", "not the number 5; write interval = \"5m\"."),
            ("[[window]]\nfrom = \"08:00\"\nto = \"09:00\"", "window.interval", "config.toml: line 1: the [[window]] has no 'interval'; add one such as interval = \"5m\""),
            ("[[window]]\ndays = \"wkdays\"\nfrom = \"08:00\"\nto = \"09:00\"\ninterval = \"5m\"", "window.days", "\"wkdays\" is not a day (did you mean \"weekdays\"?)"),
            ("[[window]]\nfrom = \"08:00\"\nto = \"08:00\"\ninterval = \"5m\"", "window.to", "'from' and 'to' in [[window]] are both \"08:00\""),
            ("[[window]]\nfrom = \"08:00\"\nto = \"09:00\"\ninterval = \"25m\"", "window.interval", "25 minutes does not divide the hour"),
            ("[[reminder]]\nsay = \"x\"", "reminder.at", "the [[reminder]] has no 'at' time"),
            ("[[reminder]]\nat = \"9:60\"\nsay = \"x\"", "reminder.at", "'at' in [[reminder]] must be a time of day"),
            ("[[reminder]]\nat = \"09:00\"", "reminder.say", "the [[reminder]] says nothing; add say = \"Stand-up meeting\""),
            ("[[reminder]]\nat = \"09:00\"\nsay = \"x\"\nclip = \"a.wav\"", "reminder.clip", "not both"),
            ("[[reminder]]\nat = \"09:00\"\ndays = \"mon\"\ndates = [\"12-24\"]\nsay = \"x\"", "reminder.days", "'days' (weekdays) or 'dates'"),
            ("[[reminder]]\nat = \"09:00\"\ndates = [\"2026-02-30\"]\nsay = \"x\"", "reminder.dates", "'2026-02-30' is not a date: February 2026 has 28 days."),
            ("[[reminder]]\nat = \"09:00\"\ndates = [\"02-30\"]\nsay = \"x\"", "reminder.dates", "'02-30' is not a date: February has 29 days."),
            ("[[reminder]]\nat = \"09:00\"\ndates = [\"12/24\"]\nsay = \"x\"", "reminder.dates", "write YYYY-MM-DD for once (2026-12-24) or MM-DD for every year (12-24)"),
            ("[[reminder]]\nat = \"09:00\"\nsay = \"Meet at {tme}\"", "reminder.say", "unknown placeholder {tme}"),
            ("[[reminder]]\nat = \"09:00\"\nsay = \"x\"\nspeaks-through = [\"quite\"]", "reminder.speaks-through", "(did you mean \"quiet\"?)"),
            ("[[reminder]]\nat = \"09:00\"\nsay = \"x\"\nwhen = \"later\"", "when", "unknown key 'when' in [[reminder]]"),
            ("[[reminder]]\nat = \"09:00\"\nsay = \"It is {value}\"", "reminder.say", "says {value}, but there is no [value] table"),
            ("[[away]]\nfrom = \"2026-08-14\"\nto = \"2026-08-01\"", "away.to", "'to' (2026-08-01) is before 'from' (2026-08-14)"),
            ("[[away]]\nfrom = \"2026-08-01\"", "away.to", "the [[away]] range has no 'to' date"),
            ("[[away]]\nfrom = \"2026-13-01\"\nto = \"2026-08-01\"", "away.from", "there is no month 13"),
            ("[[away]]\nfrom = \"2026-08-01\"\nto = \"2026-08-02\"\nclock = \"quiet\"", "clock", "must be one of \"speaks\" or \"silent\""),
            ("volume-curve = [{ at = \"07:00\", volume = 70 }, { at = \"07:00\", volume = 40 }]", "volume-curve", "points 1 and 2 of 'volume-curve' are both at \"07:00\""),
            ("volume-curve = [{ at = \"07:00\", volume = 170 }]", "volume", "must be an integer from 0 to 100"),
            ("volume-curve = 70", "volume-curve", "'volume-curve' must be a list of points"),
            ("date = \"always\"", "date", "'date' must be one of \"never\" or \"first\""),
            ("[value]\ntopic = \"t\"\nunit = \"degrees\"", "value", "[value] reads an MQTT topic, but there is no [mqtt] table"),
            ("[mqtt]\nbroker = \"mqtt://x\"\n[value]\ntopic = \"a/#\"\nunit = \"degrees\"", "value.topic", "without the wildcards + and #"),
            ("[mqtt]\nbroker = \"mqtt://x\"\n[value]\ntopic = \"a\"\nunit = \"kelvin\"", "value.unit", "must be \"degrees\" or \"percent\""),
            ("[mqtt]\nbroker = \"mqtt://x\"\n[value]\ntopic = \"a\"\nunit = \"degrees\"\nmax-age = \"soon\"", "value.max-age", "'max-age' in [value]"),
        ]
        for (text, key, says) in cases {
            XCTAssertThrowsError(try Config.parse(text, source: "config.toml"), text) { error in
                guard let error = error as? ConfigError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.key, key, "\(text): \(error)")
                XCTAssertTrue(error.description.contains(says), "\(text):\n\(error.description)\nshould contain\n\(says)")
            }
        }
    }

    func testAGoodConfigReadsEveryNewKey() throws {
        let config = try Config.parse(
            """
            interval = "10m"
            volume-curve = [{ at = "21:00", volume = 40 }, { at = "07:00", volume = 70 }]
            date = "first"

            [[window]]
            days = ["mon", "tue"]
            from = "22:00"
            to = "06:00"
            interval = "hour"

            [[reminder]]
            at = ["09:00", "13:30"]
            days = "weekdays"
            say = "Stand-up at {time}"
            speaks-through = ["quiet", "courtesy"]

            [[reminder]]
            at = 17:00:00
            dates = ["2026-12-24", "01-01", 2027-01-02]
            clip = "sounds/carol.flac"
            append = true

            [[away]]
            from = 2026-08-01
            to = "2026-08-14"
            clock = "silent"

            [mqtt]
            broker = "mqtt://localhost"

            [value]
            topic = "homeassistant/sensor/outdoor/state"
            unit = "degrees"
            max-age = "30m"
            """, source: "config.toml")
        XCTAssertEqual(config.interval.minutes, 10)
        XCTAssertEqual(config.windows, [IntervalWindow(days: [.monday, .tuesday], from: 1320, to: 360, interval: .hour)])
        XCTAssertEqual(config.volumeCurve?.points.map(\.minute), [420, 1260])
        XCTAssertEqual(config.date, .first)
        XCTAssertEqual(config.reminders.count, 2)
        XCTAssertEqual(config.reminders[0].times, [540, 810])
        XCTAssertEqual(config.reminders[0].speaksThrough, [.quiet, .courtesy])
        XCTAssertEqual(config.reminders[0].origin, "config.toml: line 11")
        XCTAssertEqual(config.reminders[1].content, .clip(path: "sounds/carol.flac"))
        XCTAssertTrue(config.reminders[1].append)
        XCTAssertEqual(
            config.reminders[1].days,
            .dates([.once(CalendarDate(year: 2026, month: 12, day: 24)!), .yearly(month: 1, day: 1), .once(CalendarDate(year: 2027, month: 1, day: 2)!)]))
        XCTAssertEqual(config.away, [AwayRange(from: CalendarDate(year: 2026, month: 8, day: 1)!, to: CalendarDate(year: 2026, month: 8, day: 14)!, silencesClock: true)])
        XCTAssertEqual(config.value, ValueSource(topic: "homeassistant/sensor/outdoor/state", unit: .degrees, maxAge: 1800))
    }
}
