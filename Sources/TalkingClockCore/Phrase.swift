import FoundationEssentials
import Synchronization
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PhraseGrammar

/// How times are put into words: a phrasing of the language spoken ("12h", "24h", "casual").
/// A name, checked against the language's grammar (`SpokenLanguages.problem(…)`), not a closed set:
/// each language file says which phrasings it has.
public struct Phrasing: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    /// English "three forty-five PM", "noon", "midnight".
    public static let twelveHour: Phrasing = "12h"
    /// The official 24-hour style: "fifteen forty-five", "fünfzehn Uhr fünfundvierzig".
    public static let twentyFourHour: Phrasing = "24h"
    /// The everyday idiomatic style: "quarter to four", "halb vier", "без четверти четыре".
    public static let casual: Phrasing = "casual"
}

/// What to say at 00:00 in English 24-hour style ("zero hundred" unless the user prefers
/// "midnight"; 12-hour style always says "midnight"). It switches the grammar's `midnight`
/// option where the phrasing has one, and is ignored elsewhere.
public enum MidnightStyle: String, Sendable, Codable, CaseIterable {
    case midnight
    case zeroHundred = "zero-hundred"
}

/// An optional phrase before the time; its words are the language's lead-in of that name
/// ("its": "it's", "es ist", "il est", "сейчас").
public enum LeadIn: String, Sendable, Codable, CaseIterable {
    case none
    case its
    case theTimeIs = "the-time-is"

    /// The lead-in's name in a language file; nil for none.
    var grammarName: String? {
        switch self {
        case .none: nil
        case .its: "its"
        case .theTimeIs: "the-time-is"
        }
    }
}

/// The languages the clock speaks, each grammar compiled once per process (a schedule phrases
/// thousands of boundaries; none of them parses a language file again).
public enum SpokenLanguages {
    /// The tags the clock knows, the default first ("en-US", "en-GB", "de", …).
    public static var known: [String] { Languages.shipped }

    /// The default language.
    public static let defaultTag = Languages.defaultTag

    /// The shipped tag `tag` means ("en-us" → "en-US"); nil when the clock does not know it.
    public static func canonical(_ tag: String) -> String? { Languages.canonicalTag(tag) }

    /// "the clock speaks: en-US, en-GB, de, …" for error messages.
    public static var knownList: String { known.joined(separator: ", ") }

    private static let cache = Mutex<[String: Grammar]>([:])

    /// The compiled grammar of a known language (compiled on first use, then kept).
    public static func grammar(_ tag: String) throws(GrammarError) -> Grammar {
        let key = canonical(tag) ?? tag
        if let known = cache.withLock({ $0[key] }) { return known }
        let grammar = try Languages.grammar(key)
        cache.withLock { $0[key] = grammar }
        return grammar
    }

    /// The phrasings of a known language ("casual", "24h"); empty for an unknown tag.
    public static func phrasings(of tag: String) -> [Phrasing] {
        ((try? grammar(tag))?.phrasings ?? []).map(Phrasing.init(rawValue:))
    }

    /// The pack a language speaks with when none is chosen: "default" (the bundled en-US pack)
    /// for en-US, the language's tag for the others ("de": `Sounds/de`, installed as
    /// `packs/de`).
    public static func defaultPack(of tag: String) -> String {
        let canonical = canonical(tag) ?? tag
        return canonical == defaultTag ? "default" : canonical
    }

    /// The pack name a regional variant falls back to when no pack of its own is found
    /// (de-AT → "de", es-419 → "es"; `Languages.packFallback`); nil for any other name.
    public static func packFallback(of pack: String) -> String? {
        guard let tag = canonical(pack), tag == pack, let base = Languages.packFallback[tag] else { return nil }
        return defaultPack(of: base)
    }

    /// Whether a pack whose manifest says `packLanguage` may speak `language`: the same tag, or
    /// the base a regional variant falls back to (a "de" pack speaks de-AT).
    public static func packSpeaks(_ packLanguage: String, for language: String) -> Bool {
        let wanted = canonical(language) ?? language
        return packLanguage == wanted || Languages.packFallback[wanted] == packLanguage
    }

    /// The phrasing a language speaks when none is chosen (en-US "12h", the others "casual").
    public static func defaultPhrasing(of tag: String) -> Phrasing {
        Phrasing(rawValue: (try? grammar(tag))?.defaultPhrasing ?? Phrasing.twelveHour.rawValue)
    }

