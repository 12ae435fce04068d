import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// `say --date` / `--value` and `check`'s dates and values, as users and the pack builder meet
/// them: the exact output of the built binary.
final class DateValueTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = FixturePack.temporaryDirectory("datevalue") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A fixture pack of `language` with the time's words (every phrasing), and the words of dates
    /// and values when `dates` is set; each clip 100 frames at 8 kHz.
    func pack(_ language: String, dates: Bool = true) throws -> URL {
        let url = dir.appendingPathComponent("\(language)-\(dates)")
        var ids = Set(
            SpokenLanguages.phrasings(of: language).flatMap { SpokenLanguages.vocabulary(of: language, phrasing: $0) })
        if dates {
            ids.formUnion(SpokenLanguages.dateWords(of: language))
            for unit in SpokenLanguages.units(of: language) {
                ids.formUnion(SpokenLanguages.valueWords(of: language, unit: unit))
            }
        }
        let declared = SpokenLanguages.phrasings(of: language).map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        try FixturePack.write(
            to: url, ids: ids.sorted() + ["chime"], framesPerClip: { _ in 100 },
            spacing: Spacing(wordGapMs: 10, leadInGapMs: 0, chimeGapMs: 0),
            extraManifest: "\"language\": \"\(language)\", \"phrasings\": [\(declared)],")
        return url
    }

    func testDryRunPrintsTheWordsAndClips() throws {
        let de = try pack("de")
        let date = try BinaryRunner.run([
            "say", "--dry-run", "--language", "de", "--date", "2026-11-28", "--pack", de.path,
        ])
        XCTAssertEqual(date.status, 0, date.stderr)
        XCTAssertEqual(
            date.stdout, "Samstag, der achtundzwanzigste November\nclips: samstag der achtundzwanzigste november\n")
        let ru = try pack("ru")
        let value = try BinaryRunner.run([
            "say", "--dry-run", "--language", "ru", "--value", "-3", "--unit", "degrees", "--pack", ru.path,
        ])
        XCTAssertEqual(value.stdout, "минус три градуса\nclips: минус три градуса\n", value.stderr)
        // With --at: the time first (and its chime), then the date, then the value, each a sentence.
        let gb = try pack("en-GB")
        let all = try BinaryRunner.run([
            "say", "--dry-run", "--language", "en-GB", "--at", "15:00", "--date", "2024-02-29", "--value", "21",
            "--unit",
            "percent", "--pack", gb.path, "--chime", "hour",
        ])
        XCTAssertEqual(
            all.stdout,
            "three o'clock. Thursday, the twenty-ninth of February. twenty-one percent\n"
                + "clips: chime three oclock thursday the twenty-ninth of february twenty-one percent\n"
                + "chime: hour, 1 strike, anchor +0.000 s\n", all.stderr)
    }

    func testSayDateSpeaksThroughThePack() throws {
        let fr = try pack("fr")
        let wav = dir.appendingPathComponent("date.wav")
        let r = try BinaryRunner.run([
            "say", "--language", "fr", "--date", "2026-03-01", "--pack", fr.path, "--output", wav.path,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        // "dimanche premier mars": three clips of 100 frames, 10 ms (80 frames) between them.
        XCTAssertEqual(try XCTUnwrap(try WAVSamples.int16(at: wav)).count, 3 * 100 + 2 * 80)
    }

    func testAPackWithoutTheWordsIsRefusedWithTheFix() throws {
        let fr = try pack("fr", dates: false)
        let r = try BinaryRunner.run([
            "say", "--dry-run", "--language", "fr", "--date", "2026-11-28", "--pack", fr.path,
        ])
        XCTAssertEqual(r.status, ExitStatus.packError.rawValue)
        XCTAssertEqual(r.stdout, "samedi vingt-huit novembre\n", "the words are shown even so")
        XCTAssertEqual(
            r.stderr,
            "talking-clock: Sound pack 'fixture' (\(fr.path)) cannot say \"samedi vingt-huit novembre\": it has no clips "
                + "'samedi', 'novembre'. To say it, record them: talking-clock record-pack \(fr.path) --language fr --dates "
                + "(a pack scripts/make-pack built: build it again, it makes them; a pack you cannot write to: copy it into "
                + "~/.local/share/talking-clock/packs/ and record there).\n"
        )
        let value = try BinaryRunner.run([
            "say", "--language", "fr", "--value", "21", "--unit", "degrees", "--pack", fr.path,
        ])
        XCTAssertEqual(value.status, ExitStatus.packError.rawValue)
        XCTAssertTrue(
            value.stderr.contains("cannot say \"vingt et un degrés\": it has no clips 'un', 'degrés'."), value.stderr)
        XCTAssertTrue(value.stderr.contains("record them: talking-clock record-pack \(fr.path) --language fr --values ("), value.stderr)
    }

    func testBadInputIsRefusedByName() throws {
        let cases: [([String], String)] = [
            (["--date", "2023-02-29"], "--date: '2023-02-29' is not a date: February 2023 has 28 days."),
            (["--date", "28.11.2026"], "--date: '28.11.2026' is not a date; write it YYYY-MM-DD, e.g. 2026-11-28."),
            (
                ["--value", "1000", "--unit", "degrees"],
                "--value: The value 1000 is out of range: the clock says whole numbers from -99 to 150."
            ),
            (["--value", "21"], "--value needs --unit: degrees or percent (e.g. --value 21 --unit degrees)."),
            (["--unit", "percent"], "--unit needs --value: the whole number to say (e.g. --value 21 --unit degrees)."),
            (
                ["--value", "21", "--unit", "kelvin"],
                "--unit: en-US says no unit \"kelvin\"; it has: degrees, percent."
            ),
        ]
        for (arguments, message) in cases {
            let r = try BinaryRunner.run(["say", "--dry-run", "--pack", dir.path] + arguments)
            XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, "\(arguments)")
            XCTAssertEqual(r.stderr, "talking-clock: \(message)\n", "\(arguments)")
        }
        let everywhere = try BinaryRunner.run(["say", "--everywhere", "--date", "2026-11-28"])
        XCTAssertEqual(everywhere.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(everywhere.stderr.contains("cannot be combined with --at, --date, --value"), everywhere.stderr)
    }

    /// What scripts/make-pack reads: an empty pack's `check` lists every word of the dates and of
    /// each unit's values, in the order they are first needed; a pack with them all says so.
    func testCheckListsTheDateAndValueWordsOfAnEmptyPack() throws {
        let empty = dir.appendingPathComponent("empty")
        try FixturePack.write(
            to: empty, ids: ["chime"], extraManifest: "\"language\": \"pl\", \"phrasings\": [\"casual\"],")
        let r = try BinaryRunner.run(["check", "--pack", empty.path, "--language", "pl", "--chime", "none"])
        XCTAssertEqual(r.status, ExitStatus.packError.rawValue, "the time cannot be said")
        let notes = r.stdout.split(separator: "\n").filter { $0.hasPrefix("note: ") }.map(String.init)
        XCTAssertEqual(notes.count, 3, r.stdout)
        func listed(_ note: String) -> [String] {
            let start = note.firstRange(of: "; missing words: ")!.upperBound
            let end = note.firstRange(of: ". Add a clip")!.lowerBound
            return note[start..<end].components(separatedBy: ", ")
        }
        XCTAssertTrue(
            notes[0].hasPrefix(
                "note: Sound pack 'fixture' cannot say 366 of 366 dates of a leap year (pl); missing words: "))
        XCTAssertEqual(listed(notes[0]), SpokenLanguages.dateWords(of: "pl"))
        XCTAssertTrue(
            notes[1].hasPrefix(
                "note: Sound pack 'fixture' cannot say 250 of 250 values in degrees (pl); missing words: zero, stopni, jeden, stopień, dwa, stopnie,"
            ), notes[1])
        XCTAssertEqual(listed(notes[1]), SpokenLanguages.valueWords(of: "pl", unit: .degrees))
        XCTAssertEqual(listed(notes[2]), SpokenLanguages.valueWords(of: "pl", unit: .percent))
        XCTAssertTrue(
            notes[0].hasSuffix(
                "only say --date does: record them: talking-clock record-pack \(empty.path) --language pl --dates "
                    + "(a pack scripts/make-pack built: build it again, it makes them; a pack you cannot write to: copy it into "
                    + "~/.local/share/talking-clock/packs/ and record there)."),
            notes[0])

        let full = try BinaryRunner.run(["check", "--pack", try pack("pl").path, "--language", "pl", "--chime", "none"])
        XCTAssertEqual(full.status, 0, full.stdout)
        XCTAssertFalse(full.stdout.contains("note:"), full.stdout)
        XCTAssertTrue(
            full.stdout.contains(
                "ok: all 366 dates of a leap year and 250 values (-99 to 150) in degrees and in percent can be said (pl).\n"
            ),
            full.stdout)
    }

    func testAllLanguagesRefusesWhatItDoesNotUse() throws {
        let r = try BinaryRunner.run(["check", "--all-languages", "--language", "de"])
        XCTAssertEqual(r.status, ExitStatus.badInput.rawValue)
        XCTAssertEqual(
            r.stderr,
            "talking-clock: --all-languages checks each language with the pack named after it and reads no config; it cannot be combined with --config, --pack, --language, --phrasing, --device or --render.\n"
        )
    }
}
