import Foundation
import TalkingClockCore

/// What the simulated year's daemon is configured with (intervals, windows, reminders, away ranges
/// and a volume curve), and the oracle's own reading of it: which instants each zone has, what
/// each says and how loud, worked out with Foundation's calendar and time zones and written here a
/// second time, never by the code under test (only the words of a time come from `Phrase`).
struct SimulatedRhythm {
    /// The base interval, in minutes: a quarter, or ten minutes (then :15 and :45 are no instants).
    let baseMinutes: Int
    let lateLimit: Double

    /// The configuration file the daemon reads.
    var toml: String {
        """
        chime = "none"
        late-limit = \(Int(lateLimit))
        interval = "\(baseMinutes)m"
        volume-curve = [{ at = "07:00", volume = 100 }, { at = "22:00", volume = 30 }]

        [[quiet]]
        from = "03:00"
        to = "06:00"
        mode = "silent"

        [[window]]
        days = "weekdays"
        from = "07:00"
        to = "09:00"
        interval = "5m"

        [[window]]
        from = "00:30"
        to = "03:00"
        interval = "10m"

        [[window]]
        days = "sat"
        from = "23:50"
        to = "00:10"
        interval = "2m"

        [[reminder]]
        at = "12:34"
        say = "Lunch"

        [[reminder]]
        at = "01:30"
        say = "Night check at {time}"

        [[reminder]]
        at = "04:00"
        say = "Pills"
        speaks-through = ["quiet"]

        [[reminder]]
        at = ["17:00", "18:05"]
        days = "weekdays"
        say = "Post"
        append = true

        [[reminder]]
        at = "10:10"
        dates = ["2026-03-20", "04-01"]
        say = "Birthday"

        [[away]]
        from = "2026-04-05"
        to = "2026-04-07"

        [[away]]
        from = "2026-04-10"
        to = "2026-04-10"
        clock = "silent"
        """
    }

    /// The texts the daemon renders at start (the fixture pack has them).
    static let texts = ["Lunch", "Night check at", "Pills", "Post", "Birthday"]

    // MARK: The oracle's reading

    struct Window {
        var weekdays: Set<Int>  // ISO, 1 = Monday
        var from: Int
        var to: Int
        var minutes: Int
    }

    struct Reminder {
        var times: [(hour: Int, minute: Int)]
        /// ISO weekdays, or nil with dates.
        var weekdays: Set<Int>?
        /// (year or nil for every year, month, day).
        var dates: [(year: Int?, month: Int, day: Int)]
        var append: Bool
        var throughQuiet: Bool
        var words: (_ hour: Int, _ minute: Int) -> String
    }

    let windows = [
        Window(weekdays: [1, 2, 3, 4, 5], from: 7 * 60, to: 9 * 60, minutes: 5),
        Window(weekdays: [1, 2, 3, 4, 5, 6, 7], from: 30, to: 3 * 60, minutes: 10),
        Window(weekdays: [6], from: 23 * 60 + 50, to: 10, minutes: 2),
    ]

    let reminders = [
        Reminder(times: [(12, 34)], weekdays: [1, 2, 3, 4, 5, 6, 7], dates: [], append: false, throughQuiet: false) { _, _ in "Lunch" },
        Reminder(times: [(1, 30)], weekdays: [1, 2, 3, 4, 5, 6, 7], dates: [], append: false, throughQuiet: false) { h, m in
            "Night check at " + Phrase.forTime(hour: h, minute: m).text
        },
        Reminder(times: [(4, 0)], weekdays: [1, 2, 3, 4, 5, 6, 7], dates: [], append: false, throughQuiet: true) { _, _ in "Pills" },
        Reminder(times: [(17, 0), (18, 5)], weekdays: [1, 2, 3, 4, 5], dates: [], append: true, throughQuiet: false) { _, _ in "Post" },
        Reminder(times: [(10, 10)], weekdays: nil, dates: [(2026, 3, 20), (nil, 4, 1)], append: false, throughQuiet: false) { _, _ in
            "Birthday"
        },
    ]

    /// Away: (year, month, day) ranges; the second silences the clock too.
    let awayDates: [(from: DateComponents, to: DateComponents, silent: Bool)] = [
        (DateComponents(year: 2026, month: 4, day: 5), DateComponents(year: 2026, month: 4, day: 7), false),
        (DateComponents(year: 2026, month: 4, day: 10), DateComponents(year: 2026, month: 4, day: 10), true),
    ]

    /// Percent by second of the day: 100 at 07:00 down to 30 at 22:00, back up over the night.
    func curve(secondOfDay s: Int) -> Int {
        let a = 7 * 3600
        let b = 22 * 3600
        let (start, end, from, to): (Int, Int, Double, Double)
        if s >= a && s < b {
            (start, end, from, to) = (a, b, 100, 30)
        } else {
            (start, end, from, to) = (b, a + 86_400, 30, 100)
        }
        let at = s < a ? s + 86_400 : s
        return Int((from + (to - from) * Double(at - start) / Double(end - start)).rounded())
    }

