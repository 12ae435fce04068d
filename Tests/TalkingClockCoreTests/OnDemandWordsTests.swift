import TalkingClockCore
import XCTest

/// The words a daemon keeps decoded: everything but the words only dates and values say, unless
/// its config says dates (`date = "first"`, `{date}`) or values (`{value}` with `[value]`).
final class OnDemandWordsTests: XCTestCase {
    func parse(_ text: String) throws -> Config { try Config.parse(text, source: "config.toml") }

    func testAConfigThatSaysNeitherLeavesEveryDateAndValueWordOnDemand() throws {
        let words = try parse("").wordsSaidOnlyOnDemand
        for word in ["saturday", "november", "twenty-eighth", "first", "sixty", "ninety-nine", "minus", "degrees", "degree", "percent"] {
            XCTAssertTrue(words.contains(word), word)
        }
        // Words the time says too stay decoded: "twenty-one degrees" shares "twenty-one" with 3:21.
        for word in ["twenty-one", "fifty-nine", "one", "hundred", "zero", "oh", "quarter"] {
            XCTAssertFalse(words.contains(word), word)
        }
    }

    func testDateFirstKeepsTheDateWords() throws {
        let config = try parse("date = \"first\"")
        XCTAssertTrue(config.saysDates)
        XCTAssertNil(config.unitOfValuesSaid)
        let words = config.wordsSaidOnlyOnDemand
        XCTAssertFalse(words.contains("saturday"))
        XCTAssertFalse(words.contains("thirty-first"))
        XCTAssertTrue(words.contains("degrees"))
        XCTAssertTrue(words.contains("sixty"))
    }

    func testAReminderThatSaysAValueKeepsThatUnitsWords() throws {
        let config = try parse(
            """
            [[reminder]]
            at = "07:00"
            say = "{value} outside"

            [mqtt]
            broker = "mqtt://localhost"

            [value]
            topic = "home/outdoor"
            unit = "degrees"
            """)
        XCTAssertFalse(config.saysDates)
        XCTAssertEqual(config.unitOfValuesSaid, .degrees)
        let words = config.wordsSaidOnlyOnDemand
        for word in ["degrees", "degree", "minus", "sixty", "ninety-nine"] { XCTAssertFalse(words.contains(word), word) }
        XCTAssertTrue(words.contains("percent"))
        XCTAssertTrue(words.contains("saturday"))
    }

    func testAReminderWithTheDateAndAValueTableNobodyReads() throws {
        let config = try parse(
            """
            [[reminder]]
            at = "07:00"
            say = "Good morning, it is {date}"

            [mqtt]
            broker = "mqtt://localhost"

            [value]
            topic = "home/outdoor"
            unit = "percent"
            """)
        XCTAssertTrue(config.saysDates)
        XCTAssertNil(config.unitOfValuesSaid, "no reminder says {value}")
        XCTAssertTrue(config.wordsSaidOnlyOnDemand.contains("percent"))
        XCTAssertFalse(config.wordsSaidOnlyOnDemand.contains("monday"))
    }

    func testOtherLanguagesDropTheirOwnWords() throws {
        let words = try parse("language = \"de\"").wordsSaidOnlyOnDemand
        XCTAssertTrue(words.contains("samstag"), "\(words.sorted().prefix(20))")
        XCTAssertFalse(words.contains("zwei"), "the time says zwei")
    }
}
