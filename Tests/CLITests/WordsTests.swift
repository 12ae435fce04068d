import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// `talking-clock words`: the words and phrases a pack of a language needs, as the pack tools and
/// a person recording a pack read them.
final class WordsTests: XCTestCase {
    func run(_ args: [String]) throws -> BinaryRunner.Outcome { try BinaryRunner.run(["words"] + args) }

    func testTheWordsAreTheGrammarsInTheOrderTheDayNeedsThem() throws {
        let de = try run(["--language", "de-AT"])
        XCTAssertEqual(de.status, 0, de.stderr)
        let words = de.stdout.split(separator: "\n").map(String.init)
        // 00:00 Mitternacht, 00:01 "eine Minute nach zwölf", …, 00:15 "viertel eins", …, 00:45 "dreiviertel eins".
        XCTAssertEqual(Array(words.prefix(5)), ["mitternacht", "eine", "minute", "nach", "zwölf"])
        XCTAssertEqual(Set(words), Set(SpokenLanguages.vocabulary(of: "de-AT", phrasing: .casual)))
        XCTAssertEqual(words.count, Set(words).count, "each word once")
        XCTAssertLessThan(words.firstIndex(of: "viertel")!, words.firstIndex(of: "dreiviertel")!)

        // English 24h: "midnight" only when the option is on, so it comes last; the lead-in first.
        let en = try run(["--phrasing", "24h", "--lead-in", "its"])
        XCTAssertEqual(en.status, 0, en.stderr)
        let enWords = en.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(enWords.first, "its")
        XCTAssertEqual(enWords.last, "midnight")
        XCTAssertEqual(
            Array(enWords.dropFirst().prefix(4)), ["zero", "hundred", "oh", "one"],
            "00:00 zero hundred, 00:01 zero zero oh one")
    }

    func testPhrasesAreOneLinePerMinuteOfClipIds() throws {
        let r = try run(["--language", "fr", "--phrases"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(lines.count, 1440)
        XCTAssertEqual(lines[0], "00:00\tminuit")
        XCTAssertEqual(lines[45], "00:45\tune heure moins le quart")
        XCTAssertEqual(lines[15 * 60 + 30], "15:30\ttrois heures et demie")
        XCTAssertEqual(lines[1439], "23:59\tminuit moins une")
        let informal = try run(["--language", "en-GB", "--phrasing", "informal", "--phrases"])
        XCTAssertTrue(informal.stdout.contains("\n15:30\thalf three\n"), informal.stdout)
    }

    func testPhrasingsAreListedDefaultFirstAndBadInputIsRefused() throws {
        XCTAssertEqual(try run(["--language", "en-GB", "--list-phrasings"]).stdout, "casual\n12h\n24h\ninformal\n")
        XCTAssertEqual(try run(["--language", "es-419", "--list-phrasings"]).stdout, "casual\n24h\n")
        let phrasing = try run(["--language", "de", "--phrasing", "12h"])
        XCTAssertEqual(phrasing.status, ExitStatus.badInput.rawValue)
        XCTAssertEqual(
            phrasing.stderr, "talking-clock: --phrasing: language de has no phrasing \"12h\"; it has: casual, 24h.\n")
        let language = try run(["--language", "de-CH"])
        XCTAssertEqual(language.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(
            language.stderr.contains("--language: unknown language \"de-CH\"; the clock speaks: "), language.stderr)
        let leadIn = try run(["--language", "es", "--lead-in", "its"])
        XCTAssertEqual(leadIn.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(leadIn.stderr.contains("--lead-in: language es has no lead-in \"its\""), leadIn.stderr)
    }
}
