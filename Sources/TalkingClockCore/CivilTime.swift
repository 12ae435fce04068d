import TimeZoneRules

/// A wall-clock reading in a zone: the civil date and time plus the UTC offset in force.
///
/// Pure value; computed from an instant (whole seconds since the Unix epoch) and a `Zone` (the
/// tz database's rules, `ZoneRules`), so that the schedule is deterministic and fast.
public struct LocalDateTime: Hashable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var weekday: Int
    /// Seconds east of UTC in force at this instant.
    public var utcOffset: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int, utcOffset: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.weekday = weekday
        self.utcOffset = utcOffset
    }

    /// Minutes since local midnight (0 … 1439).
    public var minuteOfDay: Int { hour * 60 + minute }

    /// RFC 3339 with the local offset, e.g. `2026-11-01T01:15:00-05:00`.
    public var rfc3339: String {
        let date = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        let time = "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        return "\(date)T\(time)\(CivilTime.formatOffset(utcOffset))"
    }

    public var description: String { rfc3339 }
}

@inline(__always) func pad(_ value: Int, _ width: Int) -> String {
    let s = String(abs(value))
    let padded = s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    return value < 0 ? "-" + padded : padded
}

@inline(__always) func floorDiv(_ a: Int, _ b: Int) -> Int { CivilCalendar.floorDiv(a, b) }

@inline(__always) func floorMod(_ a: Int, _ b: Int) -> Int {
    let r = a % b
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r
}

/// Conversions between instants and civil time (proleptic Gregorian calendar).
public enum CivilTime {
    /// Days since 1970-01-01 for a civil date (H. Hinnant's `days_from_civil`).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        CivilCalendar.days(year: year, month: month, day: day)
    }

    /// Civil date for days since 1970-01-01 (`civil_from_days`).
    public static func date(days: Int) -> (year: Int, month: Int, day: Int) { CivilCalendar.date(days: days) }

    /// The UTC offset (seconds east) of `zone` at `instant` (seconds since the epoch).
    @inline(__always) public static func offset(_ zone: Zone, at instant: Int) -> Int {
        zone.offset(at: instant)
    }

    /// The local civil reading of `instant` in `zone`.
    public static func local(_ instant: Int, in zone: Zone) -> LocalDateTime {
        local(instant, offset: offset(zone, at: instant))
    }

    /// The civil reading of `instant` at a known offset.
    public static func local(_ instant: Int, offset: Int) -> LocalDateTime {
        let civil = instant + offset
        let days = floorDiv(civil, 86_400)
        let secs = civil - days * 86_400
        let (y, m, d) = date(days: days)
        return LocalDateTime(
            year: y, month: m, day: d, hour: secs / 3600, minute: secs / 60 % 60, second: secs % 60,
            weekday: floorMod(days + 3, 7) + 1, utcOffset: offset)
    }

    /// Every instant whose local reading in `zone` is the given civil time, earliest first.
    /// Empty when the time is skipped (spring forward); two entries when it repeats (fall back).
    public static func instants(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, in zone: Zone
    ) -> [Int] {
        let civil = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return zone.rules.instants(forLocalSeconds: civil).instants
    }

    /// `+HH:MM` / `-HH:MM` (RFC 3339 cannot carry seconds; historic LMT seconds are dropped).
    public static func formatOffset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return "\(sign)\(pad(minutes / 60, 2)):\(pad(minutes % 60, 2))"
    }

    /// RFC 3339 in UTC with `Z`, e.g. `2026-11-01T06:15:00Z`.
    public static func utcString(_ instant: Int) -> String {
        let l = local(instant, offset: 0)
        return "\(pad(l.year, 4))-\(pad(l.month, 2))-\(pad(l.day, 2))T\(pad(l.hour, 2)):\(pad(l.minute, 2)):\(pad(l.second, 2))Z"
    }
}
