/// A language's dates and values, compiled: the `"date"` and `"values"` of its file
/// (Languages/README.md). Like a time of day, each is a template over tables, so the agreement
/// (Russian "двадцать восьмое ноября", Polish "pięć stopni", French "un degré") is data.
///
/// Made by `Grammar.datesAndValues()`; callers that say many dates or values keep it.
public struct DatesAndValues: Sendable {
    /// The language tag ("de").
    public let tag: String
    /// The units a number can be said with ("degrees", "percent"), sorted.
    public let units: [String]
    /// Whether the language says dates.
    public var hasDate: Bool { dateTemplate != nil }

    let dateTemplate: CompiledTemplate?
    let unitTemplates: [String: CompiledTemplate]
    let minus: Form?
    let tables: [FormTable]

    init(file: GrammarFile, origin: String) throws(GrammarError) {
        var compiler = Compiler(file: file, origin: origin)
        tag = file.tag
        dateTemplate = try file.date.map { (say) throws(GrammarError) in
            CompiledTemplate(tokens: try compiler.template(say, allowed: Quantity.date, usedBy: "date"), source: say)
        }
        var templates: [String: CompiledTemplate] = [:]
        for (unit, say) in file.values.units {
            templates[unit] = CompiledTemplate(
                tokens: try compiler.template(say, allowed: [.value], usedBy: "values.units.\(unit)"), source: say)
        }
        unitTemplates = templates
        units = templates.keys.sorted()
        minus = file.values.minus.map { Form(GrammarFile.words($0), display: file.display) }
        tables = compiler.compiledTables
    }

    /// The words of a date: "Saturday, November twenty-eighth" (en-US), "Samstag, der
    /// achtundzwanzigste November" (de), "суббота, двадцать восьмое ноября" (ru).
    ///
    /// The caller knows the calendar: `weekday` is the ISO day of the week of that date (1 =
    /// Monday … 7 = Sunday); this checks only that each number is in its range, not that the
    /// month has that day.
    /// - Throws: `.outOfRange` for a number out of its range, `.unknown` when the language file
    ///   says no date.
    public func date(weekday: Int, day: Int, month: Int) throws(GrammarError) -> TimePhrase {
        guard let dateTemplate else {
            throw GrammarError(.unknown, "Language \(tag) does not say dates (its file has no \"date\").")
        }
        guard (1...7).contains(weekday), (1...31).contains(day), (1...12).contains(month) else {
            throw GrammarError(
                .outOfRange,
                "There is no date with weekday \(weekday), day \(day), month \(month): a weekday is 1 (Monday) to 7, a day 1 to 31, a month 1 to 12."
            )
        }
        var words: [String] = []
        var text: String? = ""
        try dateTemplate.say(
            tables: tables,
            value: { quantity in quantity == .weekday ? weekday : quantity == .day ? day : month },
            into: &words, text: &text, context: "\(tag) date \(month)/\(day) (weekday \(weekday))")
        return TimePhrase(words: words, text: text!)
    }

    /// The words of a whole number with a unit: "minus three degrees", "twenty-one percent",
    /// "dwadzieścia dwa stopnie", "vingt et un degrés".
    ///
    /// - Parameters:
    ///   - value: within `Grammar.valueRange`; a negative number is said with the language's
    ///     minus word first, and its unit agrees with the number without its sign ("minus one
    ///     degree", "минус два градуса").
    ///   - unit: one of `units` ("degrees", "percent").
    /// - Throws: `.outOfRange` for a value outside `valueRange`, `.unknown` for a unit the language
    ///   does not say.
    public func value(_ value: Int, unit: String) throws(GrammarError) -> TimePhrase {
        guard let template = unitTemplates[unit] else {
            let known = units.isEmpty ? "it says none" : "it says: \(units.joined(separator: ", "))"
            throw GrammarError(.unknown, "Language \(tag) has no unit \"\(unit)\" (\(known)).")
        }
        guard Grammar.valueRange.contains(value) else {
            throw GrammarError(
                .outOfRange,
                "The value \(value) is out of range: the clock says whole numbers from \(Grammar.valueRange.lowerBound) to \(Grammar.valueRange.upperBound)."
            )
        }
        var words: [String] = []
        var text: String? = ""
        if value < 0, let minus { append(minus, to: &words, text: &text) }
        try template.say(
            tables: tables, value: { _ in abs(value) }, into: &words, text: &text,
            context: "\(tag) value \(value) \(unit)")
        return TimePhrase(words: words, text: text!)
    }

