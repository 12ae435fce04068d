/// What local time is at an instant: its offset, whether it is daylight time, and its name.
public struct LocalTimeType: Hashable, Sendable, CustomStringConvertible {
    /// Seconds EAST of Greenwich (CET: 3600).
    public var utcOffset: Int
    public var isDST: Bool
    /// `CEST`, `+0530`, `-00`.
    public var abbreviation: String

    public init(utcOffset: Int, isDST: Bool, abbreviation: String) {
        self.utcOffset = utcOffset
        self.isDST = isDST
        self.abbreviation = abbreviation
    }

    /// `CEST +7200 dst`.
    public var description: String { "\(abbreviation) \(utcOffset >= 0 ? "+" : "")\(utcOffset)\(isDST ? " dst" : "")" }
}

/// A change of local time type: from `instant` (seconds since the epoch, UTC) on, `after` applies;
/// one second earlier, `before` did.
public struct ZoneTransition: Hashable, Sendable {
    public var instant: Int
    public var before: LocalTimeType
    public var after: LocalTimeType

    public init(instant: Int, before: LocalTimeType, after: LocalTimeType) {
        self.instant = instant
        self.before = before
        self.after = after
    }
}

/// Instants are meaningful within ±2^59 seconds (the tz code's "big bang", 18 billion years);
/// beyond that the rules treat them as the bound, which keeps all arithmetic far from overflow.
let instantLimit = 1 << 59

func clampInstant(_ t: Int) -> Int { min(max(t, -instantLimit), instantLimit) }

extension POSIXTZString {
    /// The rules used when a string names daylight time but not when it starts and ends
    /// (`EST5EDT`): the US rules since 2007, as the reference tz code does when no `posixrules`
    /// file is used.
    public static let defaultRules = Rules(
        start: Transition(day: .monthWeekDay(month: 3, week: 2, weekday: 0)),
        end: Transition(day: .monthWeekDay(month: 11, week: 1, weekday: 0)))

    /// The UTC instants at which daylight time starts and ends in `year` of the local calendar,
    /// or nil without daylight time. `start` is later than `end` in the southern hemisphere; the
    /// two may also lie outside `year` when a rule's time is negative or past 24:00 (RFC 8536
    /// 3.3.1).
    public func daylightTransitions(inYear year: Int) -> (start: Int, end: Int)? {
        guard let daylight else { return nil }
        let rules = self.rules ?? Self.defaultRules
        // The start is written in standard time, the end in daylight time.
        return (
            rules.start.localSeconds(inYear: year) - standard.utcOffset,
            rules.end.localSeconds(inYear: year) - daylight.utcOffset
        )
    }

    /// The local time type at `utcSeconds`.
    ///
    /// Daylight time runs from a start up to (not including) the next end. When an end and a
    /// start fall on the same instant (DST all year, `EST5EDT,0/0,J365/25`), the start wins.
    public func localTimeType(at utcSeconds: Int) -> LocalTimeType {
        let std = LocalTimeType(utcOffset: standard.utcOffset, isDST: false, abbreviation: standard.name)
        guard let daylight else { return std }
        let t = clampInstant(utcSeconds)
        let year = civil(fromDays: floorDiv(t + standard.utcOffset, 86_400)).year
        // A year's changes lie within 167 hours (plus offsets) of its own calendar, so year-2's are
        // always at or before t and year+2's always after: the latest change at or before t is
        // among these eight.
        var latest = Int.min
        var inDaylight = false
        for y in (year - 2)...(year + 1) {
            let (start, end) = daylightTransitions(inYear: y)!
            if end <= t && end > latest {
                latest = end
                inDaylight = false
            }
            if start <= t && start >= latest {
                latest = start
                inDaylight = true
            }
        }
        guard inDaylight else { return std }
        return LocalTimeType(utcOffset: daylight.utcOffset, isDST: true, abbreviation: daylight.name)
    }

    /// The first instant after `utcSeconds` at which the local time type changes, or nil if it
    /// never does (no daylight time, or daylight time all year).
    public func nextTransition(after utcSeconds: Int) -> ZoneTransition? {
        guard daylight != nil, utcSeconds < instantLimit else { return nil }
        let t = clampInstant(utcSeconds)
        let firstYear = civil(fromDays: floorDiv(t + standard.utcOffset, 86_400)).year - 1
        var found: ZoneTransition?
        // Rules repeat with the calendar, which repeats every 400 years: a rule that changes
        // nothing in 400 years never will.
        for year in firstYear...(firstYear + 402) {
            let (start, end) = daylightTransitions(inYear: year)!
            // Beyond the limit every instant reads as the limit: nothing changes there.
            if min(start, end) > instantLimit { break }
            for instant in [start, end] where instant > t && instant < (found?.instant ?? Int.max) {
                let before = localTimeType(at: instant - 1)
                let after = localTimeType(at: instant)
                if before != after { found = ZoneTransition(instant: instant, before: before, after: after) }
            }
            // Later years' changes all come after the end of the year following the found one.
            if let f = found, year > civil(fromDays: floorDiv(f.instant + standard.utcOffset, 86_400)).year {
                return f
            }
        }
        return found
    }
}

extension POSIXTZString.Transition {
    /// Seconds after 1970-01-01 00:00 on the local wall clock at which this change happens in `year`.
    func localSeconds(inYear year: Int) -> Int {
        day.dayNumber(inYear: year) * 86_400 + time
    }
}

extension POSIXTZString.Day {
    /// Days since 1970-01-01 of this day in `year`.
    func dayNumber(inYear year: Int) -> Int {
        let january1 = days(fromCivil: year, 1, 1)
        switch self {
        case .julian(let n):
            // February 29 is never counted: J60 is March 1 in every year.
            return january1 + n - 1 + (isLeapYear(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return january1 + n
        case .monthWeekDay(let month, let week, let weekday):
            let first = days(fromCivil: year, month, 1)
            var dayOfMonth = 1 + (weekday - dayOfWeek(first) + 7) % 7 + (week - 1) * 7
            // Week 5 is the last such weekday, which may be the fourth.
            if dayOfMonth > daysInMonth(year, month) { dayOfMonth -= 7 }
            return first + dayOfMonth - 1
        }
    }
}
