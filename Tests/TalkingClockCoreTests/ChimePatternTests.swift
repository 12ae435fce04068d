import Foundation
import TalkingClockCore
import TestSupport
import XCTest

final class ChimePatternTests: XCTestCase {
    let quarter = ["gs4", "fs4", "e4", "b3"]
    let timing = ChimeTiming(beatMs: 1000, hourAfterMs: 3000, strikeIntervalMs: 2000, voiceAfterMs: 1500)
    var westminster: ChimePattern { .westminster(quarterBells: quarter, hourBell: "e3", timing: timing) }

    /// The notes of one change, as bell names, written out from the field notes (not from the
    /// table the code uses): 1 = G♯ F♯ E B, 2 = E G♯ F♯ B, 3 = E F♯ G♯ E, 4 = G♯ E F♯ B, 5 = B F♯ G♯ E.
    let changes: [Int: [String]] = [
        1: ["gs4", "fs4", "e4", "b3"], 2: ["e4", "gs4", "fs4", "b3"], 3: ["e4", "fs4", "gs4", "e4"],
        4: ["gs4", "e4", "fs4", "b3"], 5: ["b3", "fs4", "gs4", "e4"],
    ]

    func testWestminsterRingsTheRightChangesAtEachQuarter() {
        for (minute, sequence) in [(15, [1]), (30, [2, 3]), (45, [4, 5, 1])] {
            let notes = westminster.ring(hour: 9, minute: minute)
            XCTAssertEqual(notes.map(\.clip), sequence.flatMap { changes[$0]! }, ":\(minute)")
            // Three crotchets and a minim: a change spans five beats.
            let expected = sequence.indices.flatMap { i in (0..<4).map { i * 5000 + $0 * 1000 } }
            XCTAssertEqual(notes.map(\.offsetMs), expected, ":\(minute)")
            // At the quarters the chime starts on the boundary.
            XCTAssertEqual(notes.filter(\.isAnchor).map(\.offsetMs), [0], ":\(minute)")
        }
        XCTAssertEqual(westminster.ring(hour: 9, minute: 10), [], "nothing rings between quarters")
    }

    func testTheFirstHourStrokeLandsOnTheBoundaryAfterAllFourChanges() {
        for hour in 0..<24 {
            let notes = westminster.ring(hour: hour, minute: 0)
            let quarters = Array(notes.prefix(16))
            XCTAssertEqual(quarters.map(\.clip), [2, 3, 4, 5].flatMap { changes[$0]! })
            let strokes = notes.dropFirst(16)
            let expectedCount = hour % 12 == 0 ? 12 : hour % 12
            XCTAssertEqual(strokes.count, expectedCount, "\(hour):00 strikes a 12-hour count")
            XCTAssertTrue(strokes.allSatisfy { $0.clip == "e3" })
            // Last quarter note at beat 18 (18 s), then 3 s to the first stroke, strokes 2 s apart.
            XCTAssertEqual(strokes.map(\.offsetMs), (0..<expectedCount).map { 21_000 + $0 * 2000 })
            XCTAssertEqual(notes.filter(\.isAnchor).count, 1)
            XCTAssertTrue(strokes.first!.isAnchor, "the first hour stroke is the anchor")
        }
    }

    func testShipsBellsCountTheWatchInPairs() {
        let ships = ChimePattern.shipsBells(bell: "bell", timing: ChimeTiming(shipStrikeMs: 500, shipPairGapMs: 1000))
        // 00:30 one bell … 04:00 eight bells, then over again; 00:00 and 12:00 are eight bells.
        var expected: [String: Int] = ["00:00": 8, "00:30": 1, "01:00": 2, "03:30": 7, "04:00": 8, "04:30": 1, "12:00": 8, "18:30": 5, "23:30": 7]
        for (time, count) in expected {
            let parts = time.split(separator: ":").map { Int($0)! }
            XCTAssertEqual(ships.ring(hour: parts[0], minute: parts[1]).count, count, time)
        }
        expected.removeAll()
        XCTAssertEqual(ships.ring(hour: 1, minute: 15), [])
        // Pairs: 500 ms within a pair, 500 + 1000 between pairs; the odd stroke comes last, alone.
        XCTAssertEqual(ships.ring(hour: 2, minute: 30).map(\.offsetMs), [0, 500, 2000, 2500, 4000])
        XCTAssertEqual(ships.ring(hour: 2, minute: 30).filter(\.isAnchor).map(\.offsetMs), [0])
    }

