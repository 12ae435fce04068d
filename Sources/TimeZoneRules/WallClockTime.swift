/// A reading of a wall clock and calendar (proleptic Gregorian), without a zone: what a clock face
/// shows. `ZoneRules` turns instants into these and back.
///
/// Fields are not range-checked: `localSeconds` counts them the way `timegm` does, so
/// `hour: 24` is midnight of the next day and `month: 13` is January of the next year.
public struct WallClockTime: Hashable, Sendable, CustomStringConvertible {
    public var year: Int
    /// 1…12.
    public var month: Int
    /// 1…31.
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The wall clock reading `localSeconds` after 1970-01-01 00:00:00 on the same wall clock.
    public init(localSeconds: Int) {
        let days = floorDiv(localSeconds, 86_400)
        let secondOfDay = localSeconds - days * 86_400
        let date = civil(fromDays: days)
        self.init(
            year: date.year, month: date.month, day: date.day, hour: secondOfDay / 3600,
            minute: secondOfDay / 60 % 60, second: secondOfDay % 60)
    }

    /// Seconds after 1970-01-01 00:00:00 on the same wall clock: the UTC instant this reading
    /// would be if the zone were UTC.
    public var localSeconds: Int {
        let months = year * 12 + month - 1
        let y = floorDiv(months, 12)
        let m = months - y * 12 + 1
        return (days(fromCivil: y, m, 1) + day - 1) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// 0 = Sunday … 6 = Saturday, as POSIX `tm_wday` and `Mm.w.d` rules count.
    public var weekday: Int { dayOfWeek(floorDiv(localSeconds, 86_400)) }

    /// `2024-03-31 02:30:00`.
    public var description: String {
        func pad(_ n: Int, _ width: Int) -> String {
            let digits = String(n < 0 ? -n : n)
            return (n < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
    }
}

// Calendar arithmetic on days since 1970-01-01 (Howard Hinnant, "chrono-Compatible Low-Level Date
// Algorithms"): exact for every proleptic Gregorian date whose day count fits in an Int.

/// Proleptic Gregorian calendar arithmetic on days since 1970-01-01 (H. Hinnant's
/// `days_from_civil` / `civil_from_days`), shared with the clock's core (`CivilTime`).
public enum CivilCalendar {
    /// `a / b` rounded toward negative infinity (`b` > 0).
    @inlinable public static func floorDiv(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Days since 1970-01-01 of `year`-`month`-`day`; `month` 1…12, `day` may run past the month.
    @inlinable public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    @inlinable public static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

func floorDiv(_ a: Int, _ b: Int) -> Int { CivilCalendar.floorDiv(a, b) }

func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int { CivilCalendar.days(year: year, month: month, day: day) }

func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) { CivilCalendar.date(days: days) }

/// 0 = Sunday; 1970-01-01 was a Thursday.
func dayOfWeek(_ days: Int) -> Int {
    let w = (days + 4) % 7
    return w < 0 ? w + 7 : w
}

func isLeapYear(_ year: Int) -> Bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

func daysInMonth(_ year: Int, _ month: Int) -> Int {
    switch month {
    case 2: return isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
}
