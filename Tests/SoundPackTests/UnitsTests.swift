import Foundation
import Playback
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// Units: clips of several words ("quarter after", "une heure"). The renderer covers a phrase with
/// the fewest clips, falls back to single words, never lets a unit swallow the end of the lead-in,
/// and a pack without units says exactly what it said before units existed.
final class UnitsTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("units") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// Every word of en-US casual (and the default vocabulary).
    static let casualWords =
        FixturePack.fullVocabulary + ["quarter", "after", "half", "past", "to", "minute", "minutes"]
    static let casual = PhraseStyle(language: "en-US", phrasing: .casual)

    func voice(_ pack: SoundPack, _ time: String, style: PhraseStyle = casual) throws -> [String] {
        let parts = time.split(separator: ":").map { Int($0)! }
        return try pack.plan(
            hour: parts[0], minute: parts[1], style: AnnouncementStyle(phrase: style, chime: .none)
        ).voiceClips
    }

    func testTheFewestClipsCoverThePhraseNotTheGreedyLongestFirst() throws {
        // 15:07 "seven minutes after three". Taking the longest unit at each word ("seven minutes",
        // then "after", "three") needs three clips; "seven" + "minutes after three" needs two.
        try FixturePack.write(to: dir, ids: Self.casualWords + ["seven minutes", "minutes after three"])
        let pack = try SoundPack(directory: dir)
        XCTAssertEqual(try voice(pack, "15:07"), ["seven", "minutes after three"])
        // A whole phrase as one unit is one clip.
        try FixturePack.write(to: dir, ids: Self.casualWords + ["quarter after", "quarter after three"])
        XCTAssertEqual(try voice(try SoundPack(directory: dir), "15:15"), ["quarter after three"])
    }

    func testOfTwoCoversWithAsManyClipsTheLongerUnitComesFirst() throws {
        // "quarter after three": "quarter after" + "three" and "quarter" + "after three" are two clips each.
        try FixturePack.write(to: dir, ids: Self.casualWords + ["quarter after", "after three"])
        let pack = try SoundPack(directory: dir)
        XCTAssertEqual(try voice(pack, "15:15"), ["quarter after", "three"])
        // Where only the later unit fits, it is used.
        XCTAssertEqual(try voice(pack, "15:10"), ["ten", "after three"])
    }

    func testWordsOutsideEveryUnitFallBackToTheirOwnClips() throws {
        try FixturePack.write(to: dir, ids: Self.casualWords + ["half past", "quarter to four"])
        let pack = try SoundPack(directory: dir)
        XCTAssertEqual(try voice(pack, "15:30"), ["half past", "three"])
        XCTAssertEqual(try voice(pack, "15:45"), ["quarter to four"])
        XCTAssertEqual(try voice(pack, "16:45"), ["quarter", "to", "five"], "no unit fits: one clip a word")
        XCTAssertEqual(try voice(pack, "15:35"), ["twenty-five", "to", "four"])
    }

    func testAWordThePackHasOnlyInsideUnitsIsSaidWhereAUnitCoversIt() throws {
        // Like French "une" only in "une heure": "quarter" has no clip of its own.
        var ids = Self.casualWords.filter { $0 != "quarter" }
        try FixturePack.write(to: dir, ids: ids + ["quarter after", "quarter to"])
        let pack = try SoundPack(directory: dir)
        XCTAssertEqual(try voice(pack, "15:15"), ["quarter after", "three"])
        XCTAssertEqual(try voice(pack, "23:45"), ["quarter to", "twelve"])
        XCTAssertTrue(pack.check(styles: [Self.casual]).isValid, "every minute has a cover")

        // Without "quarter to", the 24 minutes at :45 cannot be said, and check names the word.
        ids.append("quarter after")
        try FileManager.default.removeItem(at: dir)
        try FixturePack.write(to: dir, ids: ids)
        let broken = try SoundPack(directory: dir)
        XCTAssertThrowsError(try voice(broken, "15:45")) { error in
            XCTAssertTrue("\(error)".contains("cannot say \"quarter\""), "\(error)")
        }
        let report = broken.check(styles: [Self.casual])
        XCTAssertEqual(report.problems.count, 1)
        XCTAssertEqual(
            report.problems.first?.message,
            "Sound pack 'fixture' cannot say 24 of 1440 minutes in casual style; missing words: quarter. Add a clip with "
                + "each id to \(broken.directory.path)/pack.json, or units (words joined by single spaces) that cover "
                + "each where it is said; first needed: 'quarter' at 00:45 (\"quarter to one\").")
        XCTAssertEqual(report.problems.first?.clip, "quarter")
    }

    func testAUnitNeverSpansTheEndOfTheLeadInAndTheLeadInCountsClips() throws {
        let style = PhraseStyle(language: "en-US", phrasing: .casual, leadIn: .its)
        try FixturePack.write(to: dir, ids: Self.casualWords + ["its quarter", "quarter after three"])
        let pack = try SoundPack(directory: dir)
        let plan = try pack.plan(hour: 15, minute: 15, style: AnnouncementStyle(phrase: style, chime: .none))
        XCTAssertEqual(plan.voiceClips, ["its", "quarter after three"])
        XCTAssertEqual(plan.leadInCount, 1, "one clip says the lead-in, so the lead-in gap follows it")
        let timeline = try pack.timeline(for: plan)
        XCTAssertEqual(timeline.items.map(\.clip), ["its", "quarter after three"])
    }

    func testAPackWithoutUnitsSaysEveryMinuteWordForWordAsBefore() throws {
        // The resolution before units: each word its own clip (the full vocabulary holds every compound).
        try FixturePack.write(to: dir, ids: Self.casualWords)
        let pack = try SoundPack(directory: dir)
        XCTAssertFalse(pack.hasUnits)
        for phrasing: Phrasing in [.twelveHour, .twentyFourHour, .casual] {
            let style = PhraseStyle(language: "en-US", phrasing: phrasing, leadIn: .its)
            for m in 0..<1440 {
                let plan = try pack.plan(
                    hour: m / 60, minute: m % 60, style: AnnouncementStyle(phrase: style, chime: .none))
                let phrase = Phrase.forTime(hour: m / 60, minute: m % 60, style: style)
                XCTAssertEqual(plan.voiceClips, phrase.words, "\(phrasing) \(m)")
                XCTAssertEqual(plan.leadInCount, phrase.leadInCount)
            }
        }
        // Composed compounds still compose when the whole word is missing.
        try FileManager.default.removeItem(at: dir)
        try FixturePack.write(to: dir, ids: Self.casualWords.filter { $0 != "thirty-seven" })
        XCTAssertEqual(
            try voice(try SoundPack(directory: dir), "15:37", style: PhraseStyle()), ["three", "thirty", "seven", "pm"])
    }

    func testARenderIsByteIdenticalWhetherOrNotThePackHoldsUnitsItNeverUses() throws {
        try FixturePack.write(to: dir, ids: Self.casualWords)
        let plain = try SoundPack(directory: dir)
        let other = FixturePack.temporaryDirectory("units-b")
        defer { try? FileManager.default.removeItem(at: other) }
        try FixturePack.write(to: other, ids: Self.casualWords + ["quarter to four", "half past two"])
        let withUnits = try SoundPack(directory: other)
        XCTAssertTrue(withUnits.hasUnits)
        for time in ["15:15", "15:07", "00:00", "12:30", "23:45"] {
            let parts = time.split(separator: ":").map { Int($0)! }
            let style = AnnouncementStyle(phrase: Self.casual, chime: .hour)
            let a = try plain.plan(hour: parts[0], minute: parts[1], style: style)
            let b = try withUnits.plan(hour: parts[0], minute: parts[1], style: style)
            XCTAssertEqual(a.voiceClips, b.voiceClips, time)
            let pcmA = Mixer.render(try plain.timeline(for: a), clips: { try? plain.audio($0).storage })
            let pcmB = Mixer.render(try withUnits.timeline(for: b), clips: { try? withUnits.audio($0).storage })
            XCTAssertFalse(pcmA.isEmpty)
            XCTAssertEqual(pcmA, pcmB, time)
        }
        // Where a unit fits, the render is the unit's own audio, not the words'.
        let parts = try withUnits.plan(
            hour: 15, minute: 45, style: AnnouncementStyle(phrase: Self.casual, chime: .none))
        XCTAssertEqual(parts.voiceClips, ["quarter to four"])
        let unitPCM = Mixer.render(try withUnits.timeline(for: parts), clips: { try? withUnits.audio($0).storage })
        XCTAssertEqual(unitPCM, FixturePack.signal(for: "quarter to four", frames: 200 + 15 * 10, channels: 1))
    }

    func testAUnitWithStrayWhiteSpaceIsRefusedWithItsFix() throws {
        try FixturePack.write(to: dir, ids: Self.casualWords + ["quarter  after"])
        XCTAssertThrowsError(try SoundPack(directory: dir)) { error in
            XCTAssertTrue(
                "\(error)".contains(
                    "clip id \"quarter  after\" is a unit with stray white space; write its words joined by single spaces, \"quarter after\"."
                ), "\(error)")
        }
    }
}
