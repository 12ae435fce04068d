import TalkingClockCore
import XCTest

/// A plan with phrases after the time (the date with the day's first announcement, a value):
/// what it says, and where its clips land on the timeline.
final class AppendedPhraseTests: XCTestCase {
    let format = StreamFormat(sampleRate: 8000, channels: 1)
    let spacing = Spacing(wordGapMs: 100, leadInGapMs: 200, chimeGapMs: 300)
    /// Every clip is 0.5 s long (4000 frames at 8 kHz).
    let length = 4000

    func day(_ text: String) throws -> CalendarDate { try CalendarDate(parsing: text) }

    /// Every word of the en-US 12h time, the date and the values, one clip each.
    var english: Set<String> {
        Set(
            SpokenLanguages.vocabulary(of: "en-US", phrasing: .twelveHour) + SpokenLanguages.dateWords(of: "en-US")
                + SpokenLanguages.valueWords(of: "en-US", unit: .degrees))
    }

    func testTheDateAfterTheTimeComesAfterAPause() throws {
        let style = AnnouncementStyle(chime: .none)
        let time = try AnnouncementPlan.make(hour: 15, minute: 0, style: style, pattern: nil, available: english)
        let date = try Phrase.forDate(try day("2026-11-28"), language: "en-US")
        let plan = try time.appending(date, available: english)
        XCTAssertEqual(plan.voiceClips, ["three", "pm"], "the time's clips are the time's")
        XCTAssertEqual(plan.appended.map(\.clips), [["saturday", "november", "twenty-eighth"]])
        XCTAssertEqual(plan.clips, ["three", "pm", "saturday", "november", "twenty-eighth"])
        XCTAssertEqual(plan.text, "three PM. Saturday, November twenty-eighth")
        XCTAssertEqual(plan.appended[0].gapMs, AnnouncementPlan.phraseGapMs)

        let timeline = plan.timeline(spacing: spacing, format: format) { _ in self.length }
        let starts = timeline.items.map(\.start)
        // three | 100 ms | pm | 500 ms | saturday | 100 ms | november | 100 ms | twenty-eighth
        XCTAssertEqual(starts, [0, 4800, 4800 + 4000 + 4000, 12_800 + 4800, 17_600 + 4800])
        XCTAssertEqual(timeline.voiceClips, plan.clips)
        XCTAssertEqual(timeline.totalFrames, 22_400 + 4000)
    }

    func testAPlanWithoutPhrasesLaysOutAsBefore() throws {
        let style = AnnouncementStyle(phrase: PhraseStyle(leadIn: .its), chime: .none)
        let plan = try AnnouncementPlan.make(
            hour: 9, minute: 7, style: style, pattern: nil, available: english.union(["its"]))
        let composed = Timeline.compose(
            chime: plan.chime, voice: plan.voiceClips, leadInCount: plan.leadInCount, spacing: spacing, format: format
        ) { _ in self.length }
        XCTAssertEqual(plan.timeline(spacing: spacing, format: format) { _ in self.length }, composed)
        XCTAssertEqual(plan.text, "it's nine oh seven AM")
    }

    /// With a chime and the voice off at this minute, the phrase follows the chime as the time would.
    func testAPhraseAfterAChimeOnlyMinuteFollowsTheChime() throws {
        let style = AnnouncementStyle(chime: .hour, voiceMinutes: [15, 30, 45])
        let pattern = ChimePattern.singleStrike(bell: "chime", timing: ChimeTiming())
        let time = try AnnouncementPlan.make(
            hour: 15, minute: 0, style: style, pattern: pattern, available: english.union(["chime"]))
        XCTAssertEqual(time.voiceClips, [], "the voice does not speak at :00")
        let value = try Phrase.forValue(-3, unit: .degrees, language: "en-US")
        let plan = try time.appending(value, available: english, gapMs: 800)
        XCTAssertEqual(plan.text, "minus three degrees")
        let timeline = plan.timeline(spacing: spacing, format: format) { _ in self.length }
        let voice = timeline.items.filter { $0.role == .voice }
        XCTAssertEqual(voice.map(\.clip), ["minus", "three", "degrees"])
        let bell = try XCTUnwrap(timeline.items.first { $0.role == .chime })
        // After the bell and the pack's chime gap, not after an 800 ms pause: nothing was said yet.
        var expected = bell.end + format.frames(milliseconds: spacing.chimeGapMs)
        if let after = pattern.voiceAfterMs {
            expected = min(expected, bell.start + format.frames(milliseconds: after))
        }
        XCTAssertEqual(voice[0].start, expected)
        XCTAssertEqual(
            voice[1].start, voice[0].end + format.frames(milliseconds: spacing.wordGapMs), "the word gap inside it")
    }

