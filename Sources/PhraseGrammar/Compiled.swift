/// The numbers a template can name: `{next.gen}` is the next hour in the table "gen".
enum Quantity: String, CaseIterable, Sendable {
    /// This hour as the phrasing counts it: 1…12 on a 12-hour clock, 0…23 on a 24-hour one.
    case hour
    /// The next hour, counted the same way (23:45 → 12 on a 12-hour clock, 0 on a 24-hour one).
    case next
    /// This hour and the next as 0…23 whatever the clock (for AM/PM and day-part words).
    case hour24, next24
    /// The minute, 0…59.
    case minute
    /// Minutes to the next hour (60 − minute), to the half hour (30 − minute) and past it (minute − 30).
    case toHour, toHalf, pastHalf
    /// A date's day of the week (ISO: 1 = Monday … 7 = Sunday), day of the month (1…31) and
    /// month (1…12): the quantities of a `"date"` template.
    case weekday, day, month
    /// The absolute value of a number said with a unit (0…`Grammar.largestNumber`): the quantity
    /// of a unit's template.
    case value

    /// The largest number the quantity takes: what a table it looks up must hold.
    var largest: Int {
        switch self {
        case .hour, .next, .hour24, .next24, .minute, .toHour, .toHalf, .pastHalf: 60
        case .weekday: 7
        case .day: 31
        case .month: 12
        case .value: Grammar.largestNumber
        }
    }

    /// The quantities a time rule may name.
    static let time: [Quantity] = [.hour, .next, .hour24, .next24, .minute, .toHour, .toHalf, .pastHalf]
    static let date: [Quantity] = [.weekday, .day, .month]

    /// Whether the value is an hour that can be noon or midnight on a 12-hour clock.
    var isClockHour: Bool { self == .hour || self == .next }
    var isHour: Bool { self == .hour || self == .next || self == .hour24 || self == .next24 }
}

/// Words as clip ids, with their written text precomputed (display forms joined by spaces), so
/// that phrasing a time never hashes a word.
struct Form: Sendable {
    var ids: [String]
    var text: String

    init(_ ids: [String], display: [String: String]) {
        self.ids = ids
        self.text = ids.map { display[$0] ?? $0 }.joined(separator: " ")
    }
}

/// A table compiled to one lookup per number: the words for 0…N (as far as its widest use needs,
/// `Quantity.largest`), and for noon and midnight when
/// the table says them differently from 12.
/// A class, like `CompiledPhrasing`: phrasing a time reads these without copying (and retaining)
/// every field.
final class FormTable: Sendable {
    let name: String
    let values: [Form?]
    let noon: Form?
    let midnight: Form?

    init(name: String, values: [Form?], noon: Form?, midnight: Form?) {
        self.name = name
        self.values = values
        self.noon = noon
        self.midnight = midnight
    }
}

enum Token: Sendable {
    case words(Form)
    case form(Quantity, table: Int)
    /// A mark written after the previous word in `text` only (a comma: "Samstag, der …").
    case punctuation(String)
}

/// A date's or a unit's template, compiled: what `Grammar.date` and `Grammar.value` say.
struct CompiledTemplate: Sendable {
    var tokens: [Token]
    var source: String

    /// Appends the template's words; `value` gives each quantity's number.
    func say(
        tables: [FormTable], value: (Quantity) -> Int, into words: inout [String], text: inout String?,
        context: @autoclosure () -> String
    ) throws(GrammarError) {
        for token in tokens {
            switch token {
            case .words(let form):
                append(form, to: &words, text: &text)
            case .punctuation(let mark):
                if text != nil { text!.append(mark) }
            case .form(let quantity, let t):
                let table = tables[t]
                let n = value(quantity)
                guard n >= 0, n < table.values.count, let form = table.values[n] else {
                    throw GrammarError(
                        .noPhrase,
                        "\(context()): table \"\(table.name)\" has no form for \(quantity.rawValue) = \(n) "
                            + "(template \"\(source)\").")
                }
                append(form, to: &words, text: &text)
            }
        }
    }
}

