import FoundationEssentials
import TOML

extension Config {
    /// The keys of a `[[window]]`.
    public static let windowKeys = ["days", "from", "to", "interval"]
    /// The keys of a `[[reminder]]`.
    public static let reminderKeys = ["at", "days", "dates", "say", "clip", "append", "speaks-through"]
    /// The keys of a `[[away]]` range.
    public static let awayKeys = ["from", "to", "clock"]
    /// The keys of a `volume-curve` point.
    public static let curveKeys = ["at", "volume"]
    /// The keys of `[value]`.
    public static let valueKeys = ["topic", "unit", "max-age"]

    /// The longest text a reminder may say (it is rendered, and MQTT carries it).
    public static let maximumReminderText = 400
}

/// The config's rhythm and words: intervals, windows, reminders, away ranges, the volume curve and
/// the value.
extension ConfigReader {
    // MARK: Intervals

    static let intervalChoices = "\"quarter\", \"half\", \"hour\", or minutes that divide 60: \"1m\", \"2m\", \"3m\", \"4m\", \"5m\", \"6m\", \"10m\", \"12m\", \"15m\", \"20m\", \"30m\", \"60m\""

    func interval(_ entry: TOMLTable.Entry, section: String? = nil) throws(ConfigError) -> Interval {
        let expectation = "\(name(entry, section)) must be \(Self.intervalChoices)"
        let text: String
        switch entry.value {
        case .string(let s): text = s
        case .integer(let v):
            let hint = Interval(minutes: Int(clamping: v)).map { "; write \(entry.key) = \"\($0.minutes)m\"" } ?? ""
            throw fail(entry, key: keyName(entry, section), "\(expectation), not the number \(v)\(hint).")
        default:
            throw fail(entry, key: keyName(entry, section), "\(expectation), not \(entry.value.userDescription).")
        }
        if let interval = Interval(rawValue: text) { return interval }
        if let n = Interval.minutesWritten(text.trimmingWhitespace().lowercased()) {
            let near = Interval.divisors.min { abs($0 - n) < abs($1 - n) } ?? 15
            throw fail(
                entry, key: keyName(entry, section),
                "\(name(entry, section)) is \(TOMLValue.quoted(text)), but \(n) minutes does not divide the hour, so the boundaries would drift from hour to hour; use a divisor of 60 such as \"\(near)m\" (\(Self.intervalChoices)).")
        }
        var message = "\(expectation), not \(TOMLValue.quoted(text))"
        if let near = Suggestion.closest(to: text, in: ["quarter", "half", "hour"]) { message += "; did you mean \"\(near)\"?" }
        throw fail(entry, key: keyName(entry, section), message.hasSuffix("?") ? message : message + ".")
    }

    /// "window.interval" for a key inside a section, "interval" at the top.
    func keyName(_ entry: TOMLTable.Entry, _ section: String?) -> String {
        guard let section else { return entry.key }
        return "\(Self.tableName(section)).\(entry.key)"
    }

    /// "window" for "[[window]]".
    static func tableName(_ section: String) -> String {
        String(section.filter { $0 != "[" && $0 != "]" })
    }

    /// The tables of an array of tables (`[[name]]`), or the error naming how to write it.
    func tables(_ entry: TOMLTable.Entry, section: String, example: String) throws(ConfigError) -> [TOMLTable] {
        switch entry.value {
        case .array(let items):
            var tables: [TOMLTable] = []
            for item in items {
                guard case .table(let table) = item else {
                    throw fail(
                        entry,
                        "'\(entry.key)' must be a list of \(section) sections (or inline tables), not an array containing \(item.userDescription).")
                }
                tables.append(table)
            }
            return tables
        case .table:
            throw fail(entry, "\(section) is written with two brackets, because there can be several; change [\(entry.key)] to \(section).")
        default:
            throw fail(entry, "'\(entry.key)' must be a list of \(section) sections, such as:\n\(example)\nnot \(entry.value.userDescription).")
        }
    }

    // MARK: Windows

    static let windowSection = "[[window]]"