    func testPhrasesAloneSayNoTimeAndPauseBetweenThem() throws {
        let date = try Phrase.forDate(try day("2024-02-29"), language: "en-US")
        let value = try Phrase.forValue(21, unit: .degrees, language: "en-US")
        let plan = try AnnouncementPlan.saying([date, value], hour: 8, minute: 0, available: english, gapMs: 250)
        XCTAssertEqual(plan.chime, [])
        XCTAssertEqual(plan.phrase, date)
        XCTAssertEqual(plan.text, "Thursday, February twenty-ninth. twenty-one degrees")
        XCTAssertEqual(plan.clips, ["thursday", "february", "twenty-ninth", "twenty-one", "degrees"])
        let starts = plan.timeline(spacing: spacing, format: format) { _ in self.length }.items.map(\.start)
        XCTAssertEqual(starts, [0, 4800, 9600, 9600 + 4000 + 2000, 15_600 + 4800])
    }

    /// "sixty-one" may be said as "sixty" + "one" in English, like a minute's compound.
    func testEnglishValuesComposeTheirCompounds() throws {
        let available = Set(["sixty", "one", "percent"])
        let plan = try AnnouncementPlan.saying(
            [try Phrase.forValue(61, unit: .percent, language: "en-US")], hour: 8, minute: 0, available: available)
        XCTAssertEqual(plan.clips, ["sixty", "one", "percent"])
    }

    func testAPhraseThePackCannotSayNamesItsFirstMissingWord() throws {
        let date = try Phrase.forDate(try day("2026-11-28"), language: "en-US")
        XCTAssertThrowsError(try AnnouncementPlan.saying([date], hour: 8, minute: 0, available: ["november"])) {
            XCTAssertEqual(($0 as? VocabularyError)?.word, "saturday")
        }
    }

    /// A sensor's reading (a Home Assistant state) as the whole number a value says.
    func testAReadingIsRoundedToAWholeNumber() throws {
        let rows: [(String, Int)] = [
            ("21.6", 22), ("21.4", 21), ("-2.5", -3), ("2.5", 3), ("-0.4", 0), (" 7 ", 7), ("150.49", 150),
            ("-99.49", -99), ("+3", 3), ("0", 0),
        ]
        for (reading, expected) in rows {
            XCTAssertEqual(try Phrase.wholeNumber(reading: reading), expected, reading)
        }
        let refused: [(String, String)] = [
            ("unavailable", "The reading 'unavailable' is not a number (a sensor's state such as 21.5 is)."),
            ("", "The reading '' is not a number (a sensor's state such as 21.5 is)."),
            ("nan", "The reading 'nan' is not a number (a sensor's state such as 21.5 is)."),
            ("1e3", "The reading '1e3' is not a number (a sensor's state such as 21.5 is)."),
            ("21,5", "The reading '21,5' is not a number (a sensor's state such as 21.5 is)."),
            ("150.5", "The reading '150.5' is out of range: the clock says whole numbers from -99 to 150."),
            ("-99.5", "The reading '-99.5' is out of range: the clock says whole numbers from -99 to 150."),
        ]
        for (reading, message) in refused {
            XCTAssertThrowsError(try Phrase.wholeNumber(reading: reading), reading) { XCTAssertEqual("\($0)", message) }
        }
        XCTAssertEqual(
            try Phrase.forValue(try Phrase.wholeNumber(reading: "-2.5"), unit: .degrees, language: "de").text,
            "minus drei Grad")
    }
}
