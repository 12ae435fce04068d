/// What a reminder says: literal text, and the places where the clock fills in the time, the date
/// or the value (`{time}`, `{date}`, `{value}` in the config's `say`).
public struct ReminderTemplate: Hashable, Sendable, CustomStringConvertible {
    public enum Segment: Hashable, Sendable {
        /// Words as written: rendered ahead of time by the pack's synthesis engine.
        case text(String)
        /// The time of the reminder's minute, in the pack's words.
        case time
        /// The date of the reminder's day, in the pack's words.
        case date
        /// The value (`[value]`), in the pack's words; left out when none is fresh.
        case value
    }

    public var segments: [Segment]
    /// The template as written in the config.
    public var source: String

    /// The placeholders a template may hold.
    public static let placeholders = ["{time}", "{date}", "{value}"]

    /// Reads a template. `{{` and `}}` are literal braces.
    /// - Throws: a sentence naming the unknown placeholder or the unclosed brace (the caller adds
    ///   the file, line and key).
    public init(parsing text: String) throws(PhraseRequestError) {
        source = text
        var segments: [Segment] = []
        var literal = ""
        var i = text.startIndex
        func flush() {
            if !literal.isEmpty { segments.append(.text(literal)) }
            literal = ""
        }
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if c == "{", next < text.endIndex, text[next] == "{" {
                literal.append("{")
                i = text.index(after: next)
                continue
            }
            if c == "}", next < text.endIndex, text[next] == "}" {
                literal.append("}")
                i = text.index(after: next)
                continue
            }
            if c == "}" {
                throw PhraseRequestError(
                    "a '}' without its '{' in \(TOMLQuote.quoted(text)); write '}}' for a brace that is said, or use "
                        + Self.placeholders.joined(separator: ", ") + ".")
            }
            guard c == "{" else {
                literal.append(c)
                i = next
                continue
            }
            guard let close = text[next...].firstIndex(of: "}") else {
                throw PhraseRequestError(
                    "a '{' that is never closed in \(TOMLQuote.quoted(text)); the placeholders are "
                        + Self.placeholders.joined(separator: ", ") + " (write '{{' for a brace that is said).")
            }
            let name = text[next..<close].lowercased()
            flush()
            switch name {
            case "time": segments.append(.time)
            case "date": segments.append(.date)
            case "value": segments.append(.value)
            default:
                throw PhraseRequestError(
                    "unknown placeholder {\(text[next..<close])} in \(TOMLQuote.quoted(text)); a reminder can say "
                        + Self.placeholders.joined(separator: ", ") + ".")
            }
            i = text.index(after: close)
        }
        flush()
        // Punctuation alone ("{time}.") says nothing: it is not rendered.
        self.segments = segments.compactMap { segment in
            if case .text(let t) = segment {
                let trimmed = t.trimmingWhitespace()
                guard trimmed.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil }) else {
                    return nil
                }
                return .text(trimmed)
            }
            return segment
        }
    }

    /// The literal texts a synthesis engine must render, in order.
    public var texts: [String] {
        segments.compactMap { if case .text(let t) = $0 { return t } else { return nil } }
    }

    public var usesValue: Bool { segments.contains(.value) }
    public var usesDate: Bool { segments.contains(.date) }

    public var description: String { source }
}

/// A date a reminder is due on: once (`2026-12-24`) or every year (`12-24`).
public enum ReminderDate: Hashable, Sendable, CustomStringConvertible {
    case once(CalendarDate)
    case yearly(month: Int, day: Int)

