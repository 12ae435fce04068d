import PhraseGrammar

/// What a person records for their own voice pack (`talking-clock record-pack`): which words a
/// phrasing needs, and the whole time phrase each word is shown in, so that it is spoken with the
/// inflection it has in a sentence rather than the falling pitch of a word read from a list.
public enum RecordingScript {
    /// Every word any phrase can contain (all phrasings, lead-ins and midnight styles), in a
    /// natural order: the numbers first, then the other words.
    public static let allWords: [String] = {
        var words = Set<String>()
        for phrasing in englishPhrasings {
            for leadIn in LeadIn.allCases {
                for midnight in MidnightStyle.allCases {
                    let style = PhraseStyle(phrasing: phrasing, midnight: midnight, leadIn: leadIn)
                    for m in 0..<1440 {
                        words.formUnion(Phrase.forTime(hour: m / 60, minute: m % 60, style: style).words)
                    }
                }
            }
        }
        return words.sorted { order($0) < order($1) }
    }()

    /// The phrasings `record-pack` records: the clock's English "12h" and "24h" (other languages
    /// and English "casual" are not recorded yet).
    public static let englishPhrasings: [Phrasing] = [.twelveHour, .twentyFourHour]

    /// A sort key that puts 0 … 59 in numeric order before the other words.
    public static func order(_ word: String) -> (Int, String) {
        if let n = (0..<60).first(where: { Phrase.number($0) == word }) { return (n, "") }
        let rest = ["oh", "am", "pm", "noon", "midnight", "hundred", "oclock", "its", "the-time-is"]
        return (100 + (rest.firstIndex(of: word) ?? rest.count), word)
    }

    /// The words to record so that every minute of the day can be said in `phrasing`.
    ///
    /// Compound minutes ("thirty-seven") are composed from their parts ("thirty" + "seven"),
    /// except the compounds said at the quarter hours ("forty-five"; in 24-hour style also the
    /// hours "twenty-one" … "twenty-three"), which are heard so often that they get a whole
    /// recording. With `allCompounds` every compound is recorded whole.
    /// Both ways of saying 00:00 in 24-hour style are covered, so the pack works whichever the
    /// user's `midnight` setting is.
    public static func words(for phrasing: Phrasing, allCompounds: Bool = false) -> [String] {
        var needed = Set<String>()
        var atQuarters = Set<String>()
        for midnight in MidnightStyle.allCases {
            let style = PhraseStyle(phrasing: phrasing, midnight: midnight)
            for m in 0..<1440 {
                let words = Phrase.forTime(hour: m / 60, minute: m % 60, style: style).words
                needed.formUnion(words)
                if m % 15 == 0 { atQuarters.formUnion(words) }
            }
        }
        var result = Set<String>()
        for word in needed {
            if !allCompounds, let parts = compoundParts(word), !atQuarters.contains(word) {
                result.formUnion(parts)
            } else {
                result.insert(word)
            }
        }
        return result.sorted { order($0) < order($1) }
    }

    /// The words to record so that every minute of the day can be said in `phrasing` of
    /// `language`. US English is planned as `words(for:allCompounds:)` does (compounds composed
    /// where that is safe); every other language records each word form whole ("fünfundvierzig",
    /// "четвёртого": the form is the inflection), in the order a day first needs them.
    public static func words(language: String, phrasing: Phrasing, allCompounds: Bool = false) -> [String] {
        let tag = SpokenLanguages.canonical(language) ?? language
        if tag == SpokenLanguages.defaultTag { return words(for: phrasing, allCompounds: allCompounds) }
        let needed = Set(SpokenLanguages.vocabulary(of: tag, phrasing: phrasing))
        var ordered: [String] = []
        var seen = Set<String>()
        let style = PhraseStyle(language: tag, phrasing: phrasing)
        for m in searchOrder {
            for word in Phrase.forTime(hour: m / 60, minute: m % 60, style: style).words
            where needed.contains(word) && seen.insert(word).inserted {
                ordered.append(word)
            }
        }
        // Words only an option says (none in the shipped grammars other than English).
        return ordered + needed.subtracting(seen).sorted()
    }

    /// Every word of `language` a pack may hold: each phrasing's and the lead-ins', and the words
    /// of its dates and values.
    public static func allWords(language: String) -> [String] {
        let tag = SpokenLanguages.canonical(language) ?? language
        if tag == SpokenLanguages.defaultTag {
            return allWords + dateAndValueWords(language: tag).filter { !allWords.contains($0) }
        }
        var words = Set(SpokenLanguages.phrasings(of: tag).flatMap { SpokenLanguages.vocabulary(of: tag, phrasing: $0) })
        for leadIn in LeadIn.allCases { words.formUnion(SpokenLanguages.leadInWords(leadIn, in: tag) ?? []) }
        words.formUnion(dateAndValueWords(language: tag))
        return words.sorted()
    }