    /// Every word `phrasing` of a language can say in a day (each option on and off, without
    /// lead-ins), sorted: the clips a pack of that language needs. Empty for an unknown tag or
    /// phrasing.
    public static func vocabulary(of tag: String, phrasing: Phrasing) -> [String] {
        (try? grammar(tag).vocabulary(of: phrasing.rawValue)) ?? []
    }

    /// Every word `phrasing` of a language can say in a day, in the order the day first needs
    /// them (00:00 to 23:59 with every option off, then each option on): what `talking-clock
    /// words` prints for the pack tools. Empty for an unknown tag or phrasing.
    public static func wordsInDayOrder(of tag: String, phrasing: Phrasing) -> [String] {
        guard let grammar = try? grammar(tag), let options = try? grammar.options(of: phrasing.rawValue) else {
            return []
        }
        var seen = Set<String>()
        var ordered: [String] = []
        for switched in [Set<String>()] + options.map({ [$0] }) {
            for m in 0..<1440 {
                let words =
                    (try? grammar.words(hour: m / 60, minute: m % 60, phrasing: phrasing.rawValue, options: switched)) ?? []
                for word in words where seen.insert(word).inserted { ordered.append(word) }
            }
        }
        return ordered
    }

    /// How `word` is written in `tag` ("uhr" → "Uhr", "oclock" → "o'clock"); the word itself
    /// when it has no other form.
    public static func display(_ word: String, in tag: String) -> String {
        (try? grammar(tag))?.display(word) ?? word
    }

    /// The words of a lead-in in a language ("its" in de: ["es", "ist"]); nil when it has none.
    public static func leadInWords(_ leadIn: LeadIn, in tag: String) -> [String]? {
        leadIn.grammarName.flatMap { (try? grammar(tag))?.leadInWords($0) }
    }

    /// What is wrong with speaking `language` in `phrasing` with `leadIn`, as a sentence that
    /// lists the choices; nil when the combination can be spoken.
    public static func problem(language: String, phrasing: Phrasing?, leadIn: LeadIn = .none) -> String? {
        guard canonical(language) != nil, let grammar = try? grammar(language) else {
            return "unknown language \"\(language)\"; the clock speaks: \(knownList)."
        }
        if let phrasing, !grammar.phrasings.contains(phrasing.rawValue) {
            return "language \(grammar.tag) has no phrasing \"\(phrasing.rawValue)\"; it has: "
                + grammar.phrasings.joined(separator: ", ") + "."
        }
        if let name = leadIn.grammarName, grammar.leadInWords(name) == nil {
            let has = grammar.leadIns.isEmpty ? "it has none" : "it has: " + grammar.leadIns.joined(separator: ", ")
            return "language \(grammar.tag) has no lead-in \"\(name)\" (\(has)); use lead-in = \"none\"."
        }
        return nil
    }
}

/// Options that shape the words of an announcement.
public struct PhraseStyle: Hashable, Sendable {
    /// A known language tag ("en-US", "de"), as `SpokenLanguages.canonical` spells it.
    public var language: String
    /// One of the language's phrasings.
    public var phrasing: Phrasing
    public var midnight: MidnightStyle
    public var leadIn: LeadIn

    /// - Parameter phrasing: nil: the language's default (en-US "12h", the others "casual").
    public init(
        language: String = SpokenLanguages.defaultTag, phrasing: Phrasing? = nil, midnight: MidnightStyle = .zeroHundred,
        leadIn: LeadIn = .none
    ) {
        self.language = SpokenLanguages.canonical(language) ?? language
        self.phrasing = phrasing ?? SpokenLanguages.defaultPhrasing(of: language)
        self.midnight = midnight
        self.leadIn = leadIn
    }

    public static let standard = PhraseStyle()

    /// What is wrong with this style (see `SpokenLanguages.problem`); nil when it can be spoken.
    public var problem: String? { SpokenLanguages.problem(language: language, phrasing: phrasing, leadIn: leadIn) }
}

/// The words for a time of day. Word ids are lowercase, in the language's script, and double
/// as the preferred clip ids of a sound pack: English compounds are hyphenated ("forty-five")
/// and may be composed from their parts; other languages' compounds are whole clips
/// ("fünfundvierzig").
public struct Phrase: Hashable, Sendable, CustomStringConvertible {
    public var words: [String]
    /// Display text as a native speaker writes it: "three forty-five PM", "it's noon", "è l'una".
    public var text: String
    /// The language tag the words belong to.
    public var language: String
    /// How many of `words` are the lead-in ("es ist": 2).
    public var leadInCount: Int