    /// Reads `YYYY-MM-DD` or `MM-DD`.
    /// - Throws: a sentence naming the value and what is wrong (no such day, wrong form).
    public init(parsing text: String) throws(PhraseRequestError) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                let m = Int(parts[0]), let d = Int(parts[1])
            else {
                throw PhraseRequestError("'\(text)' is not a date; write YYYY-MM-DD for once (2026-12-24) or MM-DD for every year (12-24).")
            }
            guard (1...12).contains(m) else {
                throw PhraseRequestError("'\(text)' is not a date: there is no month \(m); months are 01 to 12.")
            }
            guard (1...CalendarDate.days(inMonth: m, year: 2024)).contains(d) else {
                throw PhraseRequestError(
                    "'\(text)' is not a date: \(CalendarDate.monthNames[m - 1]) has \(CalendarDate.days(inMonth: m, year: 2024)) days.")
            }
            self = .yearly(month: m, day: d)
            return
        }
        do { self = .once(try CalendarDate(parsing: text)) } catch {
            if parts.count == 3 { throw error }
            throw PhraseRequestError("'\(text)' is not a date; write YYYY-MM-DD for once (2026-12-24) or MM-DD for every year (12-24).")
        }
    }

    /// Whether the reminder is due on `date`. A yearly 02-29 is due on 29 February of leap years only.
    public func matches(_ date: CalendarDate) -> Bool {
        switch self {
        case .once(let d): d == date
        case .yearly(let m, let d): date.month == m && date.day == d
        }
    }

    /// "2026-12-24", "12-24".
    public var description: String {
        switch self {
        case .once(let d): d.description
        case .yearly(let m, let d): "\(pad(m, 2))-\(pad(d, 2))"
        }
    }
}

/// A hush a reminder may speak through (`speaks-through` in `[[reminder]]`).
public enum ReminderThrough: String, Hashable, Sendable, CaseIterable {
    /// The mute (`mute`, the Home Assistant switch, `mute for …`).
    case mute
    /// Quiet hours.
    case quiet
    /// A call or do-not-disturb (`[courtesy]`).
    case courtesy
}

/// A `[[reminder]]`: one or more times of day, on weekdays or on dates, with words or a clip, said
/// alone at its instant or right after the time of that minute.
public struct Reminder: Hashable, Sendable, CustomStringConvertible {
    public enum Days: Hashable, Sendable {
        case weekdays(Weekdays)
        case dates([ReminderDate])
    }

    public enum Content: Hashable, Sendable {
        case text(ReminderTemplate)
        /// An audio file (an absolute path once the config is read).
        case clip(path: String)
    }

    /// Minutes after local midnight, sorted, each once.
    public var times: [Int]
    public var days: Days
    public var content: Content
    /// Said right after the time of its minute (the time is said then even if the minute is not a
    /// boundary); false: alone at its instant (one announcement with the time when the instant is
    /// also a boundary).
    public var append: Bool
    public var speaksThrough: Set<ReminderThrough>
    /// Where it is written ("config.toml: line 12"), for messages.
    public var origin: String
    /// The line of its `[[reminder]]` header (nil when not read from a file).
    public var line: Int?

    public init(
        times: [Int], days: Days = .weekdays(.daily), content: Content, append: Bool = false,
        speaksThrough: Set<ReminderThrough> = [], origin: String = "", line: Int? = nil
    ) {
        self.line = line
        self.times = Array(Set(times)).sorted()
        self.days = days
        self.content = content
        self.append = append
        self.speaksThrough = speaksThrough
        self.origin = origin
    }

    /// Whether it is due on the local date `date`.
    public func isDue(on date: CalendarDate) -> Bool {
        switch days {
        case .weekdays(let w): w.contains(isoWeekday: date.weekday)
        case .dates(let dates): dates.contains { $0.matches(date) }
        }
    }

    /// What it says, as text: the template with its placeholders, or the clip's file name.
    public var label: String {
        switch content {
        case .text(let t): t.source
        case .clip(let path): "clip " + (path.split(separator: "/").last.map(String.init) ?? path)
        }
    }

    /// "09:05" for minute 545 of the day.
    public static func hhmm(_ minute: Int) -> String { "\(pad(minute / 60, 2)):\(pad(minute % 60, 2))" }

    /// "17:00 weekdays: feed the cat".
    public var description: String {
        let at = times.map { "\(pad($0 / 60, 2)):\(pad($0 % 60, 2))" }.joined(separator: ", ")
        let on: String
        switch days {
        case .weekdays(let w): on = w.description
        case .dates(let d): on = d.map(\.description).joined(separator: ", ")
        }
        return "\(at) \(on): \(label)"
    }
}

