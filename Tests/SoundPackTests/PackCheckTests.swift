import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// `check` reports every broken clip, and the words a pack cannot say as one list per phrasing.
final class PackCheckTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("check") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func testEveryBrokenClipIsReportedNotOnlyTheFirst() throws {
        try FixturePack.write(to: dir)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("oh.wav"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("pm.wav"))
        try Data("garbage".utf8).write(to: dir.appendingPathComponent("seven.wav"))
        XCTAssertThrowsError(try SoundPack(directory: dir), "a normal load still refuses a broken pack")
        let pack = try SoundPack(directory: dir, keepingBrokenClips: true)
        let report = pack.check()
        XCTAssertEqual(report.problems.filter { $0.kind != .vocabulary }.compactMap(\.clip), ["oh", "pm", "seven"])
        let words = try XCTUnwrap(report.problems.first { $0.kind == .vocabulary })
        // pm: 12:01-23:59 (719 minutes); seven: all of 07:xx (60); oh: :01-:09 in the 11 other
        // morning hours (99). 719 + 60 + 99 = 878.
        XCTAssertEqual(
            words.message,
            "Sound pack 'fixture' cannot say 878 of 1440 minutes in 12h style; missing words: oh, seven, pm. Add a clip with "
                + "each id to \(pack.directory.path)/pack.json; 'oh', 'seven', 'pm' are listed but do not load (see above)."
        )
    }

    func testAOneWordPackGetsOneListOfMissingWords() throws {
        try FixturePack.write(to: dir, ids: ["one"])
        let report = try SoundPack(directory: dir).check(styles: [
            PhraseStyle(), PhraseStyle(phrasing: .twentyFourHour),
        ])
        XCTAssertEqual(report.problems.count, 2, "one line per phrasing: \(report.problems)")
        // In the order the day first needs them: 00:00 midnight, 00:01 twelve oh one am, …, noon, 12:01 … pm.
        let tens = ["twenty", "thirty", "forty", "fifty"].flatMap { t in
            [t] + (1...9).map { "\(t)-\(Phrase.number($0))" }
        }
        let words12 =
            ["midnight", "twelve", "oh", "am"] + (2...11).map(Phrase.number) + (13...19).map(Phrase.number) + tens + [
                "noon", "pm",
            ]
        XCTAssertEqual(
            report.problems[0].message,
            "Sound pack 'fixture' cannot say 1440 of 1440 minutes in 12h style; missing words: \(words12.joined(separator: ", ")). "
                + "Add a clip with each id to \(dir.standardizedFileURL.path)/pack.json ('twenty-one' may also be composed: "
                + "'twenty' + 'one').")
        XCTAssertTrue(
            report.problems[1].message.hasPrefix(
                "Sound pack 'fixture' cannot say 1440 of 1440 minutes in 24h style; missing words: zero, hundred, oh, two, "
            ),
            report.problems[1].message)
    }

    func testAMissingCompoundSaysItCanBeComposed() throws {
        try FixturePack.write(
            to: dir, ids: FixturePack.fullVocabulary.filter { !["forty-five", "five", "fifteen"].contains($0) })
        let report = try SoundPack(directory: dir).check()
        // :05, :15 and :45 in 22 hours (66), and every minute of 05:xx and 17:xx (120): 186.
        XCTAssertEqual(
            report.problems.map(\.message),
            [
                "Sound pack 'fixture' cannot say 186 of 1440 minutes in 12h style; missing words: five, fifteen, forty-five. "
                    + "Add a clip with each id to \(dir.standardizedFileURL.path)/pack.json ('forty-five' may also be composed: "
                    + "'forty' + 'five')."
            ])
    }
}
