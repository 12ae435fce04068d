import PhraseGrammar
import Synchronization
import TimeZoneRules

/// A day of the (proleptic Gregorian) calendar: what `say --date` speaks, and what the daemon
/// will say with the first announcement of a day.
public struct CalendarDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Nil when the month has no such day (2023-02-29, 2026-04-31) or a number is out of range.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...CalendarDate.days(inMonth: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Reads `YYYY-MM-DD` (ISO 8601, the form `say --date` takes).
    /// - Throws: a `PhraseRequestError` that says what is wrong and gives an example.
    public init(parsing text: String) throws(PhraseRequestError) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let digits = parts.map { $0.allSatisfy { $0.isASCII && $0.isNumber } && !$0.isEmpty }
        guard parts.count == 3, digits.allSatisfy({ $0 }), parts[0].count == 4, parts[1].count == 2,
            parts[2].count == 2, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
        else {
            throw PhraseRequestError("'\(text)' is not a date; write it YYYY-MM-DD, e.g. 2026-11-28.")
        }
        guard (1...12).contains(m) else {
            throw PhraseRequestError("'\(text)' is not a date: there is no month \(m); months are 01 to 12.")
        }
        guard y >= 1 else {
            throw PhraseRequestError("'\(text)' is not a date: years start at 0001.")
        }
        let length = CalendarDate.days(inMonth: m, year: y)
        guard (1...length).contains(d) else {
            throw PhraseRequestError(
                "'\(text)' is not a date: \(CalendarDate.monthNames[m - 1]) \(y) has \(length) days.")
        }
        self.init(year: y, month: m, day: d)!
    }

    /// The date of a local time ("today" where the clock is).
    public init(_ local: LocalDateTime) {
        self.init(year: local.year, month: local.month, day: local.day)!
    }

    /// The ISO day of the week: 1 = Monday … 7 = Sunday.
    public var weekday: Int {
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let r = (days + 3) % 7  // 1970-01-01 was a Thursday (4)
        return (r < 0 ? r + 7 : r) + 1
    }

    /// `2026-11-28`.
    public var description: String {
        let y = String(year)
        let m = String(month)
        let d = String(day)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + (m.count < 2 ? "0" : "") + m + "-"
            + (d.count < 2 ? "0" : "") + d
    }

    public static func < (a: CalendarDate, b: CalendarDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// Whether `year` has a 29 February.
    public static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    /// The days of `month` (1…12) in `year`.
    public static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Every day of a leap year (2024, from Monday 1 January): what `check` proves a pack can say.
    public static let leapYear: [CalendarDate] = (1...12).flatMap { m in
        (1...days(inMonth: m, year: 2024)).map { CalendarDate(year: 2024, month: m, day: $0)! }
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]
}

/// The unit a value is said with: "degrees" (Celsius: "twenty-one degrees", "minus drei Grad"),
/// "percent". A name, checked against the language's grammar (each language file says which units
/// it has; every shipped language has both).
public struct ValueUnit: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    /// Degrees Celsius: "twenty-one degrees", "двадцать один градус".
    public static let degrees: ValueUnit = "degrees"
    /// "sixty-five percent", "pięć procent".
    public static let percent: ValueUnit = "percent"
}

/// A date or a value the clock cannot say, or cannot read: a sentence that names it and the fix.
public struct PhraseRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

extension Phrase {
    /// The words of a date in `language`: "Saturday, November twenty-eighth" (en-US),
    /// "Saturday, the twenty-eighth of November" (en-GB), "samedi vingt-huit novembre",
    /// "суббота, двадцать восьмое ноября". Its words are clip ids, like a time's; the weekday is
    /// the date's own.
    ///
    /// - Throws: when `language` is unknown or says no date.
    public static func forDate(_ date: CalendarDate, language: String) throws(PhraseRequestError) -> Phrase {
        let grammar = try SpokenLanguages.datesAndValues(language)
        do throws(GrammarError) {
            let said = try grammar.date(weekday: date.weekday, day: date.day, month: date.month)
            var phrase = Phrase(words: said.words, text: said.text, language: grammar.tag)
            phrase.kind = .date
            return phrase
        } catch {
            throw PhraseRequestError(error.message)
        }
    }

    /// The words of a whole number with its unit in `language`: "minus three degrees",
    /// "dwadzieścia dwa stopnie", "vingt et un degrés", "cien por cien". The unit agrees with the
    /// number as the language says (Russian градус/градуса/градусов; a negative number agrees as
    /// its absolute value does: "минус два градуса").
    ///
    /// - Parameter value: within `SpokenLanguages.valueRange` (−99 … 150).
    /// - Throws: for a value out of range, a unit the language does not have, an unknown language.
    public static func forValue(_ value: Int, unit: ValueUnit, language: String) throws(PhraseRequestError) -> Phrase {
        let grammar = try SpokenLanguages.datesAndValues(language)
        do throws(GrammarError) {
            let said = try grammar.value(value, unit: unit.rawValue)
            var phrase = Phrase(words: said.words, text: said.text, language: grammar.tag)
            phrase.kind = .value
            return phrase
        } catch {
            throw PhraseRequestError(error.message)
        }
    }
}