    /// English words, displayed the English way.
    public init(words: [String]) {
        self.init(words: words, text: words.map(Phrase.display).joined(separator: " "), language: "en-US")
    }

    public init(words: [String], text: String, language: String, leadInCount: Int = 0) {
        self.words = words
        self.text = text
        self.language = language
        self.leadInCount = leadInCount
    }

    public var description: String { text }

    /// Whether a missing compound may be said as its hyphenated parts ("thirty" + "seven"):
    /// English only; other languages record compounds whole.
    var composesCompounds: Bool { language.hasPrefix("en") }

    static func display(_ word: String) -> String {
        switch word {
        case "am": "AM"
        case "pm": "PM"
        case "oclock": "o'clock"
        case "its": "it's"
        case "the-time-is": "the time is"
        default: word
        }
    }

    static let units = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty"]

    /// The English word for 0 … 59 ("zero", "seven", "fifteen", "forty-five").
    public static func number(_ n: Int) -> String {
        precondition((0..<60).contains(n), "number(\(n)) is outside 0…59")
        if n < 20 { return units[n] }
        return n % 10 == 0 ? tens[n / 10] : "\(tens[n / 10])-\(units[n % 10])"
    }

    /// The phrase for `hour:minute` (24-hour clock values) in the style's language.
    ///
    /// The style must be one the language can speak (`style.problem == nil`): the config and
    /// the command line refuse any other, so an unspeakable style here is a bug.
    public static func forTime(hour: Int, minute: Int, style: PhraseStyle = .standard) -> Phrase {
        precondition((0..<24).contains(hour) && (0..<60).contains(minute), "invalid time \(hour):\(minute)")
        do throws(GrammarError) {
            let grammar = try SpokenLanguages.grammar(style.language)
            let leadIn = style.leadIn.grammarName.flatMap { grammar.leadInWords($0) != nil ? $0 : nil }
            var options: Set<String> = []
            if style.midnight == .midnight, try grammar.options(of: style.phrasing.rawValue).contains("midnight") {
                options.insert("midnight")
            }
            let phrase = try grammar.phrase(
                hour: hour, minute: minute, phrasing: style.phrasing.rawValue, leadIn: leadIn, options: options)
            return Phrase(
                words: phrase.words, text: phrase.text, language: grammar.tag,
                leadInCount: leadIn.flatMap { grammar.leadInWords($0)?.count } ?? 0)
        } catch {
            preconditionFailure("Phrase.forTime with a style the config should have refused: \(error.message)")
        }
    }
}

/// A word the pack cannot say.
public struct VocabularyError: Error, Hashable, Sendable, CustomStringConvertible {
    public var word: String
    public var phrase: String
    public var tried: [String]

    public var description: String {
        "The sound pack cannot say \"\(Phrase.display(word))\" (needed for \"\(phrase)\"): add a clip with id "
            + tried.map { "'\($0)'" }.joined(separator: " or ") + " to the manifest."
    }
}

/// Maps words to clip ids, preferring a whole clip ("forty-five") and composing otherwise
/// ("forty" + "five").
///
/// A pack may also hold **units**: clip ids of several words joined by single spaces, spelled as
/// the phrase's words are ("une heure", "et demie", "quarter past"), recorded or synthesised
/// together so that no word carries a sound of its neighbour (French liaison). The phrase is then
/// covered with the fewest clips; of two covers with as many clips, the one whose first differing
/// clip is the longer unit wins. A unit never spans the end of the lead-in (the timeline puts the
/// lead-in gap there). A pack without units is resolved word by word, exactly as before.
public enum Vocabulary {
    public static func clips(for phrase: Phrase, available: Set<String>) throws(VocabularyError) -> [String] {
        try cover(phrase, available: available).clips
    }

    /// The clips that say `phrase`, and how many of them say its lead-in.
    public static func cover(_ phrase: Phrase, available: Set<String>) throws(VocabularyError) -> (
        clips: [String], leadInClips: Int
    ) {
        let units = unitLengths(available)
        let split = min(max(phrase.leadInCount, 0), phrase.words.count)
        let leadIn = try cover(phrase.words[..<split], phrase: phrase, available: available, unitLengths: units)
        let rest = try cover(phrase.words[split...], phrase: phrase, available: available, unitLengths: units)
        return (leadIn + rest, leadIn.count)
    }

