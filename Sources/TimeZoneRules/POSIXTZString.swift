/// A POSIX `TZ` string, `std offset [dst [offset] [,start[/time],end[/time]]]` (IEEE Std
/// 1003.1-2017, 8.3, as glibc's `__tzset_parse_tz` reads it and as TZif files end with, RFC 8536
/// section 3.3): `EST5`, `<+0530>-5:30`, `CET-1CEST,M3.5.0,M10.5.0/3`.
///
/// Only the grammar, strictly: trailing text that glibc would silently ignore is an error here.
/// The rules become instants in `POSIXTZString+Rules.swift` (`daylightTransitions(inYear:)`,
/// `localTimeType(at:)`), and a whole zone in `ZoneRules`.
public struct POSIXTZString: Hashable, Sendable {
    /// A zone abbreviation and its offset.
    public struct Zone: Hashable, Sendable {
        /// The abbreviation, without the angle brackets of the quoted form (`+0530` for `<+0530>`).
        public var name: String
        /// Seconds EAST of Greenwich, as `TimeZone(secondsFromGMT:)` counts. The string writes the
        /// opposite sign: `EST5` and `UTC+5` are 5 hours west, -18000 here.
        public var utcOffset: Int

        public init(name: String, utcOffset: Int) {
            self.name = name
            self.utcOffset = utcOffset
        }
    }

    /// The day of a change between standard and daylight time.
    public enum Day: Hashable, Sendable {
        /// `Jn`: day 1…365 of the year, February 29 never counted.
        case julian(Int)
        /// `n`: day 0…365 of the year, February 29 counted in leap years.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (1…5; 5 is the last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    /// A change: its day and the local time of day it happens at.
    public struct Transition: Hashable, Sendable {
        public var day: Day
        /// Seconds after local midnight; 7200 (02:00) unless given. RFC 8536 allows -167…167 hours.
        public var time: Int

        public init(day: Day, time: Int = 7200) {
            self.day = day
            self.time = time
        }
    }

    /// When daylight time starts and ends.
    public struct Rules: Hashable, Sendable {
        public var start: Transition
        public var end: Transition

        public init(start: Transition, end: Transition) {
            self.start = start
            self.end = end
        }
    }

    public var standard: Zone
    /// Daylight time, if the string names one.
    public var daylight: Zone?
    /// Nil when there is no daylight time, or when the string gives no rules (glibc then takes
    /// them from the `posixrules` zone file).
    public var rules: Rules?

    /// The offset (seconds east of Greenwich) at every instant when there is no daylight time:
    /// the string is then a fixed offset such as `EST5` or `UTC-3`.
    public var fixedOffset: Int? { daylight == nil ? standard.utcOffset : nil }

    public init(standard: Zone, daylight: Zone? = nil, rules: Rules? = nil) {
        self.standard = standard
        self.daylight = daylight
        self.rules = rules
    }

    /// Parses `text`; throws if any of it does not follow the grammar.
    ///
    /// `minimumNameLength`: the fewest characters a zone name may have. POSIX and glibc's
    /// `tzset` ask for 3, quoted or not (`TZ=AB2` is UTC to glibc, refused here). A TZif footer
    /// may hold shorter ones: zic writes what the zone's source says (`X-2XS,M3.5.0,M10.5.0/3`,
    /// `AB2`), and glibc reads such a file (its transitions; its own footer parser then gives up
    /// and falls back to UTC after the last transition, where Python's zoneinfo applies the
    /// rule), so `TZif` passes 1.
    public init(_ text: String, minimumNameLength: Int = 3) throws(POSIXTZError) {
        var p = Parser(bytes: Array(text.utf8), minimumName: max(1, minimumNameLength))
        let stdName = try p.name(what: "standard time")
        guard p.atOffset else {
            throw p.error("no offset after '\(stdName)' (such as EST5: 5 hours west of Greenwich)")
        }
        standard = Zone(name: stdName, utcOffset: -(try p.offset(maxHours: 24)))
        if p.atEnd { return }
        let dstName = try p.name(what: "daylight time")
        let dstOffset = p.atOffset ? -(try p.offset(maxHours: 24)) : standard.utcOffset + 3600
        daylight = Zone(name: dstName, utcOffset: dstOffset)
        if p.atEnd { return }
        try p.expect(",")
        let s = try p.transition()
        try p.expect(",")
        let e = try p.transition()
        guard p.atEnd else { throw p.error("unexpected text after the end rule") }
        rules = Rules(start: s, end: e)
    }
}

/// Why a string is not a POSIX `TZ` string.
public struct POSIXTZError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
}

