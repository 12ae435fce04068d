import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// What `check` and `schedule` say about reminders, from the built binary: a relative `clip` read
/// from the config file's directory (also when the config is named without one), texts handed to
/// speech-dispatcher without a synthesis engine, and `schedule` lines that say what is heard.
final class ReminderCheckTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FixturePack.temporaryDirectory("reminder-check")
        try FixturePack.write(to: work.appendingPathComponent("pack"))
        let sounds = work.appendingPathComponent("sounds")
        try FileManager.default.createDirectory(at: sounds, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: work.appendingPathComponent("pack/chime.wav"), to: sounds.appendingPathComponent("carol.wav"))
    }

    override func tearDown() { try? FileManager.default.removeItem(at: work) }

    func write(_ config: String, _ name: String = "config.toml") throws {
        try ("pack = \"\(work.appendingPathComponent("pack").path)\"\ndevice = \"null\"\n" + config)
            .write(to: work.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    /// `--config config.toml` in the config's own directory: the clip is `./sounds/carol.wav`, not
    /// `/sounds/carol.wav`; a missing one is named with the directory it is read from.
    func testARelativeClipIsReadBesideARelativeConfig() throws {
        try write("[[reminder]]\nat = \"08:10\"\nclip = \"sounds/carol.wav\"\n")
        let ok = try BinaryRunner.run(["check", "--config", "config.toml"], directory: work)
        XCTAssertEqual(ok.status, 0, ok.stdout + ok.stderr)
        XCTAssertTrue(ok.stdout.contains("ok: 1 reminder: 1 recording decode."), ok.stdout)

        try write("[[reminder]]\nat = \"08:10\"\nclip = \"sounds/missing.wav\"\n")
        let missing = try BinaryRunner.run(["check", "--config", "config.toml"], directory: work)
        XCTAssertEqual(missing.status, ExitStatus.packError.rawValue, missing.stdout + missing.stderr)
        XCTAssertTrue(
            missing.stdout.contains(
                "problem: config.toml: line 3: 'clip' in [[reminder]] is \"sounds/missing.wav\", but there is no file ./sounds/missing.wav (a relative clip is read from the config file's directory)"
            ), missing.stdout)
    }

    /// The fixture pack names no synthesis engine: a text is refused with the fix, unless the words
    /// go to speech-dispatcher, which says them at their instant (nothing is rendered).
    func testATextNeedsAnEngineUnlessSpeechDispatcherSaysIt() throws {
        try write("[[reminder]]\nat = \"09:00\"\nsay = \"Stand-up meeting\"\n")
        let refused = try BinaryRunner.run(["check", "--config", work.appendingPathComponent("config.toml").path])
        XCTAssertEqual(refused.status, ExitStatus.packError.rawValue, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stdout.contains("but nothing can render it: sound pack 'fixture' does not name the engine"), refused.stdout)

        try write("voice-output = \"speech-dispatcher\"\n[[reminder]]\nat = \"09:00\"\nsay = \"Stand-up meeting\"\n")
        let handed = try BinaryRunner.run(["check", "--config", work.appendingPathComponent("config.toml").path])
        XCTAssertEqual(handed.status, 0, handed.stdout + handed.stderr)
        XCTAssertTrue(handed.stdout.contains("ok: 1 reminder: 1 text handed to speech-dispatcher at its instant."), handed.stdout)
    }

    /// `schedule` says what is heard: a reminder speaking through silent quiet hours alone (not the
    /// time), a reminder on an away day with its words and why, and one left out of a spoken line.
    func testScheduleLinesSayWhatIsHeard() throws {
        try write(
            """
            [[reminder]]
            at = "23:30"
            say = "Take your pills"
            speaks-through = ["quiet"]

            [[reminder]]
            at = "10:20"
            say = "Take the bread out"

            [[reminder]]
            at = "09:00"
            say = "Stand-up meeting"

            [[quiet]]
            from = "23:00"
            to = "07:00"

            [[away]]
            from = "2026-08-01"
            to = "2026-08-14"
            """)
        let config = work.appendingPathComponent("config.toml").path
        func lines(_ from: String, _ count: Int, json: Bool = false) throws -> [String] {
            let r = try BinaryRunner.run(
                ["schedule", "--config", config, "--tz", "UTC", "--from", from, "--count", String(count)] + (json ? ["--json"] : []))
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdout.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(
            try lines("2026-07-01T23:20", 1), ["2026-07-01T23:30:00+00:00  time+reminder: Take your pills  (the time skipped: quiet)"])
        let json = try lines("2026-07-01T23:20", 1, json: true)[0]
        XCTAssertTrue(json.contains("\"decision\":\"speak\""), json)
        XCTAssertTrue(json.contains("\"reason\":\"quiet\""), json)
        XCTAssertTrue(json.contains("\"text\":\"Take your pills\""), json)
        XCTAssertEqual(try lines("2026-08-03T10:16", 1), ["2026-08-03T10:20:00+00:00  reminder: Take the bread out  skipped: away"])
        let nine = try lines("2026-08-03T08:50", 1)[0]
        XCTAssertTrue(nine.hasPrefix("2026-08-03T09:00:00+00:00  time+reminder: nine AM  [chime nine am]"), nine)
        XCTAssertTrue(nine.hasSuffix("(left out: \"Stand-up meeting\": away)"), nine)
        XCTAssertEqual(
            try lines("2026-07-01T10:16", 1), ["2026-07-01T10:20:00+00:00  reminder: Take the bread out"], "an ordinary day: said alone")
    }
}
