/// How times are put into words.
public enum Phrasing: String, Sendable, Codable, CaseIterable {
    /// "three forty-five PM", "noon", "midnight".
    case twelveHour = "12h"
    /// "fifteen forty-five", "oh seven oh five", "zero hundred".
    case twentyFourHour = "24h"
}

/// What to say at 00:00 in 24-hour style ("zero hundred" unless the user prefers "midnight";
/// 12-hour style always says "midnight").
public enum MidnightStyle: String, Sendable, Codable, CaseIterable {
    case midnight
    case zeroHundred = "zero-hundred"
}

/// An optional phrase before the time.
public enum LeadIn: String, Sendable, Codable, CaseIterable {
    case none
    case its
    case theTimeIs = "the-time-is"

    var word: String? {
        switch self {
        case .none: nil
        case .its: "its"
        case .theTimeIs: "the-time-is"
        }
    }
}

/// Options that shape the words of an announcement.
public struct PhraseStyle: Hashable, Sendable {
    public var phrasing: Phrasing
    public var midnight: MidnightStyle
    public var leadIn: LeadIn

    public init(phrasing: Phrasing = .twelveHour, midnight: MidnightStyle = .zeroHundred, leadIn: LeadIn = .none) {
        self.phrasing = phrasing
        self.midnight = midnight
        self.leadIn = leadIn
    }

    public static let standard = PhraseStyle()
}

/// The words for a time of day. Word ids are lowercase, compounds hyphenated ("forty-five");
/// they double as the preferred clip ids of a sound pack.
public struct Phrase: Hashable, Sendable, CustomStringConvertible {
    public var words: [String]

    public init(words: [String]) { self.words = words }

    /// Display text: "three forty-five PM", "it's noon".
    public var text: String { words.map(Phrase.display).joined(separator: " ") }
    public var description: String { text }

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

    /// The word for 0 … 59 ("zero", "seven", "fifteen", "forty-five").
    public static func number(_ n: Int) -> String {
        precondition((0..<60).contains(n), "number(\(n)) is outside 0…59")
        if n < 20 { return units[n] }
        return n % 10 == 0 ? tens[n / 10] : "\(tens[n / 10])-\(units[n % 10])"
    }

    /// Minutes after the hour as spoken after an hour word: 5 → "oh five", 30 → "thirty".
    static func minuteWords(_ minute: Int) -> [String] {
        minute < 10 ? ["oh", number(minute)] : [number(minute)]
    }

    /// The phrase for `hour:minute` (24-hour clock values).
    public static func forTime(hour: Int, minute: Int, style: PhraseStyle = .standard) -> Phrase {
        precondition((0..<24).contains(hour) && (0..<60).contains(minute), "invalid time \(hour):\(minute)")
        var words: [String] = []
        if let lead = style.leadIn.word { words.append(lead) }
        switch style.phrasing {
        case .twelveHour:
            if minute == 0 && hour == 0 {
                words.append("midnight")
            } else if minute == 0 && hour == 12 {
                words.append("noon")
            } else {
                let h12 = hour % 12 == 0 ? 12 : hour % 12
                words.append(number(h12))
                if minute != 0 { words += minuteWords(minute) }
                words.append(hour < 12 ? "am" : "pm")
            }
        case .twentyFourHour:
            if hour == 0 && minute == 0 && style.midnight == .midnight {
                words.append("midnight")
            } else {
                if hour == 0 {
                    words.append("zero")
                } else if hour < 10 {
                    words += ["oh", number(hour)]
                } else {
                    words.append(number(hour))
                }
                words += minute == 0 ? ["hundred"] : minuteWords(minute)
            }
        }
        return Phrase(words: words)
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
public enum Vocabulary {
    public static func clips(for phrase: Phrase, available: Set<String>) throws(VocabularyError) -> [String] {
        var clips: [String] = []
        for word in phrase.words {
            if available.contains(word) {
                clips.append(word)
                continue
            }
            let parts = word.split(separator: "-").map(String.init)
            if word.contains("-"), Phrase.units.contains(parts.last ?? ""), parts.allSatisfy(available.contains) {
                clips += parts
                continue
            }
            let alternative = word.contains("-") && Phrase.units.contains(parts.last ?? "") ? [parts.joined(separator: "' + '")] : []
            throw VocabularyError(word: word, phrase: phrase.text, tried: [word] + alternative)
        }
        return clips
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
