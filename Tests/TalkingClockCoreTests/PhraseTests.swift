import XCTest

@testable import TalkingClockCore

final class PhraseTests: XCTestCase {
    func testTwelveHourTable() {
        let rows: [(Int, Int, String, String)] = [
            (15, 45, "three forty-five PM", "a quarter word is one compound"),
            (15, 5, "three oh five PM", "single-digit minutes get 'oh'"),
            (15, 0, "three PM", "full hour: no minutes"),
            (9, 30, "nine thirty AM", ""),
            (0, 15, "twelve fifteen AM", "the hour after midnight is twelve"),
            (0, 0, "midnight", "never 'twelve AM'"),
            (12, 0, "noon", "never 'twelve PM'"),
            (12, 1, "twelve oh one PM", "noon hour is PM"),
            (23, 59, "eleven fifty-nine PM", ""),
            (13, 0, "one PM", "never 'thirteen o'clock' in 12-hour style"),
            (10, 10, "ten ten AM", ""),
            (11, 17, "eleven seventeen AM", "teens are single words"),
        ]
        for (h, m, text, why) in rows {
            XCTAssertEqual(Phrase.forTime(hour: h, minute: m).text, text, "\(h):\(m) \(why)")
        }
    }

    func testTwentyFourHourTable() {
        let style = PhraseStyle(phrasing: .twentyFourHour)
        let rows: [(Int, Int, String)] = [
            (15, 0, "fifteen hundred"), (15, 45, "fifteen forty-five"), (7, 5, "oh seven oh five"),
            (0, 0, "zero hundred"), (0, 15, "zero zero fifteen"), (23, 30, "twenty-three thirty"), (10, 0, "ten hundred"),
            (12, 0, "twelve hundred"),
        ]
        for (h, m, text) in rows { XCTAssertEqual(Phrase.forTime(hour: h, minute: m, style: style).text, text) }
        let word = PhraseStyle(phrasing: .twentyFourHour, midnight: .midnight)
        XCTAssertEqual(Phrase.forTime(hour: 0, minute: 0, style: word).text, "midnight", "if the user prefers it")
        // Never "twelve" for the midnight hour in 24-hour style, whichever the choice: its hour word
        // is "zero" (or the whole word "midnight" at 00:00).
        for choice in MidnightStyle.allCases {
            let s = PhraseStyle(phrasing: .twentyFourHour, midnight: choice)
            for minute in 0..<60 {
                let first = Phrase.forTime(hour: 0, minute: minute, style: s).words.first
                XCTAssertTrue(first == "zero" || (minute == 0 && first == "midnight"), "00:\(minute): \(first ?? "")")
            }
        }
        // 12-hour style says "midnight" whatever the 24-hour choice.
        XCTAssertEqual(Phrase.forTime(hour: 0, minute: 0, style: PhraseStyle(phrasing: .twelveHour, midnight: .zeroHundred)).text, "midnight")
    }

    func testLeadIn() {
        XCTAssertEqual(Phrase.forTime(hour: 9, minute: 15, style: PhraseStyle(leadIn: .its)).text, "it's nine fifteen AM")
        XCTAssertEqual(Phrase.forTime(hour: 12, minute: 0, style: PhraseStyle(leadIn: .theTimeIs)).words, ["the-time-is", "noon"])
    }

    func testVocabularyPrefersWholeClipsAndComposes() throws {
        let phrase = Phrase.forTime(hour: 15, minute: 45)
        XCTAssertEqual(try Vocabulary.clips(for: phrase, available: ["three", "forty-five", "forty", "five", "pm"]), ["three", "forty-five", "pm"])
        XCTAssertEqual(try Vocabulary.clips(for: phrase, available: ["three", "forty", "five", "pm"]), ["three", "forty", "five", "pm"])
        XCTAssertThrowsError(try Vocabulary.clips(for: phrase, available: ["three", "forty", "pm"])) { error in
            XCTAssertEqual(
                "\(error)",
                "The sound pack cannot say \"forty-five\" (needed for \"three forty-five PM\"): add a clip with id 'forty-five' or 'forty' + 'five' to the manifest.")
        }
    }

    func testEveryMinuteOfTheDayIsSayableWithTheBasicVocabulary() {
        var basic = Set((0...19).map(Phrase.number) + ["twenty", "thirty", "forty", "fifty"])
        basic.formUnion(["oh", "am", "pm", "noon", "midnight", "hundred"])
        XCTAssertTrue(Vocabulary.unsayableMinutes(available: basic, style: .standard).isEmpty)
        XCTAssertTrue(Vocabulary.unsayableMinutes(available: basic, style: PhraseStyle(phrasing: .twentyFourHour)).isEmpty)
        basic.remove("oh")
        // Minutes 01-09 of every hour need "oh": 24 × 9 minutes.
        XCTAssertEqual(Vocabulary.unsayableMinutes(available: basic, style: .standard).count, 24 * 9)
    }

    func testPlanAddsTheChimeOnlyAtTheTopOfTheHour() throws {
        let available = Set(["three", "pm", "fifteen", "chime"])
        let strike = ChimePattern.singleStrike(bell: "chime", timing: ChimeTiming())
        let top = try AnnouncementPlan.make(hour: 15, minute: 0, style: .standard, pattern: strike, available: available)
        XCTAssertEqual(top.clips, ["chime", "three", "pm"])
        XCTAssertEqual(top.chime.first?.isAnchor, true)
        let quarter = try AnnouncementPlan.make(hour: 15, minute: 15, style: .standard, pattern: strike, available: available)
        XCTAssertEqual(quarter.clips, ["three", "fifteen", "pm"])
        let silentBell = try AnnouncementPlan.make(
            hour: 15, minute: 0, style: AnnouncementStyle(chime: .none), pattern: strike, available: available)
        XCTAssertEqual(silentBell.clips, ["three", "pm"])
        XCTAssertThrowsError(
            try AnnouncementPlan.make(hour: 15, minute: 0, style: .standard, pattern: strike, available: ["three", "pm"]))
    }

    func testVoiceAtLeavesTheVoiceOutAtOtherQuarters() throws {
        let available = Set(["three", "pm", "fifteen", "chime"])
        let style = AnnouncementStyle(voiceMinutes: [0])
        let strike = ChimePattern.singleStrike(bell: "chime", timing: ChimeTiming())
        XCTAssertEqual(try AnnouncementPlan.make(hour: 15, minute: 0, style: style, pattern: strike, available: available).clips, ["chime", "three", "pm"])
        XCTAssertEqual(try AnnouncementPlan.make(hour: 15, minute: 15, style: style, pattern: strike, available: available).clips, [])
        // A one-shot time that is not a quarter is always spoken.
        XCTAssertTrue(style.speaks(atMinute: 7))
        XCTAssertFalse(AnnouncementStyle(voice: false).speaks(atMinute: 7))
    }
}