    /// The word counts of the pack's units, longest first (empty for a pack without units).
    public static func unitLengths(_ available: Set<String>) -> [Int] {
        var lengths = Set<Int>()
        for id in available where id.contains(" ") { lengths.insert(id.split(separator: " ").count) }
        return lengths.sorted(by: >)
    }

    /// One word's clips without units: the word, or an English compound's parts; nil when neither.
    public static func single(_ word: String, phrase: Phrase, available: Set<String>) -> [String]? {
        if available.contains(word) { return [word] }
        let parts = word.split(separator: "-").map(String.init)
        let compound = phrase.composesCompounds && word.contains("-") && Phrase.units.contains(parts.last ?? "")
        return compound && parts.allSatisfy(available.contains) ? parts : nil
    }

    /// The error for a word no clip says: it names the word and, for an English compound, the
    /// parts that would also do ("forty' + 'five").
    public static func missing(_ word: String, phrase: Phrase) -> VocabularyError {
        let parts = word.split(separator: "-").map(String.init)
        let compound = phrase.composesCompounds && word.contains("-") && Phrase.units.contains(parts.last ?? "")
        let alternative = compound ? [parts.joined(separator: "' + '")] : []
        return VocabularyError(word: word, phrase: phrase.text, tried: [word] + alternative)
    }

    /// The fewest clips that say `words` (a lead-in, or the time after it).
    static func cover(
        _ words: ArraySlice<String>, phrase: Phrase, available: Set<String>, unitLengths: [Int]
    ) throws(VocabularyError) -> [String] {
        if unitLengths.isEmpty {
            var clips: [String] = []
            for word in words {
                guard let said = single(word, phrase: phrase, available: available) else {
                    throw missing(word, phrase: phrase)
                }
                clips += said
            }
            return clips
        }
        // best[i]: the fewest clips that say words[i...] (from the end back, so that at each
        // start the longest unit is tried first and kept on a tie).
        let w = Array(words)
        let n = w.count
        var best: [[String]?] = Array(repeating: nil, count: n + 1)
        best[n] = []
        for i in stride(from: n - 1, through: 0, by: -1) {
            var choice: [String]? = nil
            for k in unitLengths where k >= 2 && i + k <= n {
                let unit = w[i..<i + k].joined(separator: " ")
                if available.contains(unit), let tail = best[i + k], choice.map({ tail.count + 1 < $0.count }) ?? true {
                    choice = [unit] + tail
                }
            }
            if let said = single(w[i], phrase: phrase, available: available), let tail = best[i + 1],
                choice.map({ said.count + tail.count < $0.count }) ?? true
            {
                choice = said + tail
            }
            best[i] = choice
        }
        if let clips = best[0] { return clips }
        // The first word neither a clip of its own nor inside an available unit; else (units that
        // overlap but do not tile) the first word without a clip of its own.
        let gaps = uncovered(w, phrase: phrase, available: available, unitLengths: unitLengths)
        let word = gaps.first ?? w.first { single($0, phrase: phrase, available: available) == nil } ?? w[0]
        throw missing(word, phrase: phrase)
    }

    /// The words of `words` that no clip can say: not a clip (or composed compound) of their own,
    /// and inside no unit of the pack that matches the phrase there. In phrase order.
    public static func uncovered(_ words: [String], phrase: Phrase, available: Set<String>, unitLengths: [Int]) -> [String] {
        var covered = words.map { single($0, phrase: phrase, available: available) != nil }
        for k in unitLengths where k >= 2 && k <= words.count {
            for i in 0...(words.count - k) where available.contains(words[i..<i + k].joined(separator: " ")) {
                for j in i..<i + k { covered[j] = true }
            }
        }
        return words.indices.filter { !covered[$0] }.map { words[$0] }
    }

    /// Every minute of the day (0 … 1439) that the clip set cannot say, with the reason.
    public static func unsayableMinutes(available: Set<String>, style: PhraseStyle) -> [(minuteOfDay: Int, error: VocabularyError)] {
        var failures: [(Int, VocabularyError)] = []
        for m in 0..<1440 {
            let phrase = Phrase.forTime(hour: m / 60, minute: m % 60, style: style)
            do throws(VocabularyError) {
                _ = try clips(for: phrase, available: available)
            } catch {
                failures.append((m, error))
            }
        }
        return failures
    }
}