    /// One instant of a zone: whether it is a boundary of the rhythm, and the reminders due.
    struct Instant {
        var boundary: Bool
        var reminders: [Int]
    }

    /// The instants of a zone over a span, sorted.
    final class ZoneInstants {
        let instants: [Int]
        let info: [Int: Instant]
        init(instants: [Int], info: [Int: Instant]) {
            self.instants = instants
            self.info = info
        }

        /// The first instant ≥ t (or > t).
        func first(after t: Double, orAt: Bool = false) -> Int {
            var lo = 0
            var hi = instants.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if orAt ? Double(instants[mid]) >= t : Double(instants[mid]) > t { hi = mid } else { lo = mid + 1 }
            }
            return lo < instants.count ? instants[lo] : Int.max / 2
        }

        /// The last instant ≤ t.
        func last(atOrBefore t: Double) -> Int {
            var lo = 0
            var hi = instants.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Double(instants[mid]) <= t { lo = mid + 1 } else { hi = mid }
            }
            return lo > 0 ? instants[lo - 1] : Int.min / 2
        }
    }

    /// Every instant of `zone` in [from, to]: each UTC minute whose local reading (Foundation's
    /// offset) is a boundary of the rhythm, and each reminder's time found by Foundation's calendar
    /// (a skipped time: the end of the gap; a repeated one: the first).
    func instants(zone id: String, from: Int, to: Int) -> ZoneInstants {
        let tz = TimeZone(identifier: id)!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = tz
        var info: [Int: Instant] = [:]
        var t = from - ((from % 900) + 900) % 900
        var offset = 0
        while t <= to {
            // Every zone here changes its offset on a quarter-hour of UTC: read it there.
            if t % 900 == 0 { offset = tz.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t))) }
            let local = t + offset
            if local % 60 == 0 {
                let days = Int((Double(local) / 86_400).rounded(.down))
                let minuteOfDay = (local - days * 86_400) / 60
                let weekday = ((days + 3) % 7 + 7) % 7 + 1
                func covers(_ w: Window) -> Bool {
                    if w.from < w.to { return minuteOfDay >= w.from && minuteOfDay < w.to && w.weekdays.contains(weekday) }
                    if minuteOfDay >= w.from { return w.weekdays.contains(weekday) }
                    return minuteOfDay < w.to && w.weekdays.contains(weekday == 1 ? 7 : weekday - 1)
                }
                let interval = windows.filter(covers).map(\.minutes).min() ?? baseMinutes
                if minuteOfDay % 60 % interval == 0 { info[t] = Instant(boundary: true, reminders: []) }
            }
            t += 60
        }
        // Reminders: each local date of the span (a day either side).
        var day = calendar.startOfDay(for: Date(timeIntervalSince1970: Double(from - 86_400)))
        let last = Date(timeIntervalSince1970: Double(to + 86_400))
        while day < last {
            let c = calendar.dateComponents([.year, .month, .day, .weekday], from: day)
            let weekday = (c.weekday! + 5) % 7 + 1
            for (index, r) in reminders.enumerated() {
                let due =
                    r.weekdays.map { $0.contains(weekday) }
                    ?? r.dates.contains { ($0.year == nil || $0.year == c.year) && $0.month == c.month && $0.day == c.day }
                guard due else { continue }
                for time in r.times {
                    let at = Int(
                        calendar.nextDate(
                            after: day.addingTimeInterval(-1), matching: DateComponents(hour: time.hour, minute: time.minute, second: 0),
                            matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)!.timeIntervalSince1970)
                    guard at >= from, at <= to else { continue }
                    var i = info[at] ?? Instant(boundary: false, reminders: [])
                    if !i.reminders.contains(index) { i.reminders.append(index) }
                    info[at] = i
                }
            }
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
        return ZoneInstants(instants: info.keys.sorted(), info: info)
    }

    /// Whether reminders pause (and whether the clock is silent too) on the local date of `instant`.
    func away(_ instant: Int, zone: String) -> (reminders: Bool, clock: Bool) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let c = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(instant)))
        let key = c.year! * 10_000 + c.month! * 100 + c.day!
        var result = (reminders: false, clock: false)
        for range in awayDates {
            let a = range.from.year! * 10_000 + range.from.month! * 100 + range.from.day!
            let b = range.to.year! * 10_000 + range.to.month! * 100 + range.to.day!
            if key >= a && key <= b {
                result.reminders = true
                if range.silent { result.clock = true }
            }
        }
        return result
    }
}
