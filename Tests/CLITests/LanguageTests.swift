import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// `--language` and `language` as users meet them: the phrase in each language, errors that
/// list the choices, and packs that say which language they speak.
final class LanguageTests: XCTestCase {
    var dir: URL!
    var xdg: URL!

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("language")
        xdg = dir.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(
            at: xdg.appendingPathComponent("talking-clock"), withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A fixture pack of `language` with every word of `phrasings` (declared in pack.json), less `leaving`.
    func pack(_ language: String, phrasings: [Phrasing], leaving: Set<String> = []) throws -> URL {
        let url = dir.appendingPathComponent("pack-\(language)-\(UUID().uuidString)")
        var ids = Set(phrasings.flatMap { SpokenLanguages.vocabulary(of: language, phrasing: $0) })
        ids.subtract(leaving)
        let declared = phrasings.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        try FixturePack.write(
            to: url, ids: ids.sorted() + ["chime"],
            extraManifest: "\"language\": \"\(language)\", \"phrasings\": [\(declared)],")
        return url
    }

    func run(_ args: [String], config: String? = nil) throws -> BinaryRunner.Outcome {
        if let config {
            try config.write(
                to: xdg.appendingPathComponent("talking-clock/config.toml"), atomically: true, encoding: .utf8)
        }
        return try BinaryRunner.run(args, environment: ["XDG_CONFIG_HOME": xdg.path])
    }

    func testSayDryRunSpeaksTheLanguage() throws {
        let de = try pack("de", phrasings: [.casual, .twentyFourHour])
        let r = try run(["say", "--dry-run", "--language", "de", "--at", "15:30", "--pack", de.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "halb vier\nclips: halb vier\n")
        let official = try run(["say", "--dry-run", "--language", "de", "--phrasing", "24h", "--at", "15:30", "--pack", de.path])
        XCTAssertEqual(official.stdout, "fünfzehn Uhr dreißig\nclips: fünfzehn uhr dreißig\n", official.stderr)
        // With the English default pack the phrase is still shown, and the pack is refused.
        let english = try run(["say", "--dry-run", "--language", "de", "--at", "15:30", "--pack", "default"])
        XCTAssertEqual(english.status, ExitStatus.packError.rawValue)
        XCTAssertEqual(english.stdout, "halb vier\n")
        XCTAssertTrue(english.stderr.contains("speaks en-US, but the configured language is de"), english.stderr)
    }

    func testScheduleJSONCarriesTheLanguageAndText() throws {
        let fr = try pack("fr", phrasings: [.casual])
        let r = try run([
            "schedule", "--language", "fr", "--json", "--pack", fr.path, "--tz", "UTC", "--from",
            "2026-03-01T12:20:00Z", "--count", "2", "--chime", "none",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.stdout,
            """
            {"anchor_offset_ms":0,"at":"2026-03-01T12:30:00+00:00","chime":"none","clips":["midi","et","demi"],"decision":"speak","language":"fr","strikes":0,"text":"midi et demi","utc":"2026-03-01T12:30:00Z","volume":100}
            {"anchor_offset_ms":0,"at":"2026-03-01T12:45:00+00:00","chime":"none","clips":["une","heure","moins","le","quart"],"decision":"speak","language":"fr","strikes":0,"text":"une heure moins le quart","utc":"2026-03-01T12:45:00Z","volume":100}

            """)
        let text = try run([
            "schedule", "--language", "fr", "--pack", fr.path, "--tz", "UTC", "--from", "2026-03-01T12:20:00Z",
            "--count", "1", "--chime", "none",
        ])
        XCTAssertEqual(
            text.stdout, "language: fr, phrasing casual\n2026-03-01T12:30:00+00:00  midi et demi  [midi et demi]\n",
            text.stderr)
    }

    func testUnknownLanguageAndPhrasingListTheChoices() throws {
        let known = "en-US, en-GB, de, de-AT, fr, es, es-419, it, nl, pl, ru"
        for command in [["say", "--dry-run"], ["schedule"], ["check"], ["run"], ["announce", "--next"], ["record-pack", dir.path]] {
            let r = try run(command + ["--language", "klingon"])
            XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, "\(command): \(r.stderr)")
            XCTAssertEqual(
                r.stderr, "talking-clock: --language: unknown language \"klingon\"; the clock speaks: \(known).\n",
                "\(command)")
        }
        let phrasing = try run(["say", "--dry-run", "--language", "ru", "--phrasing", "12h", "--at", "15:30"])
        XCTAssertEqual(phrasing.status, ExitStatus.badInput.rawValue)
        XCTAssertEqual(
            phrasing.stderr, "talking-clock: --language: language ru has no phrasing \"12h\"; it has: casual, 24h.\n")
        let file = try run(["schedule"], config: "language = \"pl\"\nphrasing = \"12h\"\n")
        XCTAssertEqual(file.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(
            file.stderr.hasSuffix("config.toml: line 2: language pl has no phrasing \"12h\"; it has: casual, 24h.\n"),
            file.stderr)
    }

    func testAPackOfAnotherLanguageIsRefused() throws {
        let de = try pack("de", phrasings: [.casual])
        let config = "language = \"fr\"\npack = \"\(de.path)\"\n"
        let message = "Sound pack 'fixture' (\(de.path)) speaks de, but the configured language is fr"
        let check = try run(["check"], config: config)
        XCTAssertEqual(check.status, ExitStatus.packError.rawValue)
        XCTAssertTrue(check.stdout.contains("problem: \(message)"), check.stdout)
        let say = try run(["say", "--dry-run", "--at", "15:45"], config: config)
        XCTAssertEqual(say.status, ExitStatus.packError.rawValue)
        XCTAssertEqual(say.stdout, "quatre heures moins le quart\n")
        XCTAssertTrue(say.stderr.contains(message), say.stderr)
        let socket = dir.appendingPathComponent("none.sock").path
        let daemon = try run(
            ["announce", "--next", "--max-wait", "0", "--socket", socket, "--state-dir", dir.path], config: config)
        XCTAssertEqual(daemon.status, ExitStatus.packError.rawValue, daemon.stdout + daemon.stderr)
        XCTAssertTrue(daemon.stderr.contains(message), daemon.stderr)
    }

    func testCheckProvesEachDeclaredPhrasingAndListsMissingWords() throws {
        let full = try pack("de", phrasings: [.casual, .twentyFourHour])
        let ok = try run(["check", "--pack", full.path, "--language", "de"])
        XCTAssertEqual(ok.status, 0, ok.stdout + ok.stderr)
        XCTAssertTrue(ok.stdout.contains("all 2880 minutes can be said (de: casual, 24h)."), ok.stdout)

        let gaps = try pack("de", phrasings: [.casual, .twentyFourHour], leaving: ["halb", "dreißig", "uhr"])
        let r = try run(["check", "--pack", gaps.path, "--language", "de"])
        XCTAssertEqual(r.status, ExitStatus.packError.rawValue)
        let problems = r.stdout.split(separator: "\n").filter { $0.hasPrefix("problem:") }
        XCTAssertEqual(problems.count, 2, r.stdout)
        XCTAssertTrue(problems[0].contains("in casual style (de); missing words: halb, uhr."), r.stdout)
        XCTAssertTrue(problems[1].contains("in 24h style (de); missing words: uhr, dreißig."), r.stdout)
    }

    /// The daemon says the configured language in its status, and a reload to another language
    /// than its pack's is refused (the loaded configuration and pack stay).
    func testDaemonStatusSpeaksTheLanguageAndReloadRefusesAnotherLanguage() throws {
        let de = try pack("de", phrasings: [.casual])
        let config = dir.appendingPathComponent("config.toml")
        try "language = \"de\"\npack = \"\(de.path)\"\n".write(to: config, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(
            [
                "run", "--config", config.path, "--driver", "timer", "--device", "file:FILE=/dev/null", "--tz", "UTC",
                "--state-dir", dir.appendingPathComponent("state").path, "--fake-clock", "2026-03-01T15:20:00Z",
            ], socket: dir.appendingPathComponent("run/control.sock").path,
            environment: ["XDG_CONFIG_HOME": xdg.path], logURL: dir.appendingPathComponent("daemon.log"))
        defer { _ = d.stop() }
        let status = try d.request("status")
        XCTAssertTrue(status.contains("\"halb vier\""), status)
        try "language = \"fr\"\npack = \"\(de.path)\"\n".write(to: config, atomically: true, encoding: .utf8)
        let reload = try d.request("reload")
        XCTAssertTrue(reload.hasPrefix("error pack: reload refused, the previous configuration and pack stay: "), reload)
        XCTAssertTrue(reload.contains("speaks de, but the configured language is fr"), reload)
        XCTAssertTrue(try d.request("status").contains("\"halb vier\""))
    }

    /// A regional variant with no pack of its own speaks with its base language's pack, found by
    /// name in the user's packs; `check` proves the variant's phrases and names the words the base
    /// pack lacks for them; a pack of its own, when there is one, wins.
    func testARegionalVariantSpeaksWithItsBaseLanguagesPack() throws {
        let data = dir.appendingPathComponent("data")
        let packs = data.appendingPathComponent("talking-clock/packs")
        try FileManager.default.createDirectory(at: packs, withIntermediateDirectories: true)
        // A German pack with every word of de and de-AT casual: the words de-AT adds are its own.
        let deWords = Set(SpokenLanguages.vocabulary(of: "de", phrasing: .casual))
        let atWords = Set(SpokenLanguages.vocabulary(of: "de-AT", phrasing: .casual))
        XCTAssertEqual(atWords.subtracting(deWords).sorted(), ["dreiviertel"], "the one word de-AT adds to a de pack")
        let german = packs.appendingPathComponent("de")
        try FixturePack.write(
            to: german, ids: deWords.union(atWords).sorted() + ["chime"],
            extraManifest: "\"language\": \"de\", \"phrasings\": [\"casual\"],")
        let env = ["XDG_CONFIG_HOME": xdg.path, "XDG_DATA_HOME": data.path]

        let say = try BinaryRunner.run(
            ["say", "--dry-run", "--language", "de-AT", "--at", "15:45", "--chime", "none"], environment: env)
        XCTAssertEqual(say.status, 0, say.stderr)
        XCTAssertEqual(say.stdout, "dreiviertel vier\nclips: dreiviertel vier\n")

        let check = try BinaryRunner.run(["check", "--language", "de-AT", "--chime", "none"], environment: env)
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(
            check.stdout.contains(
                "ok: sound pack 'fixture' (\(german.path)): \(deWords.union(atWords).count + 1) clips decode (8000 Hz, 1 channel, 16-bit); all 1440 minutes can be said (de-AT with a de pack: casual)."
            ), check.stdout)

        // Without "dreiviertel" the de pack still speaks de, and check names what de-AT lacks.
        try FileManager.default.removeItem(at: german)
        try FixturePack.write(
            to: german, ids: deWords.sorted() + ["chime"],
            extraManifest: "\"language\": \"de\", \"phrasings\": [\"casual\"],")
        let lacking = try BinaryRunner.run(["check", "--language", "de-AT", "--chime", "none"], environment: env)
        XCTAssertEqual(lacking.status, 65, lacking.stdout + lacking.stderr)
        XCTAssertTrue(
            lacking.stdout.contains(
                "problem: Sound pack 'fixture' cannot say 24 of 1440 minutes in casual style (de-AT); missing words: dreiviertel."
            ), lacking.stdout)
        let de = try BinaryRunner.run(["check", "--language", "de", "--chime", "none"], environment: env)
        XCTAssertEqual(de.status, 0, de.stdout + de.stderr)

        // A pack of the variant's own is preferred to the base's.
        let austrian = packs.appendingPathComponent("de-AT")
        try FixturePack.write(
            to: austrian, ids: atWords.sorted() + ["chime"],
            extraManifest: "\"language\": \"de-AT\", \"phrasings\": [\"casual\"],")
        let own = try BinaryRunner.run(["check", "--language", "de-AT", "--chime", "none"], environment: env)
        XCTAssertEqual(own.status, 0, own.stdout + own.stderr)
        XCTAssertTrue(own.stdout.contains("(\(austrian.path))"), own.stdout)
        XCTAssertTrue(own.stdout.contains("(de-AT: casual)."), own.stdout)

        // The fallback is only to the base: the German pack does not speak Latin American Spanish,
        // and a de-AT pack does not speak de.
        let spanish = try BinaryRunner.run(
            ["say", "--dry-run", "--language", "es-419", "--pack", german.path, "--at", "15:45"], environment: env)
        XCTAssertEqual(spanish.status, 65)
        XCTAssertTrue(
            spanish.stderr.contains("speaks de, but the configured language is es-419"), spanish.stderr)
        let back = try BinaryRunner.run(
            ["say", "--dry-run", "--language", "de", "--pack", austrian.path, "--at", "15:45"], environment: env)
        XCTAssertEqual(back.status, 65, back.stdout + back.stderr)
    }
}