struct CompiledRule: Sendable {
    var minutes: [Bool]
    var hours: [Bool]?
    var option: String?
    var tokens: [Token]
    var source: String

    @inline(__always) func applies(hour: Int, minute: Int, options: Set<String>) -> Bool {
        guard minutes[minute], hours?[hour] ?? true else { return false }
        guard let option else { return true }
        return !options.isEmpty && options.contains(option)
    }
}

final class CompiledPhrasing: Sendable {
    let name: String
    let twelveHour: Bool
    let rules: [CompiledRule]
    let options: [String]
    let language: String

    init(name: String, twelveHour: Bool, rules: [CompiledRule], options: [String], language: String) {
        self.name = name
        self.twelveHour = twelveHour
        self.rules = rules
        self.options = options
        self.language = language
    }

    /// Appends the words of the first rule that applies; returns its index.
    @discardableResult
    func say(
        hour: Int, minute: Int, options: Set<String>, tables: [FormTable], into words: inout [String],
        text: inout String?, trace: inout [NamedHour]?
    ) throws(GrammarError) -> Int {
        guard let index = rules.firstIndex(where: { $0.applies(hour: hour, minute: minute, options: options) }) else {
            throw GrammarError(
                .noPhrase, "\(language) \(name) has no rule for \(clock(hour * 60 + minute)) (minute \(minute)).")
        }
        for token in rules[index].tokens {
            switch token {
            case .words(let form):
                append(form, to: &words, text: &text)
            case .punctuation(let mark):
                if text != nil { text!.append(mark) }
            case .form(let quantity, let t):
                let table = tables[t]
                let value: Int
                var hourOfDay = -1
                switch quantity {
                case .hour, .next:
                    hourOfDay = quantity == .hour ? hour : (hour + 1) % 24
                    value = twelveHour ? (hourOfDay % 12 == 0 ? 12 : hourOfDay % 12) : hourOfDay
                case .hour24:
                    hourOfDay = hour
                    value = hour
                case .next24:
                    hourOfDay = (hour + 1) % 24
                    value = hourOfDay
                case .minute: value = minute
                case .toHour: value = 60 - minute
                case .toHalf: value = 30 - minute
                case .pastHalf: value = minute - 30
                case .weekday, .day, .month, .value:
                    preconditionFailure("the compiler refuses \(quantity) in a time rule")
                }
                var form: Form?
                if twelveHour && quantity.isClockHour && hourOfDay % 12 == 0 {
                    form = hourOfDay == 0 ? table.midnight : table.noon
                } else if value >= 0 && value < table.values.count {
                    form = table.values[value]
                }
                guard let form else {
                    throw GrammarError(
                        .noPhrase,
                        "\(language) \(name) at \(clock(hour * 60 + minute)): table \"\(table.name)\" has no form for "
                            + "\(quantity.rawValue) = \(value) (rule \"\(rules[index].source)\").")
                }
                append(form, to: &words, text: &text)
                if quantity.isHour, trace != nil {
                    trace!.append(NamedHour(quantity: quantity, value: value, hourOfDay: hourOfDay))
                }
            }
        }
        return index
    }
}

@inline(__always) func append(_ form: Form, to words: inout [String], text: inout String?) {
    words.append(contentsOf: form.ids)
    if text != nil, !form.text.isEmpty {
        if !text!.isEmpty { text!.append(" ") }
        text!.append(form.text)
    }
}

/// Turns a merged language file into lookup tables and token lists, checking every name.
struct Compiler {
    let file: GrammarFile
    let origin: String
    var tableIndex: [String: Int] = [:]
    var compiledTables: [FormTable] = []

    init(file: GrammarFile, origin: String) {
        self.file = file
        self.origin = origin
    }

    func fail(_ what: String) -> GrammarError {
        GrammarError(.badFile, "Language file \(origin): \(what) (see Sources/PhraseGrammar/Languages/README.md).")
    }

