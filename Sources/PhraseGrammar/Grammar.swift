import FoundationEssentials

/// The words of a phrase in one language: a time of day, a date or a value. `words` are clip ids
/// ("halb", "vier"; "wpół", "do", "czwartej"): lowercase, in the language's own script, compounds
/// written as the language writes them ("forty-five", "quarante-cinq", "fünfundvierzig"). `text` is
/// the phrase as a native speaker writes it ("halb vier", "three forty-five PM", "è l'una",
/// "Samstag, der achtundzwanzigste November").
public struct TimePhrase: Hashable, Sendable, CustomStringConvertible {
    public var words: [String]
    public var text: String

    public init(words: [String], text: String) {
        self.words = words
        self.text = text
    }

    public var description: String { text }
}

/// One language's rules for saying the time, compiled from a language file
/// (`Sources/PhraseGrammar/Languages/*.json`, format in the README there).
///
/// Pure: (hour, minute, phrasing) → words. Compiling a file costs a parse of one small JSON
/// document; phrasing a time is a rule lookup and a few array reads.
public struct Grammar: Sendable {
    /// The language tag ("de", "en-GB").
    public let tag: String
    /// The language's own name ("Deutsch").
    public let name: String
    /// The phrasings the language has, in the file's order ("casual", "24h").
    public let phrasings: [String]
    /// The phrasing used when none is asked for.
    public let defaultPhrasing: String
    /// Names of the optional lead-ins ("its"), sorted.
    public let leadIns: [String]

    /// The units a number can be said with ("degrees", "percent"), sorted.
    public var units: [String] { file.values.units.keys.sorted() }
    /// Whether the language file says how to say a date.
    public var hasDate: Bool { file.date != nil }

    /// The largest number a table holds, and the largest absolute value `value(_:unit:)` says.
    public static let largestNumber = 150
    /// The numbers `value(_:unit:)` says: −99 … 150. A thermometer, a hygrometer or a battery
    /// stays inside it; below −99 or above 150 a language needs words no pack holds ("two hundred").
    public static let valueRange = -99...largestNumber

    let leadInForms: [String: Form]
    let display: [String: String]
    let compiled: [CompiledPhrasing]
    let tables: [FormTable]
    /// The merged file, kept for `datesAndValues()`: the date and the values are compiled when a
    /// caller asks for them, so loading a language to say the time costs what it did before.
    let file: GrammarFile
    let origin: String

    /// Compiles a language file.
    ///
    /// - Parameters:
    ///   - origin: how errors name the file ("de-AT.json").
    ///   - base: the file of a tag that a file names as its `"base"`; by default the shipped
    ///     languages, so a regional variant can be a file of differences only.
    public init(json: Data, origin: String = "language file", base: (String) -> Data? = Languages.shippedFile)
        throws(GrammarError)
    {
        var file = try GrammarFile.parse(json, origin: origin)
        var chain = [file.tag]
        while let baseTag = file.base {
            guard chain.count < 8, !chain.contains(baseTag) else {
                throw GrammarError(
                    .badFile,
                    "Language file \(origin): its bases form a loop (\(chain.joined(separator: " → ")) → \(baseTag)).")
            }
            guard let data = base(baseTag) else {
                throw GrammarError(
                    .unknown,
                    "Language file \(origin) is based on \"\(baseTag)\", which is not a known language (known: \(Languages.shipped.joined(separator: ", ")))."
                )
            }
            chain.append(baseTag)
            var parent = try GrammarFile.parse(data, origin: "\(baseTag) (base of \(origin))")
            let grandparent = parent.base
            parent = file.merged(over: parent)
            parent.base = grandparent
            file = parent
        }
        try self.init(file: file, origin: origin)
    }

