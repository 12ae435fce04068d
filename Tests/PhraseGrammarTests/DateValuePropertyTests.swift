import TalkingClockCore
import XCTest

@testable import PhraseGrammar

/// Properties over every date of a leap year and every value of the range, in every shipped
/// language: a phrase for each, made of known clip ids, the same every time, no two alike.
final class DateValuePropertyTests: XCTestCase {
    /// The words of a phrase are its text in lower case, without commas: a clip id per written
    /// word (no display form of a date or value holds a space).
    func assertWordsAreTheText(_ phrase: Phrase, _ context: String, file: StaticString = #filePath, line: UInt = #line)
    {
        let written = phrase.text.lowercased().replacingOccurrences(of: ",", with: "").split(separator: " ").map(
            String.init)
        XCTAssertEqual(phrase.words, written, context, file: file, line: line)
        for word in phrase.words {
            XCTAssertFalse(
                word.isEmpty || word.contains("{") || word.contains(","), "\(context): '\(word)'", file: file,
                line: line)
        }
    }

    func testEveryDateOfALeapYearInEveryLanguage() throws {
        XCTAssertEqual(CalendarDate.leapYear.count, 366)
        for tag in Languages.shipped {
            let known = Set(SpokenLanguages.dateWords(of: tag))
            XCTAssertFalse(known.isEmpty, tag)
            var texts: [String: CalendarDate] = [:]
            var used = Set<String>()
            for day in CalendarDate.leapYear {
                let phrase = try Phrase.forDate(day, language: tag)
                let context = "\(tag) \(day)"
                XCTAssertFalse(phrase.words.isEmpty, context)
                assertWordsAreTheText(phrase, context)
                XCTAssertTrue(known.isSuperset(of: phrase.words), "\(context): \(phrase.words) not all in dateWords")
                XCTAssertEqual(try Phrase.forDate(day, language: tag), phrase, "\(context): deterministic")
                if let other = texts[phrase.text] { XCTFail("\(tag): '\(phrase.text)' says \(other) and \(day)") }
                texts[phrase.text] = day
                used.formUnion(phrase.words)
            }
            XCTAssertEqual(used, known, "\(tag): dateWords lists exactly the words the year says")
        }
    }

    func testEveryValueInEveryUnitInEveryLanguage() throws {
        XCTAssertEqual(SpokenLanguages.valueRange, -99...150)
        for tag in Languages.shipped {
            XCTAssertEqual(SpokenLanguages.units(of: tag), [.degrees, .percent], tag)
            for unit in SpokenLanguages.units(of: tag) {
                let known = Set(SpokenLanguages.valueWords(of: tag, unit: unit))
                var texts = Set<String>()
                var used = Set<String>()
                for n in SpokenLanguages.valueRange {
                    let phrase = try Phrase.forValue(n, unit: unit, language: tag)
                    let context = "\(tag) \(n) \(unit)"
                    assertWordsAreTheText(phrase, context)
                    XCTAssertTrue(known.isSuperset(of: phrase.words), "\(context): \(phrase.words)")
                    XCTAssertEqual(
                        try Phrase.forValue(n, unit: unit, language: tag), phrase, "\(context): deterministic")
                    XCTAssertTrue(texts.insert(phrase.text).inserted, "\(context): '\(phrase.text)' says two values")
                    // A negative value is its absolute value after the minus word.
                    if n < 0 {
                        let positive = try Phrase.forValue(-n, unit: unit, language: tag)
                        XCTAssertEqual(Array(phrase.words.dropFirst()), positive.words, context)
                    }
                    used.formUnion(phrase.words)
                }
                XCTAssertEqual(used, known, "\(tag) \(unit): valueWords lists exactly the words the range says")
            }
        }
    }

    /// A clip id is a word form: where the date or a value says a number as the time does, it is
    /// the same clip ("двадцать", "vingt", "treinta y", "sto" is new).
    func testDatesAndValuesReuseTheTimesNumberWords() throws {
        let rows: [(tag: String, word: String, phrasing: String)] = [
            ("ru", "двадцать", "24h"),  // двадцать восьмое ноября / двадцать один градус
            ("fr", "vingt", "24h"),  // vingt et un novembre / vingt heures
            ("fr", "et", "casual"),  // vingt et un / et quart
            ("es", "treinta", "24h"),  // treinta y uno de enero
            ("es", "un", "casual"),  // un grado / un minuto
            ("it", "un", "casual"),  // un grado / un quarto
            ("de", "ein", "casual"),  // ein Grad / ein Uhr
            ("nl", "één", "casual"),  // één graad / één uur
            ("pl", "dwadzieścia", "24h"),  // dwadzieścia jeden stopni
            ("en-US", "hundred", "24h"),  // one hundred degrees / fifteen hundred
        ]
        for row in rows {
            let time = SpokenLanguages.vocabulary(of: row.tag, phrasing: Phrasing(rawValue: row.phrasing))
            let said = Set(SpokenLanguages.dateWords(of: row.tag)).union(
                SpokenLanguages.valueWords(of: row.tag, unit: .degrees))
            XCTAssertTrue(time.contains(row.word), "\(row.tag): the time says '\(row.word)'")
            XCTAssertTrue(said.contains(row.word), "\(row.tag): a date or a value says '\(row.word)'")
        }
    }

    func testCalendarDatesAndTheirWeekdays() throws {
        let rows: [(String, Int, String)] = [
            ("1970-01-01", 4, "the epoch was a Thursday"),
            ("2024-01-01", 1, "the leap year check proves begins on a Monday"),
            ("2024-02-29", 4, "leap day 2024"),
            ("2000-02-29", 2, "2000 is a leap year (divisible by 400)"),
            ("2026-11-28", 6, "the issue's 'Saturday, the twenty-eighth of November'"),
            ("1969-12-31", 3, "before the epoch"),
            ("0001-01-01", 1, "the proleptic Gregorian calendar starts on a Monday"),
            ("9999-12-31", 5, "the last day --date takes"),
        ]
        for (text, weekday, why) in rows {
            let day = try CalendarDate(parsing: text)
            XCTAssertEqual(day.weekday, weekday, "\(text): \(why)")
            XCTAssertEqual(day.description, text)
        }
        // The grammar's own leap year (for word lists) agrees with the calendar's.
        XCTAssertEqual(Grammar.leapYear.map(\.weekday), CalendarDate.leapYear.map(\.weekday))
        XCTAssertEqual(Grammar.leapYear.map(\.day), CalendarDate.leapYear.map(\.day))
        let refused: [(String, String)] = [
            ("2023-02-29", "'2023-02-29' is not a date: February 2023 has 28 days."),
            ("1900-02-29", "'1900-02-29' is not a date: February 1900 has 28 days."),
            ("2026-04-31", "'2026-04-31' is not a date: April 2026 has 30 days."),
            ("2026-13-01", "'2026-13-01' is not a date: there is no month 13; months are 01 to 12."),
            ("2026-00-10", "'2026-00-10' is not a date: there is no month 0; months are 01 to 12."),
            ("2026-11-00", "'2026-11-00' is not a date: November 2026 has 30 days."),
            ("2026-1-1", "'2026-1-1' is not a date; write it YYYY-MM-DD, e.g. 2026-11-28."),
            ("28.11.2026", "'28.11.2026' is not a date; write it YYYY-MM-DD, e.g. 2026-11-28."),
            ("", "'' is not a date; write it YYYY-MM-DD, e.g. 2026-11-28."),
            ("0000-01-01", "'0000-01-01' is not a date: years start at 0001."),
            ("+026-11-28", "'+026-11-28' is not a date; write it YYYY-MM-DD, e.g. 2026-11-28."),
        ]
        for (text, message) in refused {
            XCTAssertThrowsError(try CalendarDate(parsing: text), text) { XCTAssertEqual("\($0)", message) }
        }
    }

    func testRequestsTheClockCannotSayAreRefusedByName() throws {
        XCTAssertThrowsError(try Phrase.forValue(21, unit: "kelvin", language: "de")) {
            XCTAssertEqual("\($0)", "Language de has no unit \"kelvin\" (it says: degrees, percent).")
        }
        XCTAssertThrowsError(try Phrase.forDate(try CalendarDate(parsing: "2026-11-28"), language: "xx")) {
            XCTAssertTrue("\($0)".hasPrefix("Unknown language \"xx\"; the clock speaks: en-US, en-GB"), "\($0)")
        }
        let german = try Languages.grammar("de").datesAndValues()
        XCTAssertThrowsError(try german.date(weekday: 8, day: 1, month: 1)) {
            XCTAssertEqual(($0 as? GrammarError)?.kind, .outOfRange)
        }
        XCTAssertThrowsError(try german.date(weekday: 1, day: 32, month: 1))
        XCTAssertThrowsError(try german.date(weekday: 1, day: 1, month: 13))
        XCTAssertEqual(
            try german.date(weekday: 6, day: 28, month: 11).words, ["samstag", "der", "achtundzwanzigste", "november"])
    }
}
