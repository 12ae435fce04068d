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
        return nil
    }

    /// Minutes of the day from 13:00 round to 12:59: first :15/:30/:45, then :00, then the rest.
    static let searchOrder: [Int] = {
        let day = (0..<1440).map { (13 * 60 + $0) % 1440 }
        return day.filter { $0 % 15 == 0 && $0 % 60 != 0 } + day.filter { $0 % 60 == 0 } + day.filter { $0 % 15 != 0 }
    }()

    /// The prompt for one word: the phrase in lower case with the word to say in capitals,
    /// e.g. `"three FORTY-FIVE pm"`.
    public static func prompt(_ phrase: Phrase, marking index: Int) -> String {
        let words = phrase.words.enumerated().map { i, word in
            let shown = Phrase.display(word).lowercased()
            return i == index ? shown.uppercased() : shown
        }
        return "\"" + words.joined(separator: " ") + "\""
    }

    /// How a word is written for the speaker: "it's", "the time is", "PM".
    public static func spoken(_ word: String) -> String { Phrase.display(word) }

    /// Checks a word given on the command line.
    public static func validate(_ word: String) throws(RecordingWordError) {
        guard allWords.contains(word) else {
            throw RecordingWordError(word: word, suggestion: Suggestion.closest(to: word, in: allWords))
        }
    }
}

/// A word that no phrase uses, with the closest one if it looks like a typo.
public struct RecordingWordError: Error, Hashable, Sendable, CustomStringConvertible {
    public var word: String
    public var suggestion: String?

    public var description: String {
        let hint = suggestion.map { " Did you mean '\($0)'?" } ?? ""
        return
            "'\(word)' is not a word talking-clock says.\(hint) Words are clip ids: zero … fifty-nine (compounds with"
            + " a hyphen, e.g. forty-five), oh, am, pm, noon, midnight, hundred, its, the-time-is."
    }
}