    func windows(_ entry: TOMLTable.Entry) throws(ConfigError) -> [IntervalWindow] {
        let section = Self.windowSection
        var windows: [IntervalWindow] = []
        for table in try tables(entry, section: section, example: "[[window]]\ndays = \"weekdays\"\nfrom = \"08:00\"\nto = \"09:00\"\ninterval = \"5m\"") {
            var days: Weekdays = .daily
            var from: Int?
            var to: (minute: Int, entry: TOMLTable.Entry)?
            var interval: Interval?
            for e in table.entries {
                switch e.key {
                case "days": days = try self.days(e, section: section, table: "window")
                case "from": from = try clockTime(e, allowEndOfDay: false, section: section, table: "window")
                case "to": to = (try clockTime(e, allowEndOfDay: true, section: section, table: "window"), e)
                case "interval": interval = try self.interval(e, section: section)
                default: throw unknownKey(e, known: Config.windowKeys, section: section)
                }
            }
            guard let from else {
                throw missing(table, key: "window.from", "the \(section) has no 'from' time; add one such as from = \"08:00\" (24-hour HH:MM).")
            }
            guard let to else {
                throw missing(table, key: "window.to", "the \(section) has no 'to' time; add one such as to = \"09:00\" (24-hour HH:MM).")
            }
            guard let interval else {
                throw missing(table, key: "window.interval", "the \(section) has no 'interval'; add one such as interval = \"5m\" (every 5 minutes within the window).")
            }
            if from == to.minute {
                throw fail(
                    to.entry, key: "window.to",
                    "'from' and 'to' in \(section) are both \(hhmm(from)), so the window would be empty; for a whole day use from = \"00:00\" and to = \"24:00\".")
            }
            windows.append(IntervalWindow(days: days, from: from, to: to.minute, interval: interval))
        }
        return windows
    }

    // MARK: Reminders

    static let reminderSection = "[[reminder]]"

    func reminders(_ entry: TOMLTable.Entry) throws(ConfigError) -> [Reminder] {
        let section = Self.reminderSection
        var reminders: [Reminder] = []
        for table in try tables(entry, section: section, example: "[[reminder]]\nat = \"09:00\"\ndays = \"weekdays\"\nsay = \"Stand-up meeting\"") {
            var times: [Int]?
            var days: (value: Weekdays, entry: TOMLTable.Entry)?
            var dates: (value: [ReminderDate], entry: TOMLTable.Entry)?
            var say: (value: ReminderTemplate, entry: TOMLTable.Entry)?
            var clip: (value: String, entry: TOMLTable.Entry)?
            var append = false
            var through: Set<ReminderThrough> = []
            for e in table.entries {
                switch e.key {
                case "at": times = try reminderTimes(e)
                case "days": days = (try self.days(e, section: section, table: "reminder"), e)
                case "dates": dates = (try reminderDates(e), e)
                case "say": say = (try template(e), e)
                case "clip":
                    clip = (try nonEmptyString(e, "the path of an audio file (WAV, FLAC or Ogg) such as \"sounds/cat.flac\"", fallback: "'say'"), e)
                case "append": append = try bool(e)
                case "speaks-through": through = try speaksThrough(e)
                default: throw unknownKey(e, known: Config.reminderKeys, section: section)
                }
            }
            let line = table.position.line
            guard let times else {
                throw missing(table, key: "reminder.at", "the \(section) has no 'at' time; add one such as at = \"09:00\", or several: at = [\"09:00\", \"13:00\"].")
            }
            if let days, dates != nil {
                throw fail(
                    days.entry, key: "reminder.days",
                    "a \(section) has 'days' (weekdays) or 'dates' (YYYY-MM-DD once, MM-DD every year), not both; remove one of them.")
            }
            let content: Reminder.Content
            switch (say, clip) {
            case (.some(let text), nil): content = .text(text.value)
            case (nil, .some(let file)): content = .clip(path: file.value)
            case (.some, .some(let file)):
                throw fail(
                    file.entry, key: "reminder.clip",
                    "a \(section) says a text ('say') or plays a recording ('clip'), not both; remove one of them.")
            case (nil, nil):
                throw ConfigError(
                    source: source, line: line, key: "reminder.say",
                    message: "the \(section) says nothing; add say = \"Stand-up meeting\" (words) or clip = \"path/to/recording.flac\" (a recording).")
            }
            reminders.append(
                Reminder(
                    times: times, days: dates.map { .dates($0.value) } ?? .weekdays(days?.value ?? .daily), content: content,
                    append: append, speaksThrough: through, origin: "\(source): line \(line)", line: line))
        }
        return reminders
    }