    init(file: GrammarFile, origin: String) throws(GrammarError) {
        var compiler = Compiler(file: file, origin: origin)
        tag = file.tag
        name = file.name ?? file.tag
        guard !file.phrasings.isEmpty else {
            throw GrammarError(.badFile, "Language file \(origin) has no phrasings.")
        }
        phrasings = file.phrasings.map(\.name)
        defaultPhrasing = file.defaultPhrasing ?? phrasings[0]
        guard phrasings.contains(defaultPhrasing) else {
            throw GrammarError(
                .badFile,
                "Language file \(origin): the default phrasing \"\(defaultPhrasing)\" is not one of its phrasings (\(phrasings.joined(separator: ", ")))."
            )
        }
        leadIns = file.leadIns.keys.sorted()
        leadInForms = file.leadIns.mapValues { Form($0, display: file.display) }
        display = file.display
        compiled = try file.phrasings.map { (p) throws(GrammarError) in try compiler.phrasing(p) }
        if !file.values.units.isEmpty, file.values.minus == nil {
            throw GrammarError(
                .badFile,
                "Language file \(origin): \"values\" has units but no \"minus\" (the word said before a negative number).")
        }
        tables = compiler.compiledTables
        self.file = file
        self.origin = origin
    }

    /// The words for `hour:minute` (24-hour values) in `phrasing` (default: the language's own).
    ///
    /// - Parameters:
    ///   - leadIn: one of `leadIns` ("its": "es ist", "il est", "сейчас"), said first.
    ///   - options: rule switches the phrasing declares (`options(of:)`), e.g. "midnight" for
    ///     English 24-hour "midnight" instead of "zero hundred".
    public func words(
        hour: Int, minute: Int, phrasing: String? = nil, leadIn: String? = nil, options: Set<String> = []
    ) throws(GrammarError) -> [String] {
        var text: String? = nil
        return try say(hour: hour, minute: minute, phrasing: phrasing, leadIn: leadIn, options: options, text: &text)
    }

    /// The phrase for `hour:minute`: words and written text (see `words(hour:minute:…)`).
    public func phrase(
        hour: Int, minute: Int, phrasing: String? = nil, leadIn: String? = nil, options: Set<String> = []
    ) throws(GrammarError) -> TimePhrase {
        var text: String? = ""
        let words = try say(
            hour: hour, minute: minute, phrasing: phrasing, leadIn: leadIn, options: options, text: &text)
        return TimePhrase(words: words, text: text!)
    }

    func say(
        hour: Int, minute: Int, phrasing: String?, leadIn: String?, options: Set<String>, text: inout String?
    ) throws(GrammarError) -> [String] {
        precondition((0..<24).contains(hour) && (0..<60).contains(minute), "invalid time \(hour):\(minute)")
        let p = try self.phrasing(phrasing)
        var words: [String] = []
        words.reserveCapacity(8)
        text?.reserveCapacity(48)
        if let leadIn {
            guard let lead = leadInForms[leadIn] else {
                let known = leadIns.isEmpty ? "it has none" : "it has: \(leadIns.joined(separator: ", "))"
                throw GrammarError(.unknown, "Language \(tag) has no lead-in \"\(leadIn)\" (\(known)).")
            }
            append(lead, to: &words, text: &text)
        }
        if !options.isEmpty {
            let known = p.options
            if let unknown = options.sorted().first(where: { !known.contains($0) }) {
                let list = known.isEmpty ? "it has none" : "it has: \(known.joined(separator: ", "))"
                throw GrammarError(.unknown, "Phrasing \(p.name) of \(tag) has no option \"\(unknown)\" (\(list)).")
            }
        }
        var trace: [NamedHour]? = nil
        try p.say(
            hour: hour, minute: minute, options: options, tables: tables, into: &words, text: &text, trace: &trace)
        return words
    }

    /// The words written as a native speaker writes them: each word in its display form
    /// ("uhr" → "Uhr", "pm" → "PM", "oclock" → "o'clock"), separated by spaces.
    public func text(of words: [String]) -> String {
        words.lazy.map { display[$0] ?? $0 }.joined(separator: " ")
    }

