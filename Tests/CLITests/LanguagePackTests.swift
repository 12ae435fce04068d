import Foundation
import TestSupport
import XCTest

/// The language packs committed under Sounds/ (made by `scripts/make-pack --language TAG`): each
/// passes `check` for its language in every phrasing it declares, `say` renders audio with it, and
/// a language with no `pack` set picks its own pack by name.
final class LanguagePackTests: XCTestCase {
    /// Packs the repository must carry: every language's (each under its voice's licence; see
    /// docs/sound-packs.md).
    static let required = ["en-GB", "de", "fr", "es", "it", "nl", "pl", "ru"]

    var dir: URL!

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("language-packs")
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    struct Pack {
        var url: URL
        var language: String
        var phrasings: [String]
    }

    /// Every pack in Sounds/ other than the en-US default, tracked or built locally.
    static func languagePacks() throws -> [Pack] {
        let sounds = BinaryRunner.packageRoot.appendingPathComponent("Sounds")
        var packs: [Pack] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: sounds.path).sorted() where name != "default" {
            let url = sounds.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.appendingPathComponent("pack.json").path),
                let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { continue }
            let language = manifest["language"] as? String ?? "en-US"
            packs.append(Pack(url: url, language: language, phrasings: manifest["phrasings"] as? [String] ?? []))
        }
        return packs
    }

    func testTheRequiredPacksAreThereAndSpeakTheirOwnLanguage() throws {
        let packs = try Self.languagePacks()
        for tag in Self.required {
            guard let pack = packs.first(where: { $0.url.lastPathComponent == tag }) else {
                XCTFail("Sounds/\(tag) is missing: regenerate it with scripts/make-pack --language \(tag)")
                continue
            }
            XCTAssertEqual(pack.language, tag, "Sounds/\(tag)/pack.json must declare \"language\": \"\(tag)\"")
            XCTAssertTrue(pack.phrasings.contains("casual") && pack.phrasings.contains("24h"), "\(tag): \(pack.phrasings)")
        }
    }

    /// `check` proves all 1,440 minutes in each declared phrasing, with no problem and no loudness
    /// warning (make-pack brings every word to one level).
    func testEveryLanguagePackPassesCheckInEveryDeclaredPhrasing() throws {
        let packs = try Self.languagePacks()
        XCTAssertGreaterThanOrEqual(packs.count, Self.required.count)
        for pack in packs {
            let r = try BinaryRunner.run(
                ["check", "--pack", pack.url.path, "--language", pack.language, "--device", "null"], timeout: 120)
            XCTAssertEqual(r.status, 0, "\(pack.language): \(r.stdout)\(r.stderr)")
            let minutes = 1440 * pack.phrasings.count
            let said = "all \(minutes) minutes can be said (\(pack.language): \(pack.phrasings.joined(separator: ", ")))."
            XCTAssertTrue(r.stdout.contains(said), "\(pack.language): expected '\(said)' in\n\(r.stdout)")
            XCTAssertFalse(r.stdout.contains("problem:"), r.stdout)
            XCTAssertFalse(r.stdout.contains("warning:"), r.stdout)
        }
    }

    /// `say --output` renders the phrase with the pack; left to choose, the language takes its own
    /// pack (Sounds/TAG of this checkout) and renders the same samples.
    func testSayRendersAudioWithEachLanguagePackAndPicksItByLanguage() throws {
        for pack in try Self.languagePacks() {
            for phrasing in pack.phrasings {
                let explicit = dir.appendingPathComponent("\(pack.language)-\(phrasing).wav")
                let args = ["say", "--local", "--language", pack.language, "--phrasing", phrasing, "--at", "15:45", "--chime", "none"]
                let r = try BinaryRunner.run(args + ["--pack", pack.url.path, "--output", explicit.path])
                XCTAssertEqual(r.status, 0, "\(pack.language) \(phrasing): \(r.stderr)")
                let samples = try XCTUnwrap(WAVSamples.int16(at: explicit), "no data chunk in \(explicit.path)")
                // A phrase of two or more words: well over half a second of audio, and not silence.
                XCTAssertGreaterThan(samples.count, 22050 / 2, "\(pack.language) \(phrasing)")
                let rms = (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))).squareRoot()
                XCTAssertGreaterThan(rms, 300, "\(pack.language) \(phrasing): the rendering is (nearly) silent")

                let byLanguage = dir.appendingPathComponent("\(pack.language)-\(phrasing)-default.wav")
                let d = try BinaryRunner.run(args + ["--output", byLanguage.path], environment: ["XDG_DATA_HOME": dir.path])
                XCTAssertEqual(d.status, 0, "\(pack.language) \(phrasing) with no --pack: \(d.stderr)")
                if pack.url.lastPathComponent == pack.language {
                    XCTAssertEqual(
                        try Data(contentsOf: byLanguage), try Data(contentsOf: explicit),
                        "\(pack.language): with no pack set, the language's own pack speaks")
                }
            }
        }
    }

    /// A pack can be rebuilt from its sources on this machine, as `scripts/install --language-packs`
    /// and a user who changes the tools do. Polish (espeak-ng, cuts at its phoneme events; the
    /// language with the most word forms) is built here from scratch into a temporary directory and
    /// must pass `check` in both phrasings, name its voice and its loudness in the provenance README
    /// and hold the same clips as the committed Sounds/pl. It is cut from the sentences the committed
    /// pack's `cuts.json` names (`--from-cuts`): choosing them by the joins speaks every minute of
    /// the day whole, which takes many minutes, and is `scripts/pack-quality`'s to check. Needs
    /// espeak-ng's library and data and pyloudnorm (`install-deps --test`).
    func testAPackIsRebuiltOnThisMachineWithTheCommittedClipsAndPassesCheck() throws {
        let out = dir.appendingPathComponent("pl")
        let committed = BinaryRunner.packageRoot.appendingPathComponent("Sounds/pl")
        let make = try Self.makePack(
            ["--language", "pl", "--out", out.path, "--binary", BinaryRunner.binary.path, "--from-cuts", committed.path])
        XCTAssertEqual(make.status, 0, "make-pack --language pl: \(make.log)")
        let r = try BinaryRunner.run(["check", "--pack", out.path, "--language", "pl", "--device", "null"], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("all 2880 minutes can be said (pl: casual, 24h)."), r.stdout)
        XCTAssertFalse(r.stdout.contains("problem:"), r.stdout)
        let readme = try String(contentsOf: out.appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertTrue(readme.contains("espeak-ng"), "the pack's README names its engine:\n\(readme.prefix(600))")
        XCTAssertTrue(readme.contains("## Loudness"), "the pack's README gives its loudness")
        let clips = { (dir: URL) throws -> [String] in
            let data = try Data(contentsOf: dir.appendingPathComponent("pack.json"))
            let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try XCTUnwrap(manifest["clips"] as? [String: String]).keys.sorted()
        }
        XCTAssertEqual(try clips(out), try clips(committed), "the rebuilt pack has the committed pack's clips")
        // Words the Polish grammar needs and no other language has: the feminine ordinal genitive after
        // "wpół do" and the locative after "po" (LANGUAGES.md, Polish).
        for clip in ["wpół", "do", "trzeciej", "po"] {
            let found = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("voice").path)
                .contains { $0.hasPrefix(clip + ".") }
            XCTAssertTrue(found, "voice/\(clip).flac is missing from the built pack")
        }
    }

    /// No shipped clip carries a sound of its neighbour: `scripts/cut-audit` speaks each espeak-ng
    /// pack's sentences again, finds each clip's cut window at espeak-ng's phoneme events, and
    /// compares the phonemes inside it with the words spoken alone (and the shipped clip's length
    /// with the window). French "une", "heure(s)", "deux", "dix", "vingt" and Dutch "nul" were the
    /// known mis-cuts. Needs espeak-ng's library and data and sox (`install-deps --test`).
    func testNoShippedEspeakClipCarriesASoundOfItsNeighbour() throws {
        let script = BinaryRunner.packageRoot.appendingPathComponent("scripts/cut-audit")
        let log = FixturePack.temporaryDirectory("cut-audit").appendingPathComponent("log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = script
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let out = try String(contentsOf: log, encoding: .utf8)
        XCTAssertEqual(process.terminationStatus, 0, out)
        for tag in ["de", "fr", "es", "nl", "pl"] {
            let line = out.split(separator: "\n").first { $0.hasPrefix("\(tag): ") }.map(String.init) ?? ""
            let counts = line.split(separator: " ").compactMap { Int($0) }
            XCTAssertEqual(counts.count, 2, "no verdict for \(tag) in\n\(out)")
            XCTAssertTrue(counts.count == 2 && counts[0] == counts[1] && counts[0] > 40, line)
        }
        XCTAssertFalse(out.contains("FAIL"), out)
    }

    /// `scripts/make-pack ARGS` under timeout(1) (10 minutes), its stdout and stderr in one log file.
    static func makePack(_ arguments: [String]) throws -> (status: Int32, log: String) {
        let log = FixturePack.temporaryDirectory("make-pack-log").appendingPathComponent("log")
        defer { try? FileManager.default.removeItem(at: log.deletingLastPathComponent()) }
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["600", BinaryRunner.packageRoot.appendingPathComponent("scripts/make-pack").path] + arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