    /// The tokens of a template: literal words (consecutive ones in one `Form`), `{quantity.table}`
    /// with a quantity of `allowed`, and a comma after either (written in `text` only).
    mutating func template(_ say: String, allowed: [Quantity], usedBy: String) throws(GrammarError) -> [Token] {
        var tokens: [Token] = []
        for token in say.split(separator: " ") {
            var word = token
            var mark: String? = nil
            if word.count > 1, word.last == "," {
                word = word.dropLast()
                mark = ","
            }
            if word.hasPrefix("{") && word.hasSuffix("}") {
                let ref = word.dropFirst().dropLast().split(separator: ".", omittingEmptySubsequences: false)
                guard ref.count == 2, let quantity = Quantity(rawValue: String(ref[0])), allowed.contains(quantity)
                else {
                    let names = allowed.map(\.rawValue).joined(separator: ", ")
                    throw fail("\(usedBy): \"\(word)\" is not {quantity.table}; its quantities are \(names)")
                }
                tokens.append(.form(quantity, table: try table(String(ref[1]), usedBy: usedBy, for: quantity)))
            } else if word.contains("{") || word.contains("}") {
                throw fail("\(usedBy): \"\(token)\" has a brace but is not {quantity.table}")
            } else if word.contains(",") {
                throw fail("\(usedBy): \"\(token)\": a comma may only end a word or a {quantity.table}")
            } else if case .words(let w)? = tokens.last {
                tokens[tokens.count - 1] = .words(Form(w.ids + [String(word)], display: file.display))
            } else {
                tokens.append(.words(Form([String(word)], display: file.display)))
            }
            if let mark { tokens.append(.punctuation(mark)) }
        }
        return tokens
    }

    mutating func phrasing(_ p: GrammarFile.Phrasing) throws(GrammarError) -> CompiledPhrasing {
        var rules: [CompiledRule] = []
        for rule in p.rules {
            let tokens = try template(rule.say, allowed: Quantity.time, usedBy: "phrasing \(p.name)")
            rules.append(
                CompiledRule(
                    minutes: (0..<60).map { rule.minutes?.contains($0) ?? true },
                    hours: rule.hours.map { set in (0..<24).map { set.contains($0) } },
                    option: rule.option, tokens: tokens, source: rule.say))
        }
        let options = Set(p.rules.compactMap(\.option)).sorted()
        return CompiledPhrasing(
            name: p.name, twelveHour: p.clock == 12, rules: rules, options: options, language: file.tag)
    }

    /// The index of table `name` compiled for the numbers `quantity` can take (0…60 for a time,
    /// 1…31 for a day, 0…150 for a value): a table is compiled as far as its widest use needs, so
    /// loading a language for the time costs no more than it did before dates and values.
    mutating func table(_ name: String, usedBy: String, for quantity: Quantity) throws(GrammarError) -> Int {
        let largest = quantity.largest
        if let i = tableIndex[name], compiledTables[i].values.count > largest { return i }
        guard file.tables[name] != nil else {
            throw fail(
                "\(usedBy) names table \"\(name)\", which the file does not define (tables: \(file.tables.keys.sorted().joined(separator: ", ")))"
            )
        }
        var values: [Form?] = []
        values.reserveCapacity(largest + 1)
        for n in 0...largest { values.append(try resolve(name, n, special: nil, seen: []).map(form)) }
        let table = FormTable(
            name: name, values: values,
            noon: try resolve(name, 12, special: "noon", seen: []).map(form),
            midnight: try resolve(name, 12, special: "midnight", seen: []).map(form))
        if let i = tableIndex[name] {
            compiledTables[i] = table  // a wider use than the one it was compiled for
            return i
        }
        compiledTables.append(table)
        tableIndex[name] = compiledTables.count - 1
        return compiledTables.count - 1
    }

    func form(_ ids: [String]) -> Form { Form(ids, display: file.display) }

