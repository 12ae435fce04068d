import Foundation
import SoundPack
import TalkingClockCore
import XCTest

/// (PackAbuseTests) A chime pattern's size is bounded when the pack is read (issue 29, item 5): 20,000 notes
/// (665 KB, under the 1 MiB manifest cap) passed `check` and made every hour fail (a 17 s
/// render); 4,000 made the voice 2.15 s late. Also: strike minutes that are not minutes, and two
/// notes that both claim the boundary.
extension PackAbuseTests {
    func manifest(patterns: String) -> String {
        #"{"format": 1, "name": "p", "clips": {"one": "one.wav", "bell": "bell.wav"}, "chimes": {"patterns": {\#(patterns)}}}"#
    }

    func notes(_ count: Int, anchorAt: Set<Int> = []) -> String {
        (0..<count).map { i in
            #"{"bell": "bell", "at_ms": \#(i % 120_000)\#(anchorAt.contains(i) ? #", "anchor": true"# : "")}"#
        }.joined(separator: ", ")
    }

    func testTwentyThousandNotesInOneMinuteAreRefused() {
        let json = manifest(patterns: #""westminster": {"notes": {"0": [\#(notes(20_000))]}}"#)
        XCTAssertLessThan(json.utf8.count, PackManifest.maximumSize, "under the manifest cap: only the note limit stops it")
        XCTAssertEqual(
            refusal(json),
            #"\#(path): "chimes.patterns.westminster.notes.0" has 20000 notes; one minute may ring at most 64 (each note mixes a whole bell clip into the announcement, so more would make it late)."#)
    }

    func testFourThousandNotesAreRefusedInOneMinuteOrSpreadOverTheQuarters() {
        XCTAssertEqual(
            refusal(manifest(patterns: #""hour": {"notes": {"15": [\#(notes(4_000))]}}"#)),
            #"\#(path): "chimes.patterns.hour.notes.15" has 4000 notes; one minute may ring at most 64 (each note mixes a whole bell clip into the announcement, so more would make it late)."#)
        let quarters = [0, 15, 30, 45].map { #""\#($0)": [\#(notes(1_000))]"# }.joined(separator: ", ")
        XCTAssertEqual(
            refusal(manifest(patterns: #""hour": {"notes": {\#(quarters)}}"#)),
            #"\#(path): "chimes.patterns.hour.notes.0" has 1000 notes; one minute may ring at most 64 (each note mixes a whole bell clip into the announcement, so more would make it late)."#)
        // 64 in each of five minutes: each minute within its limit, the pattern not.
        let spread = [0, 15, 30, 45, 50].map { #""\#($0)": [\#(notes(64))]"# }.joined(separator: ", ")
        XCTAssertEqual(
            refusal(manifest(patterns: #""hour": {"notes": {\#(spread)}}"#)),
            #"\#(path): "chimes.patterns.hour.notes" has 320 notes in all; a pattern may have at most 256."#)
    }

    func testTheLimitsThemselvesAreAccepted() {
        let four = [0, 15, 30, 45].map { #""\#($0)": [\#(notes(64))]"# }.joined(separator: ", ")
        XCTAssertNil(refusal(manifest(patterns: #""westminster": {"notes": {\#(four)}}"#)))
        XCTAssertNotNil(refusal(manifest(patterns: #""westminster": {"notes": {"0": [\#(notes(65))]}}"#)))
    }

    func testStrikeMinutesAndAnchorsAreChecked() {
        let strikes = #""bell": "bell", "count": "hour", "interval_ms": 10"#
        XCTAssertEqual(
            refusal(manifest(patterns: #""hour": {"strikes": {\#(strikes), "minutes": [0, 75]}}"#)),
            #"\#(path): "chimes.patterns.hour.strikes.minutes" holds 75, which is not a minute of the hour; use 0 to 59."#)
        XCTAssertEqual(
            refusal(manifest(patterns: #""hour": {"strikes": {\#(strikes), "minutes": [0, 30, 0]}}"#)),
            #"\#(path): "chimes.patterns.hour.strikes.minutes" names a minute twice; list each minute once."#)
        // Two notes marked as the anchor of one minute: before, `check` passed and the second was ignored.
        XCTAssertEqual(
            refusal(manifest(patterns: #""hour": {"notes": {"0": [\#(notes(4, anchorAt: [1, 3]))]}}"#)),
            #"\#(path): "chimes.patterns.hour.notes.0[3].anchor" is true, but notes.0[1] is already the anchor of minute 0; one strike per minute lands on the boundary, so mark only one."#)
        XCTAssertEqual(
            refusal(manifest(patterns: #""hour": {"notes": {"0": [\#(notes(2, anchorAt: [1]))]}, "strikes": {\#(strikes), "minutes": [0]}}"#)),
            #"\#(path): "chimes.patterns.hour.notes.0[1].anchor" is true, but the strikes ring at minute 0 and their first stroke is the anchor ("anchor" is true unless the strikes set it to false); set "anchor": false in "strikes", or remove this one."#)
        // One anchor per minute, in different minutes, or with strikes that give the anchor up: fine.
        XCTAssertNil(refusal(manifest(patterns: #""hour": {"notes": {"0": [\#(notes(2, anchorAt: [1]))], "30": [\#(notes(2, anchorAt: [0]))]}, "strikes": {\#(strikes), "minutes": [0], "anchor": false}}"#)))
    }
}