    func reminderTimes(_ entry: TOMLTable.Entry) throws(ConfigError) -> [Int] {
        let section = Self.reminderSection
        switch entry.value {
        case .array(let items):
            guard !items.isEmpty else {
                throw fail(entry, key: "reminder.at", "'at' in \(section) is an empty list; give a time such as at = \"09:00\".")
            }
            var times: [Int] = []
            for item in items {
                var one = entry
                one.value = item
                times.append(try clockTime(one, allowEndOfDay: false, section: section, table: "reminder"))
            }
            return times
        default:
            return [try clockTime(entry, allowEndOfDay: false, section: section, table: "reminder")]
        }
    }

    func reminderDates(_ entry: TOMLTable.Entry) throws(ConfigError) -> [ReminderDate] {
        let section = Self.reminderSection
        let expectation =
            "'dates' in \(section) must list dates as strings: \"YYYY-MM-DD\" for once (\"2026-12-24\"), \"MM-DD\" for every year (\"12-24\")"
        func one(_ value: TOMLValue) throws(ConfigError) -> ReminderDate {
            switch value {
            case .string(let s):
                do { return try ReminderDate(parsing: s.trimmingWhitespace()) } catch {
                    throw fail(entry, key: "reminder.dates", "\(error.message) ('dates' in \(section))")
                }
            case .dateTime(let d) where d.kind == .localDate:
                let date = d.date!
                guard let c = CalendarDate(year: date.year, month: date.month, day: date.day) else {
                    throw fail(entry, key: "reminder.dates", "\(expectation); \(d) is not a date.")
                }
                return .once(c)
            default:
                throw fail(entry, key: "reminder.dates", "\(expectation), not \(value.userDescription).")
            }
        }
        switch entry.value {
        case .array(let items):
            guard !items.isEmpty else {
                throw fail(entry, key: "reminder.dates", "'dates' in \(section) is an empty list, so the reminder would never be said; list dates such as [\"2026-12-24\"], or remove 'dates' to mean every day.")
            }
            var dates: [ReminderDate] = []
            for item in items { dates.append(try one(item)) }
            return dates
        default:
            return [try one(entry.value)]
        }
    }

