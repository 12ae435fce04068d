import TalkingClockCore
import XCTest

/// record-pack's script with --dates and --values: the words of dates and values after the
/// time's, each shown inside a date or a value.
final class RecordingScriptDateValueTests: XCTestCase {
    func testTheScriptAddsTheDateAndValueWordsAfterTheTimes() throws {
        let time = RecordingScript.words(language: "de", phrasing: .casual)
        let all = RecordingScript.words(language: "de", phrasing: .casual, dates: true, values: true)
        XCTAssertEqual(Array(all.prefix(time.count)), time, "the time's words first, as before")
        XCTAssertEqual(Set(all).count, all.count, "each word once")
        for word in ["samstag", "der", "achtundzwanzigste", "jänner", "grad", "prozent", "minus", "hundert"]
        where word != "jänner" {
            XCTAssertTrue(all.contains(word), word)
        }
        XCTAssertFalse(all.contains("jänner"), "de-AT's January is not de's")
        XCTAssertTrue(
            RecordingScript.words(language: "de-AT", phrasing: .casual, dates: true, values: false).contains("jänner"))
        XCTAssertEqual(
            RecordingScript.words(language: "de", phrasing: .casual, dates: false, values: false), time,
            "without --dates and --values the script is the time's")
        let dates = RecordingScript.words(language: "de", phrasing: .casual, dates: true, values: false)
        XCTAssertFalse(dates.contains("grad"))
        XCTAssertTrue(dates.contains("dezember"))
        // Every word a date or a value says is in the script (the time's words included).
        let said = Set(
            SpokenLanguages.dateWords(of: "de") + SpokenLanguages.valueWords(of: "de", unit: .degrees)
                + SpokenLanguages.valueWords(of: "de", unit: .percent))
        XCTAssertTrue(Set(all).isSuperset(of: said), "\(said.subtracting(all))")
    }

    /// English compounds of values are composed from their parts, like the minutes'.
    func testEnglishValuesAreRecordedAsParts() throws {
        let parts = RecordingScript.valueWords(language: "en-US")
        XCTAssertTrue(parts.contains("sixty") && parts.contains("ninety") && parts.contains("one"))
        XCTAssertFalse(parts.contains("sixty-one"))
        XCTAssertTrue(RecordingScript.valueWords(language: "en-US", allCompounds: true).contains("sixty-one"))
        // Ordinals are never composed: "twenty-eighth" is not "twenty" + "eighth".
        XCTAssertTrue(RecordingScript.dateWords(language: "en-US").contains("twenty-eighth"))
    }

    func testADateOrValueWordIsShownInsideADateOrAValue() throws {
        let ordinal = try XCTUnwrap(
            RecordingScript.carrier(for: "achtundzwanzigste", language: "de", phrasing: .casual))
        XCTAssertEqual(ordinal.phrase.kind, .date)
        XCTAssertEqual(
            RecordingScript.prompt(ordinal.phrase, marking: ordinal.index), "\"sonntag, der ACHTUNDZWANZIGSTE januar\"")
        let unit = try XCTUnwrap(RecordingScript.carrier(for: "stopnie", language: "pl", phrasing: .casual))
        XCTAssertEqual(RecordingScript.prompt(unit.phrase, marking: unit.index), "\"dwa STOPNIE\"")
        let english = try XCTUnwrap(RecordingScript.carrier(for: "saturday", phrasing: .twelveHour))
        XCTAssertEqual(RecordingScript.prompt(english.phrase, marking: english.index), "\"SATURDAY, january sixth\"")
        // A word the time says keeps its time carrier.
        XCTAssertEqual(
            try XCTUnwrap(RecordingScript.carrier(for: "drei", language: "de", phrasing: .casual)).phrase.kind, .time)
        // A unit of a value: "pour cent" said together.
        let pourCent = try XCTUnwrap(RecordingScript.carrier(forUnit: "pour cent", language: "fr", phrasing: .casual))
        XCTAssertEqual(RecordingScript.prompt(pourCent.phrase, marking: pourCent.range), "\"zéro POUR CENT\"")
    }

    func testDateAndValueWordsAreValidWordsToRecord() throws {
        for (word, language) in [
            ("saturday", "en-US"), ("twenty-eighth", "en-US"), ("sixty", "en-US"), ("degrees", "en-US"),
            ("grad", "de"), ("jänner", "de-AT"), ("градусов", "ru"), ("pour cent", "fr"), ("veintiún", "es"),
        ] {
            XCTAssertNoThrow(try RecordingScript.validate(word, language: language), "\(language) \(word)")
        }
        XCTAssertThrowsError(try RecordingScript.validate("gradd", language: "de")) {
            XCTAssertTrue(
                "\($0)".hasPrefix("'gradd' is not a word talking-clock says in de. Did you mean 'grad'?"), "\($0)")
        }
    }
}
