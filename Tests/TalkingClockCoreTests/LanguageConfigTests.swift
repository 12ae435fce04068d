import XCTest

@testable import TalkingClockCore
import TestSupport

/// The language in the config and the core's phrases: a grammar per language, checked choices.
final class LanguageConfigTests: XCTestCase {
    func parse(_ text: String) throws -> Config { try Config.parse(text, source: "config.toml", zones: TestZones.lookup) }

    func error(_ text: String) -> String? {
        do { _ = try parse(text) } catch { return "\(error)" }
        return nil
    }

    func testLanguageKeyAndEachLanguagesDefaultPhrasing() throws {
        XCTAssertEqual(try parse("").language, "en-US")
        XCTAssertEqual(try parse("").phrasing, .twelveHour, "en-US defaults to 12h")
        let de = try parse("language = \"de\"")
        XCTAssertEqual(de.phrasing, .casual, "the other languages default to casual")
        XCTAssertEqual(de.announcementStyle.phrase, PhraseStyle(language: "de", phrasing: .casual))
        XCTAssertEqual(try parse("language = \"en-gb\"").language, "en-GB", "a tag is matched regardless of case")
        XCTAssertEqual(try parse("language = \"fr\"\nphrasing = \"24h\"").phrasing, .twentyFourHour)
    }

    func testErrorsListTheChoices() {
        let known = "en-US, en-GB, de, de-AT, fr, es, es-419, it, nl, pl, ru"
        XCTAssertEqual(
            error("language = \"xx\""),
            "config.toml: line 1: unknown language \"xx\"; the clock speaks: \(known).")
        XCTAssertEqual(
            error("language = \"de\"\nphrasing = \"12h\""),
            "config.toml: line 2: language de has no phrasing \"12h\"; it has: casual, 24h.")
        XCTAssertEqual(
            error("phrasing = \"official\""),
            "config.toml: line 1: language en-US has no phrasing \"official\"; it has: 12h, 24h, casual (set 'language', or choose one of those).")
        XCTAssertEqual(
            error("language = \"es\"\nlead-in = \"its\""),
            "config.toml: line 2: language es has no lead-in \"its\" (it has none); use lead-in = \"none\".")
    }

    func testOverridesAreCheckedTogether() throws {
        let file = try parse("phrasing = \"12h\"")
        let merged = file.merged(with: ConfigOverrides(language: "de"))
        XCTAssertThrowsError(try merged.checkSpeech(source: "--language")) { error in
            XCTAssertEqual("\(error)", "--language: language de has no phrasing \"12h\"; it has: casual, 24h.")
        }
        XCTAssertNoThrow(try Config().merged(with: ConfigOverrides(language: "de")).checkSpeech(source: "--language"))
    }

    func testPhrasesComeFromTheLanguagesGrammar() {
        let rows: [(String, Phrasing?, LeadIn, Int, Int, String, Int, String)] = [
            ("de", nil, .none, 15, 30, "halb vier", 0, "casual names the next hour"),
            ("de", .twentyFourHour, .none, 15, 45, "fünfzehn Uhr fünfundvierzig", 0, "official style"),
            ("de", nil, .its, 15, 30, "es ist halb vier", 2, "a two-word lead-in: both words before the gap"),
            ("fr", nil, .none, 12, 45, "une heure moins le quart", 0, "the wrap past noon"),
            ("en-US", nil, .its, 9, 15, "it's nine fifteen AM", 1, "English unchanged"),
            ("en-GB", nil, .none, 15, 45, "quarter to four", 0, "en-GB casual"),
        ]
        for (tag, phrasing, leadIn, h, m, text, count, why) in rows {
            let phrase = Phrase.forTime(
                hour: h, minute: m, style: PhraseStyle(language: tag, phrasing: phrasing, leadIn: leadIn))
            XCTAssertEqual(phrase.text, text, why)
            XCTAssertEqual(phrase.leadInCount, count, why)
            XCTAssertEqual(phrase.language, tag)
        }
    }

    func testLeadInCountOfThePlanIsTheLeadInsWords() throws {
        let style = AnnouncementStyle(phrase: PhraseStyle(language: "de", leadIn: .its), chime: .none)
        let words = Phrase.forTime(hour: 15, minute: 30, style: style.phrase).words
        let plan = try AnnouncementPlan.make(hour: 15, minute: 30, style: style, pattern: nil, available: Set(words))
        XCTAssertEqual(plan.voiceClips, ["es", "ist", "halb", "vier"])
        XCTAssertEqual(plan.leadInCount, 2)
    }

    func testOnlyEnglishComposesCompounds() throws {
        let en = Phrase.forTime(hour: 15, minute: 37, style: PhraseStyle(phrasing: .twentyFourHour))
        XCTAssertEqual(try Vocabulary.clips(for: en, available: ["fifteen", "thirty", "seven"]), ["fifteen", "thirty", "seven"])
        // A hyphenated word of another language is one clip: never cut into parts.
        let other = Phrase(words: ["thirty-seven"], text: "thirty-seven", language: "de")
        XCTAssertThrowsError(try Vocabulary.clips(for: other, available: ["thirty", "seven"]))
    }
}