extension Phrase {
    /// The whole number a sensor's reading says, for `forValue`: a Home Assistant state such as
    /// "21.6" or "-2.5", rounded to the nearest whole number, halves away from zero (22, −3).
    ///
    /// - Throws: for a reading that is not a finite decimal number ("unavailable", "unknown", "",
    ///   "nan") and for one outside `SpokenLanguages.valueRange` once rounded; the message names
    ///   the reading.
    public static func wholeNumber(reading: String) throws(PhraseRequestError) -> Int {
        let text = reading.trimmingWhitespace()
        let decimal =
            !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }
        guard decimal, let number = Double(text), number.isFinite else {
            throw PhraseRequestError("The reading '\(reading)' is not a number (a sensor's state such as 21.5 is).")
        }
        let range = SpokenLanguages.valueRange
        let rounded = number.rounded(.toNearestOrAwayFromZero)
        guard rounded >= Double(range.lowerBound), rounded <= Double(range.upperBound) else {
            throw PhraseRequestError(
                "The reading '\(reading)' is out of range: the clock says whole numbers from \(range.lowerBound) to \(range.upperBound)."
            )
        }
        return Int(rounded)
    }
}

extension SpokenLanguages {
    /// The values `Phrase.forValue` says: −99 … 150.
    public static let valueRange = Grammar.valueRange

    /// The units a language says values with ("degrees", "percent"); empty for an unknown tag.
    public static func units(of tag: String) -> [ValueUnit] {
        ((try? grammar(tag))?.units ?? []).map(ValueUnit.init(rawValue:))
    }

    /// Every word a date of `tag` can say, in the order the days of a leap year first need them:
    /// the clips a pack needs to say every date. Empty for an unknown tag.
    public static func dateWords(of tag: String) -> [String] {
        (try? datesAndValues(tag))?.dateWords() ?? []
    }

    /// Every word a value of `unit` can say in `tag` (0 … 150, then −1 … −99, in the order they
    /// first need them). Empty for an unknown tag or unit.
    public static func valueWords(of tag: String, unit: ValueUnit) -> [String] {
        (try? datesAndValues(tag))?.valueWords(unit: unit.rawValue) ?? []
    }

    private static let datesAndValuesCache = Mutex<[String: DatesAndValues]>([:])

    /// The dates and values of a known language, compiled on first use and then kept (`check`
    /// says 366 dates and 500 values), or the error a command shows for an unknown language.
    static func datesAndValues(_ tag: String) throws(PhraseRequestError) -> DatesAndValues {
        guard let key = canonical(tag), let grammar = try? grammar(key) else {
            throw PhraseRequestError("Unknown language \"\(tag)\"; the clock speaks: \(knownList).")
        }
        if let known = datesAndValuesCache.withLock({ $0[key] }) { return known }
        do throws(GrammarError) {
            let compiled = try grammar.datesAndValues()
            datesAndValuesCache.withLock { $0[key] = compiled }
            return compiled
        } catch {
            throw PhraseRequestError(error.message)
        }
    }
}

extension Vocabulary {
    /// How much of a set of phrases (every date of a year, every value of a unit) a pack can say:
    /// how many it cannot, and the words it lacks for them in the order they are first needed.
    public struct Coverage: Hashable, Sendable {
        /// How many phrases were tried.
        public var total: Int
        /// How many of them the pack cannot say.
        public var unsayable: Int
        /// The words of the unsayable phrases that have no clip of their own (and no English
        /// compound's parts), each once, in the order the phrases first need them.
        public var missing: [String]
        /// For each missing word, where it is first needed: the date or value ("2024-01-01", "-3")
        /// and the phrase ("Monday, January first").
        public var firstNeeded: [Need]

        public struct Need: Hashable, Sendable {
            public var label: String
            public var text: String
        }

        /// Whether the pack says every phrase.
        public var isComplete: Bool { unsayable == 0 }
    }

    /// Which dates of a leap year (366, every month's every day, each on its own weekday) the
    /// clips `available` cannot say in `language`.
    public static func dateCoverage(available: Set<String>, language: String) -> Coverage {
        coverage(
            CalendarDate.leapYear.compactMap { date in
                (try? Phrase.forDate(date, language: language)).map { (date.description, $0) }
            }, available: available)
    }

    /// Which values of `SpokenLanguages.valueRange` in `unit` the clips `available` cannot say in
    /// `language` (tried 0 … 150, then −1 … −99, the order the missing words are listed in).
    public static func valueCoverage(available: Set<String>, language: String, unit: ValueUnit) -> Coverage {
        let range = SpokenLanguages.valueRange
        return coverage(
            (Array(0...range.upperBound) + Array((range.lowerBound...(-1)).reversed())).compactMap { n in
                (try? Phrase.forValue(n, unit: unit, language: language)).map { ("\(n)", $0) }
            }, available: available)
    }

    static func coverage(_ phrases: [(label: String, phrase: Phrase)], available: Set<String>) -> Coverage {
        var result = Coverage(total: phrases.count, unsayable: 0, missing: [], firstNeeded: [])
        var listed = Set<String>()
        for (label, phrase) in phrases {
            do throws(VocabularyError) {
                _ = try cover(phrase, available: available)
                continue
            } catch {}
            result.unsayable += 1
            for word in phrase.words where single(word, phrase: phrase, available: available) == nil {
                if listed.insert(word).inserted {
                    result.missing.append(word)
                    result.firstNeeded.append(Coverage.Need(label: label, text: phrase.text))
                }
            }
        }
        return result
    }
}
