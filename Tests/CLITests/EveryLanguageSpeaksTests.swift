import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// Every phrasing of every language is speakable with the pack the language finds by itself:
/// `check --language L --phrasing P` over all 1,440 minutes, the pack found as a user's would be
/// (Sounds/ of this checkout; a regional variant falls back to its base language's pack). A
/// language whose pack is not in Sounds/ yet is skipped with a message naming it; once every pack
/// is there, this test proves issue 20's "every language × phrasing is speakable".
final class EveryLanguageSpeaksTests: XCTestCase {
    var data: URL!

    override func setUp() { data = FixturePack.temporaryDirectory("every-language") }
    override func tearDown() { try? FileManager.default.removeItem(at: data) }

    /// The pack names `language` looks for, its own first (de-AT: "de-AT", then "de").
    func packNames(for language: String) -> [String] {
        [SpokenLanguages.defaultPack(of: language)] + (SpokenLanguages.packFallback(of: language).map { [$0] } ?? [])
    }

    /// The pack directory in Sounds/ that `language` finds by name, nil when none is there.
    func shippedPack(for language: String) -> URL? {
        let sounds = BinaryRunner.packageRoot.appendingPathComponent("Sounds")
        return packNames(for: language).map { sounds.appendingPathComponent($0) }.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("pack.json").path)
        }
    }

    func testEveryPhrasingOfEveryLanguageIsSpeakableWithItsShippedPack() throws {
        // Only this checkout's packs: no user packs, no system packs.
        let environment = ["XDG_DATA_HOME": data.path, "XDG_DATA_DIRS": data.appendingPathComponent("none").path]
        var skipped: [String] = []
        var proved: [String] = []
        var failures: [String] = []
        for language in SpokenLanguages.known {
            guard let pack = shippedPack(for: language) else {
                let looked = packNames(for: language).map { "Sounds/\($0)" }.joined(separator: " or ")
                skipped.append("\(language): no pack in Sounds/ (looked for \(looked))")
                continue
            }
            for phrasing in SpokenLanguages.phrasings(of: language) {
                let r = try BinaryRunner.run(
                    ["check", "--language", language, "--phrasing", phrasing.rawValue, "--chime", "none"],
                    environment: environment, timeout: 120)
                let where_ = "\(language) \(phrasing) (\(pack.lastPathComponent) pack)"
                if r.status == 0, r.stdout.contains("all "), r.stdout.contains("minutes can be said"),
                    r.stdout.contains("(\(pack.path))")
                {
                    proved.append(where_)
                } else {
                    let problems = r.stdout.split(separator: "\n").filter { $0.hasPrefix("problem:") }
                    failures.append(
                        "\(where_): exit \(r.status); "
                            + (problems.isEmpty ? r.stdout + r.stderr : problems.joined(separator: " ")))
                }
            }
        }
        if !skipped.isEmpty {
            print("EveryLanguageSpeaksTests: skipped (pack not yet in Sounds/): " + skipped.joined(separator: "; "))
        }
        print("EveryLanguageSpeaksTests: proved \(proved.count): " + proved.joined(separator: ", "))
        XCTAssertTrue(failures.isEmpty, "not every minute can be said:\n" + failures.joined(separator: "\n"))
        if proved.isEmpty { throw XCTSkip("no language pack in Sounds/: " + skipped.joined(separator: "; ")) }
    }
}