private struct Parser {
    let bytes: [UInt8]
    let minimumName: Int
    var i = 0

    init(bytes: [UInt8], minimumName: Int) {
        self.bytes = bytes
        self.minimumName = minimumName
    }

    func characters(_ n: Int, _ unit: String) -> String { n == 1 ? "1 \(unit)" : "\(n) \(unit)s" }

    var atEnd: Bool { i == bytes.count }
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }
    var atOffset: Bool { peek.map { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || isDigit($0) } ?? false }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
    func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }

    func error(_ message: String) -> POSIXTZError {
        POSIXTZError(description: "\(message) (at character \(i + 1))")
    }

    mutating func expect(_ c: Character) throws(POSIXTZError) {
        guard peek == c.asciiValue else { throw error("expected '\(c)'") }
        i += 1
    }

    /// `[A-Za-z]{3,}` or `<[A-Za-z0-9+-]{3,}>` (3: `minimumName`).
    mutating func name(what: String) throws(POSIXTZError) -> String {
        let start = i
        if peek == UInt8(ascii: "<") {
            i += 1
            while let b = peek, isAlpha(b) || isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") { i += 1 }
            let name = String(decoding: bytes[(start + 1)..<i], as: UTF8.self)
            guard peek == UInt8(ascii: ">") else { throw error("the quoted \(what) name has no closing '>'") }
            i += 1
            guard name.utf8.count >= minimumName else {
                throw error("the \(what) name '<\(name)>' is shorter than \(characters(minimumName, "character"))")
            }
            return name
        }
        while let b = peek, isAlpha(b) { i += 1 }
        let name = String(decoding: bytes[start..<i], as: UTF8.self)
        guard name.utf8.count >= minimumName else {
            throw error(
                name.isEmpty
                    ? "expected the \(what) name" : "the \(what) name '\(name)' is shorter than \(characters(minimumName, "letter"))")
        }
        return name
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, with the string's sign (positive: west of Greenwich for a
    /// zone offset, after midnight for a rule time).
    mutating func offset(maxHours: Int) throws(POSIXTZError) -> Int {
        var sign = 1
        if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") {
            if peek == UInt8(ascii: "-") { sign = -1 }
            i += 1
        }
        let hours = try number(maxDigits: 3, what: "hours")
        guard hours <= maxHours else { throw error("\(hours) hours is out of range (at most \(maxHours))") }
        var seconds = hours * 3600
        for (unit, weight) in [("minutes", 60), ("seconds", 1)] {
            guard peek == UInt8(ascii: ":") else { break }
            i += 1
            let n = try number(maxDigits: 2, what: unit)
            guard n <= 59 else { throw error("\(n) \(unit) is out of range") }
            seconds += n * weight
        }
        return sign * seconds
    }

    mutating func number(maxDigits: Int, what: String) throws(POSIXTZError) -> Int {
        let start = i
        var n = 0
        while let b = peek, isDigit(b), i - start < maxDigits {
            n = n * 10 + Int(b - UInt8(ascii: "0"))
            i += 1
        }
        guard i > start else { throw error("expected \(what)") }
        return n
    }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time`.
    mutating func transition() throws(POSIXTZError) -> POSIXTZString.Transition {
        let day: POSIXTZString.Day
        if peek == UInt8(ascii: "J") {
            i += 1
            let n = try number(maxDigits: 3, what: "a day of the year")
            guard (1...365).contains(n) else { throw error("J\(n) is out of range (J1…J365)") }
            day = .julian(n)
        } else if peek == UInt8(ascii: "M") {
            i += 1
            let month = try number(maxDigits: 2, what: "a month")
            try expect(".")
            let week = try number(maxDigits: 1, what: "a week")
            try expect(".")
            let weekday = try number(maxDigits: 1, what: "a weekday")
            guard (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday) else {
                throw error("M\(month).\(week).\(weekday) is out of range (M1…12.1…5.0…6)")
            }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            let n = try number(maxDigits: 3, what: "a rule (Mm.w.d, Jn or n)")
            guard (0...365).contains(n) else { throw error("day \(n) is out of range (0…365)") }
            day = .zeroBased(n)
        }
        guard peek == UInt8(ascii: "/") else { return POSIXTZString.Transition(day: day) }
        i += 1
        return POSIXTZString.Transition(day: day, time: try offset(maxHours: 167))
    }
}
