import Foundation
import Playback
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// `spacing.word_overlap_ms`: consecutive words with no gap between them overlap by that much and
/// are added, so edges the pack faded over that length cross-fade (a junction inside running speech
/// has no dip). A gap, where the pack sets one, takes its place; a short clip is never overlapped by
/// more than its length.
final class WordOverlapTests: XCTestCase {
    let format = StreamFormat(sampleRate: 8000, channels: 1)

    func compose(_ lengths: [String: Int], _ voice: [String], leadIn: Int = 0, _ spacing: Spacing) -> [Int] {
        Timeline.compose(chime: [], voice: voice, leadInCount: leadIn, spacing: spacing, format: format) {
            lengths[$0]!
        }.items.map(\.start)
    }

    func testWordsOverlapByTheSettingAndNeverByMoreThanEitherClip() {
        // 5 ms at 8 kHz = 40 frames.
        let lengths = ["a": 400, "b": 300, "tiny": 10, "c": 200]
        XCTAssertEqual(compose(lengths, ["a", "b", "c"], Spacing(wordOverlapMs: 5)), [0, 360, 620])
        XCTAssertEqual(compose(lengths, ["a", "tiny", "c"], Spacing(wordOverlapMs: 5)), [0, 390, 390])
        // No overlap set: end to end, as before.
        XCTAssertEqual(compose(lengths, ["a", "b", "c"], Spacing()), [0, 400, 700])
    }

    func testAGapWhereThePackSetsOneTakesThePlaceOfTheOverlap() {
        let lengths = ["its": 100, "a": 400, "b": 300]
        // A lead-in gap of 10 ms (80 frames) after "its"; the words after it overlap.
        XCTAssertEqual(
            compose(lengths, ["its", "a", "b"], leadIn: 1, Spacing(leadInGapMs: 10, wordOverlapMs: 5)), [0, 180, 540])
        // A word gap: every junction is a gap, none an overlap.
        XCTAssertEqual(compose(lengths, ["a", "b"], Spacing(wordGapMs: 10, wordOverlapMs: 5)), [0, 480])
    }

    func testComplementaryFadesOverTheOverlapAddUpToTheSignalWithNoDip() {
        // Two clips of one steady level, the first faded out and the second faded in over the
        // overlap with raised cosines (as make-pack fades its clips): the mix holds the level
        // through the junction instead of dipping to silence.
        let n = 40
        var a = [Float](repeating: 0.5, count: 400)
        var b = [Float](repeating: 0.5, count: 300)
        for i in 0..<n {
            let fadeIn = Float(0.5 - 0.5 * cos(Double.pi * (Double(i) + 0.5) / Double(n)))
            b[i] *= fadeIn
            a[a.count - n + i] *= 1 - fadeIn
        }
        let timeline = Timeline.compose(chime: [], voice: ["a", "b"], spacing: Spacing(wordOverlapMs: 5), format: format) {
            $0 == "a" ? a.count : b.count
        }
        let out = Mixer.render(timeline) { $0 == "a" ? a : b }
        XCTAssertEqual(out.count, 400 + 300 - n)
        let level = Int16(0.5 * 32768)
        for (i, s) in out.enumerated() { XCTAssertEqual(Int(s), Int(level), accuracy: 1, "frame \(i)") }
        // End to end, the same clips dip to silence at the junction.
        let apart = Mixer.render(
            Timeline.compose(chime: [], voice: ["a", "b"], spacing: Spacing(), format: format) { $0 == "a" ? a.count : b.count }
        ) { $0 == "a" ? a : b }
        XCTAssertLessThan(abs(Int(apart[399])), 1000)
    }

    func testThePackReadsTheSettingAndRefusesAValueOutOfRange() throws {
        let dir = FixturePack.temporaryDirectory("overlap")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FixturePack.write(to: dir)
        let manifest = dir.appendingPathComponent("pack.json")
        let original = try String(contentsOf: manifest, encoding: .utf8)
        func withOverlap(_ value: Int) throws -> SoundPack {
            try original.replacingOccurrences(of: "\"chime_gap_ms\": 0", with: "\"chime_gap_ms\": 0, \"word_overlap_ms\": \(value)")
                .write(to: manifest, atomically: true, encoding: .utf8)
            return try SoundPack(directory: dir)
        }
        XCTAssertEqual(try withOverlap(6).spacing.wordOverlapMs, 6)
        XCTAssertThrowsError(try withOverlap(101)) { error in
            XCTAssertEqual(
                (error as? PackError)?.message,
                "\(manifest.path): \"spacing.word_overlap_ms\" is 101; use 0 to 100 (milliseconds).")
        }
        // And the pack's own renders overlap: 00:15 "twelve fifteen am" is three clips.
        let pack = try withOverlap(6)
        let plan = try pack.plan(
            hour: 0, minute: 15, style: AnnouncementStyle(phrase: PhraseStyle(language: "en-US"), chime: .none))
        let timeline = try pack.timeline(for: plan)
        let overlap = format.frames(milliseconds: 6)
        XCTAssertEqual(timeline.totalFrames, try plan.voiceClips.map { try pack.frames($0) }.reduce(0, +) - 2 * overlap)
    }
}