/// When reminders are due: pure functions of (reminders, instant, zone).
///
/// A reminder's time is looked up on each local date it is due: said at the first instant the
/// local clock reads it. A time the clock skips (the spring-forward gap) is said once, at the
/// instant the clock jumps past it (02:00 BST for 01:30 in London); a time the clock reads twice
/// (the fall-back hour) is said once, the first time.
public enum ReminderSchedule {
    /// The instant `reminder`'s `minute` is due on `date` in `zone`.
    public static func instant(minute: Int, on date: CalendarDate, in zone: Zone) -> Int {
        let found = CivilTime.instants(
            year: date.year, month: date.month, day: date.day, hour: minute / 60, minute: minute % 60, second: 0, in: zone)
        if let first = found.first { return first }
        // Skipped: the first instant whose local reading is after it (the transition).
        let local = CivilTime.days(year: date.year, month: date.month, day: date.day) * 86_400 + minute * 60
        var lo = local - 18 * 3600
        var hi = local + 18 * 3600
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if mid + zone.offset(at: mid) >= local { hi = mid } else { lo = mid }
        }
        return hi
    }

    /// The dates on which `reminder` may next be due, from `start` on: the next eight days for
    /// weekdays, the listed dates otherwise (each yearly date this year, the next and, for 29
    /// February, the next leap years).
    static func candidateDates(_ reminder: Reminder, from start: CalendarDate) -> [CalendarDate] {
        switch reminder.days {
        case .weekdays(let w):
            let first = CivilTime.days(year: start.year, month: start.month, day: start.day)
            return (0..<8).compactMap { k in
                let d = CivilTime.date(days: first + k)
                let date = CalendarDate(year: d.year, month: d.month, day: d.day)
                return date.flatMap { w.contains(isoWeekday: $0.weekday) ? $0 : nil }
            }
        case .dates(let dates):
            var result: [CalendarDate] = []
            for date in dates {
                switch date {
                case .once(let d): if d >= start { result.append(d) }
                case .yearly(let m, let d):
                    // The first two on or after `start` (the first may be earlier today than the
                    // instant asked about); 29 February every four years or so.
                    var found = 0
                    for year in start.year...(start.year + 9) where found < 2 {
                        if let c = CalendarDate(year: year, month: m, day: d), c >= start {
                            result.append(c)
                            found += 1
                        }
                    }
                }
            }
            return result.sorted()
        }
    }

    /// The first instant strictly after `instant` at which one of `reminders` is due; nil when none
    /// ever is again (one-off dates in the past).
    public static func next(after instant: Double, reminders: [Reminder], in zone: Zone) -> Int? {
        guard !reminders.isEmpty else { return nil }
        let t = Int(instant.rounded(.down))
        let local = CivilTime.local(t, in: zone)
        // A day back: a skipped time of yesterday can be due today, after midnight.
        let d = CivilTime.date(days: CivilTime.days(year: local.year, month: local.month, day: local.day) - 1)
        guard let start = CalendarDate(year: d.year, month: d.month, day: d.day) else { return nil }
        var best: Int?
        for reminder in reminders {
            for date in candidateDates(reminder, from: start) {
                var found: Int?
                for minute in reminder.times {
                    let at = Self.instant(minute: minute, on: date, in: zone)
                    if at > t, found.map({ at < $0 }) ?? true { found = at }
                }
                if let found {
                    if best.map({ found < $0 }) ?? true { best = found }
                    // Later dates are later (by more than any offset change) unless this one is
                    // only a day after the start: look at one more.
                    if date > start { break }
                }
            }
        }
        return best
    }

    /// The indices of `reminders` due exactly at `instant`, in config order.
    public static func due(at instant: Int, reminders: [Reminder], in zone: Zone) -> [Int] {
        guard !reminders.isEmpty else { return [] }
        let local = CivilTime.local(instant, in: zone)
        // A reminder is due at an instant whose local reading is one of its times, or (a time the
        // clock skipped) at the instant the offset changes: nothing else needs its dates looked at.
        let transition = zone.offset(at: instant - 1) != local.utcOffset
        guard local.second == 0 || transition else { return [] }
        let today = CivilTime.days(year: local.year, month: local.month, day: local.day)
        var result: [Int] = []
        for (i, reminder) in reminders.enumerated() {
            guard transition || reminder.times.contains(local.minuteOfDay) else { continue }
            var hit = false
            for k in [today, today - 1] where !hit {
                let d = CivilTime.date(days: k)
                guard let date = CalendarDate(year: d.year, month: d.month, day: d.day), reminder.isDue(on: date) else { continue }
                hit = reminder.times.contains { self.instant(minute: $0, on: date, in: zone) == instant }
            }
            if hit { result.append(i) }
        }
        return result
    }
}

