import TalkingClockCore
import XCTest

@testable import PhraseGrammar

/// Properties over every minute of the day, for every shipped language and phrasing.
final class PhraseGrammarPropertyTests: XCTestCase {
    func testEveryMinuteHasAPhraseInEveryPhrasing() throws {
        for tag in Languages.shipped {
            let grammar = try Languages.grammar(tag)
            XCTAssertEqual(grammar.problems(), [], tag)
            for phrasing in grammar.phrasings {
                let period = try grammar.phrasing(phrasing).twelveHour ? 720 : 1440
                var minuteOf: [String: Int] = [:]
                for m in 0..<1440 {
                    let phrase = try grammar.phrase(hour: m / 60, minute: m % 60, phrasing: phrasing)
                    XCTAssertFalse(phrase.words.isEmpty, "\(tag) \(phrasing) \(m / 60):\(m % 60)")
                    XCTAssertFalse(phrase.words.contains(""), "\(tag) \(phrasing): an empty clip id")
                    // A 24-hour phrasing tells every minute apart; a 12-hour one every minute of half a day.
                    if let other = minuteOf[phrase.text] {
                        XCTAssertEqual(
                            other % period, m % period, "\(tag) \(phrasing): '\(phrase.text)' says two times")
                    }
                    minuteOf[phrase.text] = m
                }
            }
        }
    }

    /// Clip ids are lowercase words in the language's own script, without spaces.
    func testClipIdsAreLowercaseWords() throws {
        for tag in Languages.shipped {
            let grammar = try Languages.grammar(tag)
            for phrasing in grammar.phrasings {
                for word in try grammar.vocabulary(of: phrasing) {
                    XCTAssertEqual(word, word.lowercased(), "\(tag) \(phrasing): '\(word)'")
                    XCTAssertFalse(word.contains(" ") || word.contains("{"), "\(tag) \(phrasing): '\(word)'")
                }
            }
        }
    }

    /// The core part of the issue: en-US 12h (and 24h) are today's English, word for word.
    func testAmericanEnglishEqualsTodaysPhraseForAllMinutes() throws {
        let grammar = try Languages.grammar("en-US")
        XCTAssertEqual(grammar.defaultPhrasing, "12h")
        let cases: [(PhraseStyle, String, String?, Set<String>)] = [
            (PhraseStyle(phrasing: .twelveHour), "12h", nil, []),
            (PhraseStyle(phrasing: .twelveHour, leadIn: .its), "12h", "its", []),
            (PhraseStyle(phrasing: .twelveHour, leadIn: .theTimeIs), "12h", "the-time-is", []),
            (PhraseStyle(phrasing: .twentyFourHour), "24h", nil, []),
            (PhraseStyle(phrasing: .twentyFourHour, midnight: .midnight), "24h", nil, ["midnight"]),
            (PhraseStyle(phrasing: .twentyFourHour, leadIn: .its), "24h", "its", []),
        ]
        for (style, phrasing, leadIn, options) in cases {
            for m in 0..<1440 {
                let old = Phrase.forTime(hour: m / 60, minute: m % 60, style: style)
                let new = try grammar.phrase(
                    hour: m / 60, minute: m % 60, phrasing: phrasing, leadIn: leadIn, options: options)
                XCTAssertEqual(new.words, old.words, "\(phrasing) \(m / 60):\(m % 60)")
                XCTAssertEqual(new.text, old.text, "\(phrasing) \(m / 60):\(m % 60)")
            }
        }
    }

    /// Casual phrasings are 12-hour: every hour they name is 1…12 (or noon/midnight's word),
    /// never 0 or 13+ ("13 o'clock", "Viertel nach zwanzig").
    func testCasualNeverNamesHourZeroOrThirteenPlus() throws {
        for tag in Languages.shipped {
            let grammar = try Languages.grammar(tag)
            XCTAssertTrue(try grammar.phrasing("casual").twelveHour, tag)
            for m in 0..<1440 {
                let (_, words, hours) = try grammar.explain(hour: m / 60, minute: m % 60, phrasing: "casual")
                for named in hours {
                    XCTAssertTrue(
                        named.quantity == .hour || named.quantity == .next, "\(tag) \(m): names \(named.quantity)")
                    XCTAssertTrue(
                        (1...12).contains(named.value),
                        "\(tag) casual \(m / 60):\(m % 60) names hour \(named.value): \(words)")
                }
            }
        }
    }