    /// The words a table gives `n`: its own noon/midnight form, else the narrowest number set
    /// holding `n`, else the form of `n`'s class, else "*", else the same question to its "else" table.
    /// A form may name other forms of parts of `n` (`"101-150": "hundert {mod100.num}"`); nil when
    /// one of those has none.
    func resolve(_ name: String, _ n: Int, special: String?, seen: [String], visiting: [String] = [])
        throws(GrammarError) -> [String]?
    {
        guard let words = try lookup(name, n, special: special, seen: seen) else { return nil }
        guard words.contains(where: { $0.contains("{") || $0.contains("}") }) else { return words }
        var ids: [String] = []
        for word in words {
            guard word.hasPrefix("{") else {
                if word.contains("{") || word.contains("}") {
                    throw fail("table \(name): \"\(word)\" has a brace but is not {part.table}")
                }
                ids.append(word)
                continue
            }
            let ref = word.dropFirst().dropLast().split(separator: ".", omittingEmptySubsequences: false)
            guard word.hasSuffix("}"), ref.count == 2, let part = NumberPart(rawValue: String(ref[0])) else {
                let parts = NumberPart.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("table \(name): \"\(word)\" is not {part.table}; the parts of a number are \(parts)")
            }
            let other = String(ref[1])
            let key = "\(other)@\(part.of(n))"
            guard !visiting.contains(key) else {
                throw fail("table \(name) names itself in a loop: \((visiting + [key]).joined(separator: " → "))")
            }
            guard file.tables[other] != nil else {
                throw fail("table \(name) names table \"\(other)\", which the file does not define")
            }
            guard
                let said = try resolve(
                    other, part.of(n), special: nil, seen: [], visiting: visiting + ["\(name)@\(n)", key])
            else { return nil }
            ids += said
        }
        return ids
    }

    /// The entry of `n` in a table (see `resolve`), before the forms it names are filled in.
    func lookup(_ name: String, _ n: Int, special: String?, seen: [String]) throws(GrammarError) -> [String]? {
        guard let table = file.tables[name] else {
            throw fail("table \(seen.last ?? name) falls back to \"\(name)\", which the file does not define")
        }
        guard !seen.contains(name) else {
            throw fail("tables fall back in a loop: \((seen + [name]).joined(separator: " → "))")
        }
        var classes: [GrammarFile.ClassRule]?
        if let by = table.by {
            guard let c = file.classes[by] else {
                throw fail(
                    "table \(name) is by \"\(by)\", which is not in \"classes\" (\(file.classes.keys.sorted().joined(separator: ", ")))"
                )
            }
            classes = c
        }
        let classNames = Set(classes?.map(\.name) ?? [])
        if let bad = table.named.keys.sorted().first(where: {
            !["noon", "midnight", "*"].contains($0) && !classNames.contains($0)
        }) {
            let why =
                table.by == nil
                ? "a table without \"by\" has number keys, noon, midnight and *" : "not a class of \(table.by!)"
            throw fail("table \(name) has key \"\(bad)\" (\(why))")
        }
        if let special, let words = table.named[special] { return words }
        let matches = table.numbered.filter { $0.set.contains(n) }
        let narrowest = matches.map(\.set.count).min()
        let best = matches.filter { $0.set.count == narrowest }
        if best.count > 1 {
            throw fail(
                "table \(name): keys \"\(best[0].key)\" and \"\(best[1].key)\" both give \(n); make one narrower")
        }
        if let only = best.first { return only.words }
        if let classes, let cls = classes.first(where: { $0.matches(n) }), let words = table.named[cls.name] {
            return words
        }
        if let words = table.named["*"] { return words }
        if let fallback = table.fallback { return try lookup(fallback, n, special: special, seen: seen + [name]) }
        return nil
    }
}

/// The parts of a number a table's form may name: `{mod100.num}` in `"101-150": "hundert {mod100.num}"`.
enum NumberPart: String, CaseIterable {
    /// The number itself.
    case n
    /// The number less its last digit (47 → 40), its last digit (47 → 7) and its last two (147 → 47).
    case tens, mod10, mod100

    func of(_ n: Int) -> Int {
        switch self {
        case .n: n
        case .tens: n - n % 10
        case .mod10: n % 10
        case .mod100: n % 100
        }
    }
}