/// A `[[away]]` range: whole local dates, `from` to `to` inclusive. Reminders pause; with
/// `silencesClock` the time is not said either.
public struct AwayRange: Hashable, Sendable, CustomStringConvertible {
    public var from: CalendarDate
    public var to: CalendarDate
    public var silencesClock: Bool

    public init(from: CalendarDate, to: CalendarDate, silencesClock: Bool = false) {
        self.from = from
        self.to = to
        self.silencesClock = silencesClock
    }

    public func covers(_ date: CalendarDate) -> Bool { from <= date && date <= to }

    /// "2026-08-01 to 2026-08-14 (the clock silent too)".
    public var description: String {
        "\(from) to \(to)" + (silencesClock ? " (the clock silent too)" : "")
    }
}

/// Volume by time of day: points (minute of the day, percent), interpolated in a straight line
/// between them and round midnight from the last to the first.
public struct VolumeCurve: Hashable, Sendable, CustomStringConvertible {
    public struct Point: Hashable, Sendable {
        public var minute: Int
        public var percent: Int
        public init(minute: Int, percent: Int) {
            self.minute = minute
            self.percent = percent
        }
    }

    /// Sorted by minute, each minute once, at least one.
    public let points: [Point]

    public init?(points: [Point]) {
        let sorted = points.sorted { $0.minute < $1.minute }
        guard !sorted.isEmpty, Set(sorted.map(\.minute)).count == sorted.count else { return nil }
        self.points = sorted
    }

    /// The volume (percent, rounded to the nearest) at a local time.
    public func percent(at time: LocalDateTime) -> Int {
        percent(atSecondOfDay: time.minuteOfDay * 60 + time.second)
    }

    public func percent(atSecondOfDay s: Int) -> Int {
        guard points.count > 1 else { return points[0].percent }
        // The point at or before s (the last one of the day before, if none), and the next after it.
        let beforeIndex = points.lastIndex { $0.minute * 60 <= s } ?? (points.count - 1)
        let afterIndex = (beforeIndex + 1) % points.count
        let a = points[beforeIndex]
        let b = points[afterIndex]
        var start = a.minute * 60
        var end = b.minute * 60
        var at = s
        if end <= start { end += 86_400 }
        if at < start { at += 86_400 }
        if start > at { start -= 86_400 }
        let fraction = Double(at - start) / Double(end - start)
        return Int((Double(a.percent) + (Double(b.percent) - Double(a.percent)) * fraction).rounded())
    }

    /// "07:00 70%, 21:00 40%, 23:00 20%".
    public var description: String {
        points.map { "\(pad($0.minute / 60, 2)):\(pad($0.minute % 60, 2)) \($0.percent)%" }.joined(separator: ", ")
    }
}

/// Where the value a reminder says (`{value}`) comes from: the latest reading on an MQTT topic (a
/// Home Assistant sensor's state), said with `unit`, left out when older than `maxAge` seconds.
public struct ValueSource: Hashable, Sendable {
    public var topic: String
    public var unit: ValueUnit
    public var maxAge: Int

    public init(topic: String, unit: ValueUnit, maxAge: Int) {
        self.topic = topic
        self.unit = unit
        self.maxAge = maxAge
    }
}