    /// The words of the lead-in `name` ("its" → ["es", "ist"] in German), nil when the language
    /// has no such lead-in: how many clips of an announcement come before the time.
    public func leadInWords(_ name: String) -> [String]? { leadInForms[name]?.ids }

    /// The display form of one word ("oclock" → "o'clock"); the word itself when it has none.
    public func display(_ word: String) -> String { display[word] ?? word }

    /// The options the rules of `phrasing` can be switched by, sorted.
    public func options(of phrasing: String? = nil) throws(GrammarError) -> [String] {
        try self.phrasing(phrasing).options
    }

    /// Every word `phrasing` can say in a day (with each option on and off, without lead-ins),
    /// sorted: what a sound pack of this language must hold.
    public func vocabulary(of phrasing: String? = nil) throws(GrammarError) -> [String] {
        let p = try self.phrasing(phrasing)
        var words = Set<String>()
        for options in [Set<String>()] + p.options.map({ [$0] }) {
            for m in 0..<1440 {
                var w: [String] = []
                var trace: [NamedHour]? = nil
                var noText: String? = nil
                try p.say(
                    hour: m / 60, minute: m % 60, options: options, tables: tables, into: &w, text: &noText,
                    trace: &trace)
                words.formUnion(w)
            }
        }
        return words.sorted()
    }

    /// What is wrong with the grammar: every minute of the day in every phrasing (each option on
    /// and off) that has no phrase, every rule that never applies, every date of a leap year (on
    /// each day of the week) and every value of `valueRange` in each unit that has no phrase or
    /// says an empty word. Empty for a sound grammar.
    public func problems() -> [String] {
        var problems: [String] = []
        for p in compiled {
            var used = Array(repeating: false, count: p.rules.count)
            for options in [Set<String>()] + p.options.map({ [$0] }) {
                for m in 0..<1440 {
                    var w: [String] = []
                    var trace: [NamedHour]? = nil
                    var noText: String? = nil
                    do throws(GrammarError) {
                        let rule = try p.say(
                            hour: m / 60, minute: m % 60, options: options, tables: tables, into: &w, text: &noText,
                            trace: &trace)
                        used[rule] = true
                        if w.isEmpty { problems.append("\(tag) \(p.name) \(clock(m)): the rule says nothing") }
                    } catch {
                        problems.append(error.message)
                    }
                }
            }
            for (i, rule) in p.rules.enumerated() where !used[i] {
                problems.append("\(tag) \(p.name): rule \(i) (\"\(rule.source)\") never applies")
            }
        }
        do throws(GrammarError) {
            problems += try datesAndValues().problems()
        } catch {
            problems.append(error.message)
        }
        return problems
    }

    /// Which rule spoke and which hours it named (for tests: "the hour named at :45 is the next one").
    func explain(hour: Int, minute: Int, phrasing: String? = nil, options: Set<String> = []) throws(GrammarError)
        -> (rule: Int, words: [String], hours: [NamedHour])
    {
        let p = try self.phrasing(phrasing)
        var words: [String] = []
        var hours: [NamedHour]? = []
        var noText: String? = nil
        let rule = try p.say(
            hour: hour, minute: minute, options: options, tables: tables, into: &words, text: &noText, trace: &hours)
        return (rule, words, hours ?? [])
    }

    func phrasing(_ name: String?) throws(GrammarError) -> CompiledPhrasing {
        let name = name ?? defaultPhrasing
        for p in compiled where p.name == name { return p }
        throw GrammarError(
            .unknown, "Language \(tag) has no phrasing \"\(name)\"; it has: \(phrasings.joined(separator: ", ")).")
    }
}

func clock(_ minuteOfDay: Int) -> String {
    let h = minuteOfDay / 60
    let m = minuteOfDay % 60
    return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
}

/// An hour a phrase named: which quantity (this hour or the next), its value as the phrasing counts
/// (1…12 on a 12-hour clock), and the hour of day it stands for (0…23).
struct NamedHour: Equatable {
    var quantity: Quantity
    var value: Int
    var hourOfDay: Int
}
