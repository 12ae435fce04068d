import TalkingClockCore
import XCTest

/// What `record-pack` asks a person to say, and in which phrase.
final class RecordingScriptTests: XCTestCase {
    func testTwelveHourWordsAreTheUnitsTensQuarterCompoundAndMarkers() {
        XCTAssertEqual(
            RecordingScript.words(for: .twelveHour),
            [
                "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                "thirteen",
                "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty",
                "forty-five",
                "fifty", "oh", "am", "pm", "noon", "midnight",
            ])
        let twentyFour = RecordingScript.words(for: .twentyFourHour)
        XCTAssertTrue(twentyFour.starts(with: ["zero", "one"]))
        XCTAssertTrue(
            Set(["twenty-one", "twenty-two", "twenty-three", "forty-five", "hundred", "midnight"]).isSubset(
                of: twentyFour))
        XCTAssertFalse(twentyFour.contains("am"))
        XCTAssertFalse(twentyFour.contains("twenty-four"), "composed: 'twenty' 'four'")
        XCTAssertEqual(RecordingScript.words(for: .twelveHour, allCompounds: true).count, 59 + 5)
    }

    func testTheRecordedWordsSayEveryMinute() {
        for phrasing in RecordingScript.englishPhrasings {
            for all in [false, true] {
                let words = Set(RecordingScript.words(for: phrasing, allCompounds: all))
                // Every minute, whichever way the user has 00:00 said…
                let styles = MidnightStyle.allCases.map { PhraseStyle(phrasing: phrasing, midnight: $0) }
                for style in styles {
                    XCTAssertTrue(Vocabulary.unsayableMinutes(available: words, style: style).isEmpty, "\(style) \(all)")
                }
                // …and no single word is superfluous (whole compounds are a choice, not a need).
                for word in words where !word.contains("-") {
                    XCTAssertTrue(
                        styles.contains { !Vocabulary.unsayableMinutes(available: words.subtracting([word]), style: $0).isEmpty },
                        "\(word) is not needed in \(phrasing)")
                }
            }
        }
    }

    func testEveryWordIsShownInsideAWholePhrase() throws {
        for word in RecordingScript.allWords {
            let carrier = try XCTUnwrap(RecordingScript.carrier(for: word, phrasing: .twelveHour), word)
            XCTAssertEqual(carrier.phrase.words[carrier.index], word)
        }
        func shown(_ word: String, _ phrasing: Phrasing = .twelveHour) -> String? {
            RecordingScript.carrier(for: word, phrasing: phrasing).map {
                RecordingScript.prompt($0.phrase, marking: $0.index)
            }
        }
        XCTAssertEqual(shown("forty-five"), "\"one FORTY-FIVE pm\"")
        XCTAssertEqual(shown("five"), "\"FIVE fifteen pm\"", "an hour word is shown as an hour at a quarter")
        XCTAssertEqual(shown("pm"), "\"one fifteen PM\"")
        XCTAssertEqual(shown("am"), "\"twelve fifteen AM\"")
        XCTAssertEqual(shown("oh"), "\"one OH one pm\"")
        XCTAssertEqual(shown("noon"), "\"NOON\"")
        XCTAssertEqual(shown("its"), "\"IT'S one fifteen pm\"")
        XCTAssertEqual(shown("the-time-is"), "\"THE TIME IS one fifteen pm\"")
        XCTAssertEqual(shown("hundred"), "\"thirteen HUNDRED\"", "a 24-hour word in 12-hour mode: a 24-hour phrase")
        XCTAssertEqual(shown("fifteen", .twentyFourHour), "\"thirteen FIFTEEN\"")
        XCTAssertEqual(RecordingScript.spoken("the-time-is"), "the time is")
    }

    func testUnknownWordsAreRefusedWithASuggestion() {
        XCTAssertNoThrow(try RecordingScript.validate("forty-five"))
        XCTAssertThrowsError(try RecordingScript.validate("fourty-five")) { error in
            let e = error as! RecordingWordError
            XCTAssertEqual(e.suggestion, "forty-five")
            XCTAssertTrue(
                e.description.hasPrefix("'fourty-five' is not a word talking-clock says. Did you mean 'forty-five'?"),
                e.description)
        }
        XCTAssertThrowsError(try RecordingScript.validate("banana")) { error in
            XCTAssertNil((error as! RecordingWordError).suggestion)
        }
    }
}

/// `record-pack --language`: the words of another language, each shown in a whole sentence of it.
final class LanguageRecordingScriptTests: XCTestCase {
    func testEveryWordOfAPhrasingIsRecordedWholeAndShownInASentence() throws {
        for tag in ["de", "fr", "pl", "ru"] {
            for phrasing in SpokenLanguages.phrasings(of: tag) {
                let words = RecordingScript.words(language: tag, phrasing: phrasing)
                XCTAssertEqual(Set(words), Set(SpokenLanguages.vocabulary(of: tag, phrasing: phrasing)), "\(tag) \(phrasing)")
                XCTAssertEqual(words.count, Set(words).count, "each word once")
                for word in words {
                    let carrier = try XCTUnwrap(
                        RecordingScript.carrier(for: word, language: tag, phrasing: phrasing), "\(tag) \(word)")
                    XCTAssertEqual(carrier.phrase.words[carrier.index], word)
                    XCTAssertEqual(carrier.phrase.language, tag)
                }
            }
        }
    }

    func testPromptsMarkTheWordInTheLanguagesOwnSentence() throws {
        func shown(_ word: String, _ tag: String, _ phrasing: Phrasing = .casual) -> String? {
            RecordingScript.carrier(for: word, language: tag, phrasing: phrasing).map {
                RecordingScript.prompt($0.phrase, marking: $0.index)
            }
        }
        // Quarter hours of the afternoon come first: 13:15, 13:30, 13:45.
        XCTAssertEqual(shown("halb", "de"), "\"HALB zwei\"", "13:30 names the next hour")
        XCTAssertEqual(shown("fünfundvierzig", "de"), "\"dreizehn uhr FÜNFUNDVIERZIG\"", "only 24h says it: its sentence")
        XCTAssertEqual(shown("четвёртого", "ru"), "\"четверть ЧЕТВЁРТОГО\"", "the genitive of the next hour")
        XCTAssertEqual(shown("es", "de"), "\"ES ist viertel nach eins\"", "a lead-in word is shown before a time")
        XCTAssertEqual(RecordingScript.spoken("uhr", language: "de"), "Uhr")
        XCTAssertNoThrow(try RecordingScript.validate("wpół", language: "pl"))
        XCTAssertThrowsError(try RecordingScript.validate("halb", language: "fr")) { error in
            XCTAssertTrue("\(error)".hasPrefix("'halb' is not a word talking-clock says in fr."), "\(error)")
        }
    }
}