    /// The words to record so that a pack of `language` can say every date of a year (weekdays,
    /// the days of the month, months; "the", "of", "der", "de"), in the order a year first needs them.
    public static func dateWords(language: String) -> [String] {
        SpokenLanguages.dateWords(of: SpokenLanguages.canonical(language) ?? language)
    }

    /// The words to record so that a pack of `language` can say every value (−99 … 150) in each
    /// unit: the numbers, the minus word, the units' words. English compounds ("sixty-one") are
    /// composed from their parts ("sixty" + "one") unless `allCompounds`; every other language
    /// records each word form whole.
    public static func valueWords(language: String, allCompounds: Bool = false) -> [String] {
        let tag = SpokenLanguages.canonical(language) ?? language
        var ordered: [String] = []
        var seen = Set<String>()
        for unit in SpokenLanguages.units(of: tag) {
            for word in SpokenLanguages.valueWords(of: tag, unit: unit) {
                let parts = tag.hasPrefix("en") && !allCompounds ? valueCompoundParts(word) ?? [word] : [word]
                for part in parts where seen.insert(part).inserted { ordered.append(part) }
            }
        }
        return ordered
    }

    /// How a pack gets the date or value words it lacks (`flag`: `--dates` or `--values`), as the
    /// end of a sentence: record them, or build a pack `scripts/make-pack` made again (it makes them,
    /// but for a Piper voice of another language than en-US); a pack installed where its user
    /// cannot write is copied first.
    public static func missingWordsFix(directory: String, language: String, flag: String) -> String {
        let tag = SpokenLanguages.canonical(language) ?? language
        let languageFlag = tag == SpokenLanguages.defaultTag ? "" : " --language \(tag)"
        return "record them: talking-clock record-pack \(directory)\(languageFlag) \(flag) "
            + "(a pack scripts/make-pack built: build it again, it makes them; a pack you cannot write to: copy it into "
            + "~/.local/share/talking-clock/packs/ and record there)"
    }

    /// The date words and then the value words not among them.
    static func dateAndValueWords(language: String) -> [String] {
        var seen = Set<String>()
        return (dateWords(language: language) + valueWords(language: language, allCompounds: true)).filter {
            seen.insert($0).inserted
        }
    }

    /// The words of `words(language:phrasing:allCompounds:)`, then, with `dates` and `values`,
    /// the date and value words the time does not say (what `record-pack --dates --values` records).
    public static func words(
        language: String, phrasing: Phrasing, allCompounds: Bool = false, dates: Bool, values: Bool
    ) -> [String] {
        var ordered = words(language: language, phrasing: phrasing, allCompounds: allCompounds)
        var seen = Set(ordered)
        let extra =
            (dates ? dateWords(language: language) : [])
            + (values ? valueWords(language: language, allCompounds: allCompounds) : [])
        for word in extra where seen.insert(word).inserted { ordered.append(word) }
        return ordered
    }

    /// "sixty-one" → ["sixty", "one"] (the tens 20 … 90); nil for any other word.
    static func valueCompoundParts(_ word: String) -> [String]? {
        let parts = word.split(separator: "-").map(String.init)
        let tens = Phrase.tens + ["sixty", "seventy", "eighty", "ninety"]
        guard parts.count == 2, tens.contains(parts[0]), Phrase.units.contains(parts[1]) else { return nil }
        return parts
    }

    /// The dates and values of `language` in the order a carrier is looked for: the dates of a
    /// leap year from 1 January, then the values 0 … 150 and −1 … −99 in each unit.
    static func dateAndValuePhrases(language: String) -> [Phrase] {
        let dates = CalendarDate.leapYear.compactMap { try? Phrase.forDate($0, language: language) }
        var values: [Phrase] = []
        for unit in SpokenLanguages.units(of: language) {
            for n in Grammar.valueOrder {
                if let phrase = try? Phrase.forValue(n, unit: unit, language: language) { values.append(phrase) }
            }
        }
        return dates + values
    }

    /// A date or a value of `language` that says `word`, and where (for a word no time says).
    static func dateOrValueCarrier(for word: String, language: String) -> (phrase: Phrase, index: Int)? {
        for phrase in dateAndValuePhrases(language: language) {
            if let index = phrase.words.firstIndex(of: word) { return (phrase, index) }
        }
        return nil
    }