    func testAPatternAsDataRoundTripsThroughJSONAndMarksItsAnchor() throws {
        let json = """
            { "notes": { "0": [ { "bell": "a", "at_ms": 0 }, { "bell": "b", "at_ms": 800, "anchor": true } ],
                         "30": [ { "bell": "a", "at_ms": 0 } ] },
              "voice_after_ms": 1200 }
            """
        let pattern = try JSONDecoder().decode(ChimePattern.self, from: Data(json.utf8))
        XCTAssertEqual(pattern.ring(hour: 7, minute: 0).map(\.isAnchor), [false, true])
        XCTAssertEqual(pattern.ring(hour: 7, minute: 30).map(\.isAnchor), [true])
        XCTAssertEqual(pattern.voiceAfterMs, 1200)
        let again = try JSONDecoder().decode(ChimePattern.self, from: JSONEncoder().encode(pattern))
        XCTAssertEqual(again, pattern)
        XCTAssertThrowsError(try JSONDecoder().decode(ChimePattern.self, from: Data(#"{"notes": {"60": []}}"#.utf8)))
    }

    func testThePlanCarriesTheAnchorOffsetAndTheVoiceComesAfterTheLastStrike() throws {
        let available = Set(quarter + ["e3", "three", "pm", "fifteen"])
        let style = AnnouncementStyle(chime: .westminster)
        let plan = try AnnouncementPlan.make(hour: 15, minute: 0, style: style, pattern: westminster, available: available)
        XCTAssertEqual(plan.anchorOffsetMs, 21_000)
        XCTAssertEqual(plan.voiceClips, ["three", "pm"])
        let format = StreamFormat(sampleRate: 1000, channels: 1)
        let timeline = Timeline.compose(
            chime: plan.chime, voice: plan.voiceClips, spacing: Spacing(chimeGapMs: 0),
            voiceAfterChimeMs: plan.voiceAfterChimeMs, format: format
        ) { $0.count < 3 ? 8000 : 300 }
        XCTAssertEqual(timeline.anchorFrame, 21_000)
        // Three strokes at 21, 23, 25 s; the last bell rings 8 s, so the voice comes 1.5 s after
        // the last stroke starts, the sooner of the two.
        XCTAssertEqual(timeline.items.first { $0.role == .voice }?.start, 26_500)
        // Bells that ring out sooner (1 s): the voice follows them at once (chime gap 0).
        let short = Timeline.compose(
            chime: plan.chime, voice: plan.voiceClips, spacing: Spacing(chimeGapMs: 0),
            voiceAfterChimeMs: plan.voiceAfterChimeMs, format: format
        ) { $0.count < 3 ? 1000 : 300 }
        XCTAssertEqual(short.items.first { $0.role == .voice }?.start, 26_000)
        XCTAssertThrowsError(
            try AnnouncementPlan.make(hour: 15, minute: 0, style: style, pattern: westminster, available: ["three", "pm"])
        ) { error in
            XCTAssertTrue("\(error)".contains("westminster"), "\(error)")
        }
    }

    func testAWakeUpTooLateForThePrerollDropsTheEarlyStrikesAndKeepsTheAnchor() throws {
        let plan = try AnnouncementPlan.make(
            hour: 15, minute: 0, style: AnnouncementStyle(chime: .westminster), pattern: westminster,
            available: Set(quarter + ["e3", "three", "pm"]))
        let format = StreamFormat(sampleRate: 1000, channels: 1)
        let timeline = Timeline.compose(
            chime: plan.chime, voice: plan.voiceClips, spacing: Spacing(), voiceAfterChimeMs: plan.voiceAfterChimeMs,
            format: format
        ) { _ in 4000 }
        // Plenty of time: unchanged.
        XCTAssertEqual(timeline.droppingStrikes(before: 30_000).dropped, 0)
        // 15 s before the anchor: the notes that had to start earlier than that are left out.
        let (fitted, dropped) = timeline.droppingStrikes(before: 15_000)
        let kept = timeline.items.filter { $0.role == .voice || $0.start >= 6000 }
        XCTAssertEqual(dropped, timeline.items.count - kept.count)
        XCTAssertEqual(dropped, 5, "the notes at 0, 1, 2, 3 and 5 s go")
        XCTAssertEqual(fitted.items.first?.start, 0)
        XCTAssertEqual(fitted.anchorFrame, 21_000 - 6000, "the anchor keeps its place relative to what is left")
        XCTAssertEqual(fitted.voiceClips, ["three", "pm"])
        XCTAssertEqual(fitted.items.map(\.clip), kept.map(\.clip))
        // None left to drop before the anchor but the anchor itself.
        let last = timeline.droppingStrikes(before: 0).timeline
        XCTAssertEqual(last.anchorFrame, 0)
        XCTAssertEqual(last.items.first?.clip, "e3")
    }

    func testChimeOnlyQuietHoursAndVoiceAtFollowThePatternsMinutes() throws {
        var config = Config()
        config.chime = .westminster
        config.voiceAt = [0]
        config.quiet = [QuietWindow(days: .daily, from: 0, to: 24 * 60, mode: .chimeOnly)]
        let scheduler = AnnouncementScheduler(config: config, state: PersistentState())
        let utc = Zone(identifier: "UTC")!
        // 2026-11-22 10:15 UTC: Westminster rings at :15, so chime-only hours still chime.
        let quarterPast = 1_795_342_500
        XCTAssertEqual(CivilTime.local(quarterPast, in: utc).minute, 15)
        guard case .speak(_, _, let style, _) = scheduler.decide(boundary: quarterPast, now: Double(quarterPast), in: utc) else {
            return XCTFail("Westminster rings at :15 in chime-only hours")
        }
        XCTAssertFalse(style.voice)
        var hourly = scheduler
        hourly.config.chime = .hour
        XCTAssertEqual(
            hourly.decide(boundary: quarterPast, now: Double(quarterPast), in: utc),
            .skip(boundary: quarterPast, local: CivilTime.local(quarterPast, in: utc), reason: .quiet))
        var noChime = scheduler
        noChime.config.quiet = []
        noChime.config.chime = .none
        XCTAssertEqual(
            noChime.decide(boundary: quarterPast, now: Double(quarterPast), in: utc),
            .skip(boundary: quarterPast, local: CivilTime.local(quarterPast, in: utc), reason: .nothingToPlay),
            "voice-at = [0] and no chime: nothing at :15")
    }
}