    /// Where each language names the next hour (the rest of the hour names the current one).
    /// These ranges are what the languages say (LANGUAGES.md and the table tests), not read from the files.
    static let nextHourMinutes: [String: Set<Int>] = [
        "en-US": Set(31...59),  // "twenty-five to four"
        "en-GB": Set(31...59),  // informal "half three" at :30 too: the hour in progress
        "de": Set(21...59),  // "fünf vor halb vier", "halb vier", "zwanzig vor vier"
        "de-AT": Set(21...59).union([15]),  // and "viertel vier" at 15:15
        "nl": Set(16...59),  // "veertien voor half vier"
        "fr": Set(35...59),  // "quatre heures moins vingt-cinq"
        "es": Set(35...59),  // "las cuatro menos veinticinco"
        "es-419": Set(35...59),  // "veinticinco para las cuatro"
        "it": Set(40...59),  // "le quattro meno venti"
        "pl": Set(30...59),  // "wpół do czwartej", "za dwadzieścia dziewięć czwarta"
        "ru": Set(1...59),  // "пять минут четвёртого", "без пяти четыре"
    ]

    func testTheHourNamedIsTheNextOneWhereTheLanguageSaysSo() throws {
        XCTAssertEqual(Set(Self.nextHourMinutes.keys), Set(Languages.shipped))
        for tag in Languages.shipped {
            let grammar = try Languages.grammar(tag)
            for phrasing in grammar.phrasings {
                let range: Set<Int> = ["casual", "informal"].contains(phrasing) ? Self.nextHourMinutes[tag]! : []
                for h in 0..<24 {
                    for m in 0..<60 {
                        let (_, words, hours) = try grammar.explain(hour: h, minute: m, phrasing: phrasing)
                        let context = "\(tag) \(phrasing) \(h):\(m) \(words)"
                        let named = hours.filter { $0.quantity != .hour24 && $0.quantity != .next24 }
                        if m != 0 { XCTAssertFalse(named.isEmpty, "\(context): names no hour") }
                        for hour in named {
                            if range.contains(m) {
                                XCTAssertEqual(hour.hourOfDay, (h + 1) % 24, "\(context): should name the next hour")
                            } else {
                                XCTAssertEqual(hour.hourOfDay, h, "\(context): should name this hour")
                            }
                        }
                    }
                }
            }
        }
    }

    /// The clip ids themselves, for the traps the issue names.
    func testWordsAreClipIds() throws {
        let rows: [(String, Int, Int, [String])] = [
            ("de", 15, 30, ["halb", "vier"]),
            ("de", 1, 0, ["ein", "uhr"]),
            ("pl", 15, 30, ["wpół", "do", "czwartej"]),
            ("ru", 15, 45, ["без", "четверти", "четыре"]),
            ("ru", 15, 15, ["четверть", "четвёртого"]),
            ("it", 13, 0, ["è", "l'una"]),
            ("fr", 12, 30, ["midi", "et", "demi"]),
            ("es", 12, 45, ["es", "la", "una", "menos", "cuarto"]),
            ("en-GB", 15, 0, ["three", "oclock"]),
            ("nl", 15, 40, ["tien", "over", "half", "vier"]),
        ]
        for (tag, h, m, words) in rows {
            XCTAssertEqual(try Languages.grammar(tag).words(hour: h, minute: m), words, "\(tag) \(h):\(m)")
        }
    }

    func testDefaultsAndPhrasings() throws {
        for tag in Languages.shipped {
            let grammar = try Languages.grammar(tag)
            let expected =
                tag == "en-GB" ? ["12h", "24h", "casual", "informal"]
                : tag.hasPrefix("en") ? ["12h", "24h", "casual"] : ["casual", "24h"]
            XCTAssertEqual(Set(grammar.phrasings), Set(expected), tag)
            XCTAssertEqual(grammar.defaultPhrasing, tag == "en-US" ? "12h" : "casual", tag)
            XCTAssertEqual(grammar.tag, tag)
        }
    }
}