    /// A whole phrase of `language` that contains `word`, preferably in `phrasing`, then in the
    /// language's other phrasings, then after a lead-in; and the word's position in it.
    public static func carrier(for word: String, language: String, phrasing: Phrasing) -> (phrase: Phrase, index: Int)? {
        let tag = SpokenLanguages.canonical(language) ?? language
        if tag == SpokenLanguages.defaultTag { return carrier(for: word, phrasing: phrasing) }
        let phrasings = [phrasing] + SpokenLanguages.phrasings(of: tag).filter { $0 != phrasing }
        for leadIn in LeadIn.allCases where leadIn == .none || SpokenLanguages.leadInWords(leadIn, in: tag) != nil {
            for candidate in phrasings {
                let style = PhraseStyle(language: tag, phrasing: candidate, leadIn: leadIn)
                for m in searchOrder {
                    let phrase = Phrase.forTime(hour: m / 60, minute: m % 60, style: style)
                    if let index = phrase.words.firstIndex(of: word) { return (phrase, index) }
                }
            }
        }
        return dateOrValueCarrier(for: word, language: tag)
    }

    /// "forty-five" → ["forty", "five"]; nil for a word that is not a compound number.
    static func compoundParts(_ word: String) -> [String]? {
        let parts = word.split(separator: "-").map(String.init)
        guard parts.count == 2, Phrase.tens.contains(parts[0]), Phrase.units.contains(parts[1]) else { return nil }
        return parts
    }

    /// A whole phrase that contains `word`, preferably in `phrasing`, and the word's position in it.
    ///
    /// Quarter hours come first (what the clock says most), starting in the afternoon, so an hour
    /// word is shown as an hour ("FIVE fifteen pm") and a minute word as a minute.
    public static func carrier(for word: String, phrasing: Phrasing) -> (phrase: Phrase, index: Int)? {
        let leadIn: LeadIn = word == "its" ? .its : word == "the-time-is" ? .theTimeIs : .none
        let other: Phrasing = phrasing == .twelveHour ? .twentyFourHour : .twelveHour
        for candidate in [phrasing, other] {
            let style = PhraseStyle(phrasing: candidate, leadIn: leadIn)
            for m in searchOrder {
                let phrase = Phrase.forTime(hour: m / 60, minute: m % 60, style: style)
                if let index = phrase.words.firstIndex(of: word) { return (phrase, index) }
            }
        }
        return dateOrValueCarrier(for: word, language: SpokenLanguages.defaultTag)
    }

    /// A whole phrase of `language` in which the words of `unit` ("quarter past", "une heure")
    /// stand side by side, preferably in `phrasing`, then in the language's other phrasings, then
    /// after a lead-in; and where they stand. Nil when no phrase says them together.
    public static func carrier(forUnit unit: String, language: String, phrasing: Phrasing) -> (
        phrase: Phrase, range: Range<Int>
    )? {
        let tag = SpokenLanguages.canonical(language) ?? language
        let words = unit.split(separator: " ").map(String.init)
        guard !words.isEmpty else { return nil }
        let phrasings = [phrasing] + SpokenLanguages.phrasings(of: tag).filter { $0 != phrasing }
        for leadIn in LeadIn.allCases where leadIn == .none || SpokenLanguages.leadInWords(leadIn, in: tag) != nil {
            for candidate in phrasings {
                for midnight in MidnightStyle.allCases {
                    let style = PhraseStyle(language: tag, phrasing: candidate, midnight: midnight, leadIn: leadIn)
                    for m in searchOrder {
                        let phrase = Phrase.forTime(hour: m / 60, minute: m % 60, style: style)
                        guard phrase.words.count >= words.count else { continue }
                        for start in 0...(phrase.words.count - words.count)
                        where phrase.words[start..<start + words.count].elementsEqual(words) {
                            return (phrase, start..<start + words.count)
                        }
                    }
                }
            }
        }
        // A unit of a date or a value ("vingt et un", "pour cent").
        for phrase in dateAndValuePhrases(language: tag) where phrase.words.count >= words.count {
            for start in 0...(phrase.words.count - words.count)
            where phrase.words[start..<start + words.count].elementsEqual(words) {
                return (phrase, start..<start + words.count)
            }
        }
        return nil
    }

    /// The prompt for a unit: the phrase in lower case with the unit's words in capitals,
    /// e.g. `"QUARTER PAST three"`.
    public static func prompt(_ phrase: Phrase, marking range: Range<Int>) -> String {
        let words = shown(phrase).enumerated().map { i, shown in range.contains(i) ? shown.uppercased() : shown }
        return "\"" + words.joined(separator: " ") + "\""
    }

