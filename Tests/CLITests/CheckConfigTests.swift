import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// `check` checks what is configured: the config file's pack, device, chime and words, with the
/// command line overriding them. (It ignored the file: a configured pack with a missing clip and
/// `device = "nosuch"` passed with exit 0.)
final class CheckConfigTests: XCTestCase {
    var dir: URL!
    var good: URL!
    var broken: URL!
    var xdg: URL!

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("check-config")
        good = dir.appendingPathComponent("good")
        broken = dir.appendingPathComponent("broken")
        xdg = dir.appendingPathComponent("xdg")
        try FixturePack.write(to: good)
        try FixturePack.write(to: broken)
        try FileManager.default.removeItem(at: broken.appendingPathComponent("oh.wav"))  // listed, not there
        try FileManager.default.createDirectory(
            at: xdg.appendingPathComponent("talking-clock"), withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// Writes `text` as the default config file ($XDG_CONFIG_HOME/talking-clock/config.toml).
    func configure(_ text: String) throws -> URL {
        let file = xdg.appendingPathComponent("talking-clock/config.toml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    func check(_ args: [String]) throws -> BinaryRunner.Outcome {
        try BinaryRunner.run(["check"] + args, environment: ["XDG_CONFIG_HOME": xdg.path])
    }

    func testTheIssuesConfigFailsFromTheDefaultLocationAndWithConfig() throws {
        let file = try configure("pack = \"\(broken.path)\"\ndevice = \"nosuch\"\n")
        for args in [[], ["--config", file.path]] {
            let r = try check(args)
            XCTAssertEqual(r.status, ExitStatus.packError.rawValue, "\(args): \(r.stdout)\(r.stderr)")
            XCTAssertTrue(r.stdout.hasPrefix("config: \(file.path)\n"), r.stdout)
            XCTAssertTrue(r.stdout.contains("problem: Clip 'oh' is missing from sound pack directory"), r.stdout)
            XCTAssertTrue(r.stdout.contains("problem: Could not open ALSA device \"nosuch\""), r.stdout)
        }
        // --config names the file even when XDG_CONFIG_HOME has none.
        let elsewhere = dir.appendingPathComponent("elsewhere.toml")
        try FileManager.default.moveItem(at: file, to: elsewhere)
        XCTAssertEqual(try check(["--config", elsewhere.path]).status, ExitStatus.packError.rawValue)
        XCTAssertEqual(
            try check(["--config", dir.appendingPathComponent("none.toml").path]).status, ExitStatus.badInput.rawValue)
    }

    func testTheConfiguredDeviceIsOpenedAndTheCommandLineOverridesIt() throws {
        _ = try configure("pack = \"\(good.path)\"\ndevice = \"nosuch\"\n")
        let bad = try check([])
        XCTAssertEqual(bad.status, ExitStatus.deviceError.rawValue, bad.stdout + bad.stderr)
        XCTAssertTrue(bad.stderr.contains("Could not open ALSA device \"nosuch\""), bad.stderr)
        let overridden = try check(["--device", "file:FILE=/dev/null"])
        XCTAssertEqual(overridden.status, 0, overridden.stdout + overridden.stderr)
        XCTAssertTrue(overridden.stdout.contains("ok: ALSA device \"file:FILE=/dev/null\" opens"), overridden.stdout)
        // --pack overrides the configured pack the same way.
        _ = try configure("pack = \"\(broken.path)\"\ndevice = \"file:FILE=/dev/null\"\n")
        XCTAssertEqual(try check([]).status, ExitStatus.packError.rawValue)
        XCTAssertEqual(try check(["--pack", good.path]).status, 0)
    }

    func testTheConfiguredWordsAndChimeAreChecked() throws {
        let noHundred = dir.appendingPathComponent("no-hundred")
        try FixturePack.write(to: noHundred, ids: FixturePack.fullVocabulary.filter { $0 != "hundred" })
        let cases: [(why: String, config: String, args: [String], status: ExitStatus, says: String)] = [
            ("12h needs no 'hundred'", "pack = \"\(noHundred.path)\"", [], .ok, "all 1440 minutes can be said"),
            (
                "the configured 24h phrasing says 'fifteen hundred'",
                "pack = \"\(noHundred.path)\"\nphrasing = \"24h\"", [], .packError, "hundred"
            ),
            (
                "--phrasing overrides it", "pack = \"\(noHundred.path)\"\nphrasing = \"24h\"", ["--phrasing", "12h"],
                .ok, "all 1440 minutes can be said"
            ),
            (
                "a configured lead-in must be in the pack", "pack = \"\(noHundred.path)\"\nlead-in = \"its\"", [], .ok,
                "all 1440 minutes"
            ),
            (
                "the configured Westminster chime needs bells the fixture pack lacks",
                "pack = \"\(good.path)\"\nchime = \"westminster\"", [], .packError,
                "problem: Sound pack 'fixture' cannot ring chime = \"westminster\""
            ),
            (
                "--chime overrides it", "pack = \"\(good.path)\"\nchime = \"westminster\"", ["--chime", "hour"], .ok,
                "ok: chimes it can ring"
            ),
        ]
        for c in cases {
            _ = try configure(c.config + "\ndevice = \"file:FILE=/dev/null\"\n")
            let r = try check(c.args)
            XCTAssertEqual(r.status, c.status.rawValue, "\(c.why): \(r.stdout)\(r.stderr)")
            XCTAssertTrue((r.stdout + r.stderr).contains(c.says), "\(c.why): \(r.stdout)\(r.stderr)")
        }
        // A lead-in whose clip is missing is a problem.
        let noIts = dir.appendingPathComponent("no-its")
        try FixturePack.write(to: noIts, ids: FixturePack.fullVocabulary.filter { $0 != "its" })
        _ = try configure("pack = \"\(noIts.path)\"\nlead-in = \"its\"\ndevice = \"file:FILE=/dev/null\"\n")
        let r = try check([])
        XCTAssertEqual(r.status, ExitStatus.packError.rawValue, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("missing words: its."), r.stdout)
    }

    /// Without a config file nothing changes: the pack alone, no device unless asked for.
    func testWithoutAConfigFileOnlyThePackIsChecked() throws {
        let r = try check(["--pack", good.path])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertFalse(r.stdout.contains("config:"), r.stdout)
        XCTAssertFalse(r.stdout.contains("ALSA device"), r.stdout)
    }
}