/// When the date is said with the time (`date` in the config).
public enum DateMode: String, Hashable, Sendable, CaseIterable {
    case never
    /// With the first announcement spoken on each local day.
    case first
}

/// Quotes a string for a message the way the config shows values.
enum TOMLQuote {
    static func quoted(_ s: String) -> String {
        "\"" + s.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
}

extension Config {
    /// The reminders whose words use `placeholder` (`\.usesDate`, `\.usesValue`), in order.
    func textReminders(using placeholder: KeyPath<ReminderTemplate, Bool>) -> [Reminder] {
        reminders.filter { r in
            if case .text(let t) = r.content { return t[keyPath: placeholder] }
            return false
        }
    }

    /// Whether the clock says dates at its instants: `date = "first"`, or `{date}` in a reminder.
    public var saysDates: Bool { date == .first || !textReminders(using: \.usesDate).isEmpty }

    /// The unit of the values the clock says at its instants (`{value}` in a reminder, read as
    /// `[value]` says), or nil when it says none.
    public var unitOfValuesSaid: ValueUnit? {
        guard let value, !textReminders(using: \.usesValue).isEmpty else { return nil }
        return value.unit
    }

    /// The pack words the clock never says at an instant with this config: the words only dates
    /// and values say, unless it says dates or values in that unit. The daemon checks them at load
    /// and does not keep them decoded (`SoundPack.preload(keeping:)`).
    public var wordsSaidOnlyOnDemand: Set<String> {
        let language = announcementStyle.phrase.language
        var needed = Set(
            SpokenLanguages.phrasings(of: language).flatMap { SpokenLanguages.vocabulary(of: language, phrasing: $0) })
        var candidates = Set(SpokenLanguages.dateWords(of: language))
        if saysDates { needed.formUnion(candidates) }
        for unit in SpokenLanguages.units(of: language) {
            let words = SpokenLanguages.valueWords(of: language, unit: unit)
            candidates.formUnion(words)
            if unit == unitOfValuesSaid { needed.formUnion(words) }
        }
        return candidates.subtracting(needed)
    }

    /// What the configured pack cannot say of what the config asks it to (the date with the first
    /// announcement, `{date}` and `{value}` in reminders), each a sentence with the key and the fix;
    /// empty when it can say all of it. `available`: the pack's clip ids; `pack`: its name and
    /// directory for the fix.
    public func wordProblems(available: Set<String>, pack: String, directory: String) -> [String] {
        var problems: [String] = []
        let language = announcementStyle.phrase.language
        let dateUsers =
            (date == .first ? ["date = \"first\""] : [])
            + textReminders(using: \.usesDate).map { "{date} in the reminder at \($0.origin)" }
        if !dateUsers.isEmpty {
            let coverage = Vocabulary.dateCoverage(available: available, language: language)
            if !coverage.isComplete {
                problems.append(
                    "\(dateUsers.joined(separator: " and ")) says the date, but sound pack '\(pack)' cannot say \(coverage.unsayable) of the 366 dates of a year (it has no clip"
                        + (coverage.missing.count == 1 ? " " : "s ") + coverage.missing.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
                        + (coverage.missing.count > 8 ? ", …" : "")
                        + "); " + RecordingScript.missingWordsFix(directory: directory, language: language, flag: "--dates") + ".")
            }
        }
        if let value {
            let users = textReminders(using: \.usesValue)
            if !users.isEmpty {
                let coverage = Vocabulary.valueCoverage(available: available, language: language, unit: value.unit)
                if !coverage.isComplete {
                    problems.append(
                        "{value} in the reminder at \(users[0].origin) says a value in \(value.unit), but sound pack '\(pack)' cannot say \(coverage.unsayable) of its \(coverage.total) values (it has no clip"
                            + (coverage.missing.count == 1 ? " " : "s ") + coverage.missing.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
                            + (coverage.missing.count > 8 ? ", …" : "")
                            + "); " + RecordingScript.missingWordsFix(directory: directory, language: language, flag: "--values") + ".")
                }
            }
        }
        return problems
    }
}