    func template(_ entry: TOMLTable.Entry) throws(ConfigError) -> ReminderTemplate {
        let section = Self.reminderSection
        let text = try string(entry, "the words to say, such as \"Stand-up meeting\"", section: section)
        guard !text.trimmingWhitespace().isEmpty else {
            throw fail(entry, key: "reminder.say", "'say' in \(section) is empty; give the words to say, such as say = \"Stand-up meeting\", or a recording with clip = \"…\".")
        }
        guard text.count <= Config.maximumReminderText else {
            throw fail(
                entry, key: "reminder.say",
                "'say' in \(section) is \(text.count) characters; a reminder says at most \(Config.maximumReminderText) (split it into two reminders, or record it as a clip).")
        }
        if let odd = text.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw fail(
                entry, key: "reminder.say",
                "'say' in \(section) holds a control character (U+\(String(odd.value, radix: 16, uppercase: true))); write the words on one line.")
        }
        do { return try ReminderTemplate(parsing: text) } catch {
            throw fail(entry, key: "reminder.say", "'say' in \(section): \(error.message)")
        }
    }

    func speaksThrough(_ entry: TOMLTable.Entry) throws(ConfigError) -> Set<ReminderThrough> {
        let names = ReminderThrough.allCases.map(\.rawValue)
        let expectation =
            "'speaks-through' in \(Self.reminderSection) must list what the reminder speaks through: \(Suggestion.list(names)), such as [\"quiet\"]"
        let items: [TOMLValue]
        switch entry.value {
        case .array(let a): items = a
        case .string: items = [entry.value]
        default: throw fail(entry, key: "reminder.speaks-through", "\(expectation), not \(entry.value.userDescription).")
        }
        var result: Set<ReminderThrough> = []
        for item in items {
            guard case .string(let s) = item, let value = ReminderThrough(rawValue: s.lowercased().trimmingWhitespace()) else {
                var message = "\(expectation); \(item.userDescription) is not one of them"
                if case .string(let s) = item, let near = Suggestion.closest(to: s, in: names) { message += " (did you mean \"\(near)\"?)" }
                throw fail(entry, key: "reminder.speaks-through", message + ".")
            }
            result.insert(value)
        }
        return result
    }

    // MARK: Away

    static let awaySection = "[[away]]"

    func awayRanges(_ entry: TOMLTable.Entry) throws(ConfigError) -> [AwayRange] {
        let section = Self.awaySection
        var ranges: [AwayRange] = []
        for table in try tables(entry, section: section, example: "[[away]]\nfrom = \"2026-08-01\"\nto = \"2026-08-14\"") {
            var from: CalendarDate?
            var to: (date: CalendarDate, entry: TOMLTable.Entry)?
            var silences = false
            for e in table.entries {
                switch e.key {
                case "from": from = try calendarDate(e, section: section)
                case "to": to = (try calendarDate(e, section: section), e)
                case "clock":
                    switch try choice(e, AwayClock.allCases, section: section) {
                    case .speaks: silences = false
                    case .silent: silences = true
                    }
                default: throw unknownKey(e, known: Config.awayKeys, section: section)
                }
            }
            guard let from else {
                throw missing(table, key: "away.from", "the \(section) range has no 'from' date; add one such as from = \"2026-08-01\" (the first day away).")
            }
            guard let to else {
                throw missing(table, key: "away.to", "the \(section) range has no 'to' date; add one such as to = \"2026-08-14\" (the last day away, included).")
            }
            guard from <= to.date else {
                throw fail(
                    to.entry, key: "away.to",
                    "'to' (\(to.date)) is before 'from' (\(from)) in \(section); 'to' is the last day away, on or after 'from'.")
            }
            ranges.append(AwayRange(from: from, to: to.date, silencesClock: silences))
        }
        return ranges
    }

    func calendarDate(_ entry: TOMLTable.Entry, section: String) throws(ConfigError) -> CalendarDate {
        let table = Self.tableName(section)
        switch entry.value {
        case .string(let s):
            do { return try CalendarDate(parsing: s.trimmingWhitespace()) } catch {
                throw fail(entry, key: "\(table).\(entry.key)", "\(name(entry, section)): \(error.message)")
            }
        case .dateTime(let d) where d.kind == .localDate:
            let date = d.date!
            if let c = CalendarDate(year: date.year, month: date.month, day: date.day) { return c }
            throw fail(entry, key: "\(table).\(entry.key)", "\(name(entry, section)) is not a date: \(d).")
        default:
            throw fail(
                entry, key: "\(table).\(entry.key)",
                "\(name(entry, section)) must be a date such as \"2026-08-01\" (YYYY-MM-DD), not \(entry.value.userDescription).")
        }
    }

    // MARK: The volume curve

    func volumeCurve(_ entry: TOMLTable.Entry) throws(ConfigError) -> VolumeCurve {
        let section = "volume-curve"
        let example = "volume-curve = [{ at = \"07:00\", volume = 70 }, { at = \"21:00\", volume = 40 }, { at = \"23:00\", volume = 20 }]"
        guard case .array(let items) = entry.value else {
            throw fail(entry, "'volume-curve' must be a list of points such as \(example), not \(entry.value.userDescription).")
        }
        guard !items.isEmpty else {
            throw fail(entry, "'volume-curve' is an empty list; give points such as \(example), or remove it.")
        }
        var points: [VolumeCurve.Point] = []
        var seen: [Int: Int] = [:]
        for (n, item) in items.enumerated() {
            guard case .table(let table) = item else {
                throw fail(entry, "'volume-curve' must be a list of points, each { at = \"HH:MM\", volume = PERCENT }: \(example); point \(n + 1) is \(item.userDescription).")
            }
            var at: Int?
            var volume: Int?
            for e in table.entries {
                switch e.key {
                case "at": at = try clockTime(e, allowEndOfDay: false, section: section, table: "volume-curve")
                case "volume": volume = try percent(e, section: section)
                default: throw unknownKey(e, known: Config.curveKeys, section: section)
                }
            }
            guard let at, let volume else {
                throw fail(
                    entry, key: "volume-curve",
                    "point \(n + 1) of 'volume-curve' needs both 'at' and 'volume', such as { at = \"07:00\", volume = 70 }.")
            }
            if let first = seen[at] {
                throw fail(
                    entry, key: "volume-curve",
                    "points \(first + 1) and \(n + 1) of 'volume-curve' are both at \(hhmm(at)); give each time of day once.")
            }
            seen[at] = n
            points.append(VolumeCurve.Point(minute: at, percent: volume))
        }
        return VolumeCurve(points: points)!
    }

    // MARK: The value

    func value(_ entry: TOMLTable.Entry) throws(ConfigError) -> ValueSource {
        let section = "[value]"
        guard case .table(let table) = entry.value else {
            throw fail(
                entry,
                "'value' must be a table: write [value] on a line of its own with topic = \"…\" and unit = \"degrees\" under it, not \(entry.value.userDescription).")
        }
        var topic: String?
        var unit: ValueUnit?
        var maxAge = 3600
        for e in table.entries {
            switch e.key {
            case "topic":
                let t = try nonEmptyString(e, "the MQTT topic of the reading, such as \"homeassistant/sensor/outdoor/state\"", fallback: "no value")
                guard !t.contains("+"), !t.contains("#") else {
                    throw fail(e, key: "value.topic", "'topic' in [value] is \(TOMLValue.quoted(t)); name one topic, without the wildcards + and #.")
                }
                topic = t
            case "unit":
                let u = try string(e, "a unit such as \"degrees\" or \"percent\"", section: section)
                let known = [ValueUnit.degrees, ValueUnit.percent].map(\.rawValue)
                guard known.contains(u) else {
                    var message = "'unit' in [value] must be \(Suggestion.list(known)), not \(TOMLValue.quoted(u))"
                    if let near = Suggestion.closest(to: u, in: known) { message += "; did you mean \"\(near)\"?" } else { message += "." }
                    throw fail(e, key: "value.unit", message)
                }
                unit = ValueUnit(rawValue: u)
            case "max-age":
                let text = try string(e, "a duration such as \"30m\" or \"2h\"", section: section)
                do throws(MuteError) { maxAge = try Mute.parseDuration(text) } catch {
                    throw fail(e, key: "value.max-age", "'max-age' in [value]: \(error.description)")
                }
            default: throw unknownKey(e, known: Config.valueKeys, section: section)
            }
        }
        guard let topic else {
            throw missing(table, key: "value.topic", "[value] has no 'topic'; add the MQTT topic of the reading, such as topic = \"homeassistant/sensor/outdoor_temperature/state\".")
        }
        guard let unit else {
            throw missing(table, key: "value.unit", "[value] has no 'unit'; add unit = \"degrees\" or unit = \"percent\".")
        }
        return ValueSource(topic: topic, unit: unit, maxAge: maxAge)
    }
}

/// The spelling of an away range's `clock`.
enum AwayClock: String, CaseIterable {
    case speaks
    case silent
}

extension Config {
    /// What is wrong with the configuration as a whole (what no single key shows): a `[value]`
    /// without `[mqtt]`, a `{value}` without `[value]`, windows whose overlap is worth knowing.
    /// Nil when nothing is. Called after parsing by `parse`.
    func crossCheck(source: String) throws(ConfigError) {
        if value != nil && mqtt == nil {
            throw ConfigError(
                source: source, key: "value",
                message: "[value] reads an MQTT topic, but there is no [mqtt] table; add one with broker = \"mqtt://…\", or remove [value].")
        }
        for reminder in reminders {
            if case .text(let t) = reminder.content, t.usesValue, value == nil {
                throw ConfigError(
                    source: source, line: reminder.line, key: "reminder.say",
                    message: "'say' in [[reminder]] says {value}, but there is no [value] table to read it from; add [value] with topic and unit, or take {value} out.")
            }
        }
    }
}