    /// Each word as the speaker reads it, in lower case: the phrase's written words when there is
    /// one per clip id (so a date keeps its comma, "saturday, january sixth"), else each id's
    /// display form ("the time is" is one id).
    static func shown(_ phrase: Phrase) -> [String] {
        let written = phrase.text.split(separator: " ").map { $0.lowercased() }
        if written.count == phrase.words.count { return written }
        return phrase.words.map { SpokenLanguages.display($0, in: phrase.language).lowercased() }
    }

    /// Minutes of the day from 13:00 round to 12:59: first :15/:30/:45, then :00, then the rest.
    static let searchOrder: [Int] = {
        let day = (0..<1440).map { (13 * 60 + $0) % 1440 }
        return day.filter { $0 % 15 == 0 && $0 % 60 != 0 } + day.filter { $0 % 60 == 0 } + day.filter { $0 % 15 != 0 }
    }()

    /// The prompt for one word: the phrase in lower case with the word to say in capitals,
    /// e.g. `"three FORTY-FIVE pm"`.
    public static func prompt(_ phrase: Phrase, marking index: Int) -> String {
        prompt(phrase, marking: index..<index + 1)
    }

    /// How a word is written for the speaker: "it's", "the time is", "PM".
    public static func spoken(_ word: String) -> String { Phrase.display(word) }

    /// How a word of `language` is written for the speaker: "Uhr", "it's".
    public static func spoken(_ word: String, language: String) -> String {
        SpokenLanguages.display(word, in: language)
    }

    /// Checks a word given on the command line.
    public static func validate(_ word: String) throws(RecordingWordError) {
        guard allWords.contains(word) else {
            throw RecordingWordError(word: word, suggestion: Suggestion.closest(to: word, in: allWords))
        }
    }

    /// Checks a word given on the command line for a pack of `language`. A unit (words joined by
    /// single spaces, "une heure") is valid when some phrase of the language says its words side
    /// by side.
    public static func validate(_ word: String, language: String) throws(RecordingWordError) {
        let tag = SpokenLanguages.canonical(language) ?? language
        if word.contains(" ") {
            let words = word.split(separator: " ")
            guard words.joined(separator: " ") == word else {
                throw RecordingWordError(word: word, suggestion: words.joined(separator: " "), language: tag, unit: true)
            }
            for part in words {
                try validate(String(part), language: tag)
            }
            guard
                carrier(forUnit: word, language: tag, phrasing: SpokenLanguages.defaultPhrasing(of: tag)) != nil
            else {
                throw RecordingWordError(word: word, suggestion: nil, language: tag, unit: true)
            }
            return
        }
        if tag == SpokenLanguages.defaultTag {
            // English casual words ("quarter", "after") are not in the 12h/24h list, nor are the
            // words of dates and values ("saturday", "degrees", "sixty").
            let casual = SpokenLanguages.phrasings(of: tag).contains {
                SpokenLanguages.vocabulary(of: tag, phrasing: $0).contains(word)
            }
            let dated = allWords(language: tag).contains(word) || valueWords(language: tag).contains(word)
            return casual || dated ? () : try validate(word)
        }
        let words = allWords(language: tag)
        guard words.contains(word) else {
            throw RecordingWordError(
                word: word, suggestion: Suggestion.closest(to: word, in: words), language: tag)
        }
    }
}

/// A word that no phrase uses, with the closest one if it looks like a typo.
public struct RecordingWordError: Error, Hashable, Sendable, CustomStringConvertible {
    public var word: String
    public var suggestion: String?
    /// The pack's language; nil for US English.
    public var language: String?

    /// Whether `word` is a unit (several words) that no phrase says as written.
    public var unit: Bool

    public init(word: String, suggestion: String?, language: String? = nil, unit: Bool = false) {
        self.word = word
        self.suggestion = suggestion
        self.language = language
        self.unit = unit
    }

    public var description: String {
        let hint = suggestion.map { " Did you mean '\($0)'?" } ?? ""
        if unit {
            return "'\(word)' is not a unit talking-clock says in \(language ?? SpokenLanguages.defaultTag): no phrase of any "
                + "phrasing has these words side by side.\(hint) A unit is words of one phrase joined by single spaces, "
                + "e.g. 'quarter past' (see 'talking-clock words --phrases')."
        }
        if let language {
            return "'\(word)' is not a word talking-clock says in \(language).\(hint) Words are clip ids, each word form "
                + "whole, as the language writes it in lower case (see the language's file in Sources/PhraseGrammar/Languages)."
        }
        return
            "'\(word)' is not a word talking-clock says.\(hint) Words are clip ids: zero … fifty-nine (compounds with"
            + " a hyphen, e.g. forty-five), oh, am, pm, noon, midnight, hundred, its, the-time-is; and the words of dates"
            + " and values (saturday, november, twenty-eighth, minus, degrees, percent)."
    }
}