    /// Every word a date can say, each once, in the order the days of a leap year first need them
    /// (2024: 1 January, a Monday, to 31 December): what a pack must hold to say every date.
    /// Empty when the language says no date.
    public func dateWords() -> [String] {
        var ordered: [String] = []
        var seen = Set<String>()
        for date in Grammar.leapYear {
            guard let phrase = try? self.date(weekday: date.weekday, day: date.day, month: date.month) else { continue }
            for word in phrase.words where seen.insert(word).inserted { ordered.append(word) }
        }
        return ordered
    }

    /// Every word `unit` can say over `valueRange`, each once, in the order 0, 1, … 150, then
    /// −1 … −99 first need them. Empty for a unit the language does not say.
    public func valueWords(unit: String) -> [String] {
        var ordered: [String] = []
        var seen = Set<String>()
        for n in Grammar.valueOrder {
            guard let phrase = try? value(n, unit: unit) else { continue }
            for word in phrase.words where seen.insert(word).inserted { ordered.append(word) }
        }
        return ordered
    }

    /// What is wrong: every date of a leap year on every day of the week, and every value of
    /// `valueRange` in each unit, must have a phrase without an empty word. A gap is named once,
    /// at the first date or value that meets it ("table "few" has no form for day = 31").
    public func problems() -> [String] {
        var problems: [String] = []
        var seen = Set<String>()
        func add(_ message: String) {
            let gap = message.firstRange(of: ": table ").map { String(message[$0.lowerBound...]) } ?? message
            if seen.insert(gap).inserted { problems.append(message) }
        }
        if dateTemplate != nil {
            for date in Grammar.leapYear {
                for weekday in 1...7 {
                    do throws(GrammarError) {
                        let phrase = try self.date(weekday: weekday, day: date.day, month: date.month)
                        if phrase.words.isEmpty || phrase.words.contains("") {
                            add("\(tag) date \(date.month)/\(date.day): says an empty word")
                        }
                    } catch {
                        add(error.message)
                    }
                }
            }
        }
        for unit in units {
            for n in Grammar.valueRange {
                do throws(GrammarError) {
                    let phrase = try value(n, unit: unit)
                    if phrase.words.isEmpty || phrase.words.contains("") {
                        add("\(tag) value \(n) \(unit): says an empty word")
                    }
                } catch {
                    add(error.message)
                }
            }
        }
        return problems
    }
}

extension Grammar {
    /// The language's dates and values (its file's `"date"` and `"values"`), compiled now: a
    /// mistake in them is reported here (and by `problems()`), not when the language loads.
    public func datesAndValues() throws(GrammarError) -> DatesAndValues {
        try DatesAndValues(file: file, origin: origin)
    }

    /// The days of 2024, a leap year, from 1 January (a Monday): (month, day, ISO weekday).
    public static let leapYear: [(month: Int, day: Int, weekday: Int)] = {
        let lengths = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var days: [(month: Int, day: Int, weekday: Int)] = []
        var weekday = 1
        for (i, length) in lengths.enumerated() {
            for day in 1...length {
                days.append((i + 1, day, weekday))
                weekday = weekday % 7 + 1
            }
        }
        return days
    }()

    /// The values in the order their words are listed: 0 … 150, then −1 … −99.
    public static let valueOrder: [Int] =
        Array(0...valueRange.upperBound) + Array((valueRange.lowerBound...(-1)).reversed())
}
