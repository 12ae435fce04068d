import Foundation
import TestSupport
import XCTest

/// A listening proxy for the packs no offline recogniser understands (every language but
/// English): `scripts/pack-quality --reference --only proxy` renders the 96 quarter hours of each
/// phrasing from the committed clips, as the player lays them out (checked against the binary's
/// own `say --output`), and matches each against the same engine's 96 whole phrases by DTW on
/// MFCCs (the engine's features are stored beside the pack by make-pack: `whole.mfcc`). A render
/// is heard right when the nearest whole phrase says its words. A pack whose words regress (a
/// wrong cut, a swapped clip, a silent one) fails here.
final class ListeningProxyTests: XCTestCase {
    static let required = 94
    /// Sets still under the goal (measured 2026-11-28, docs/sound-packs.md): held at what they
    /// reach now, so they cannot regress unseen, until they reach 94. Italian casual: ":45 X meno un
    /// quarto" is nearest to ":15 X e un quarto"; Russian: festival's unit-selection voice.
    static let belowGoal = ["it casual": 89, "ru casual": 90, "ru 24h": 87]

    func testEveryNonEnglishPackIsHeardRightInAtLeast94OfTheQuarterHours() throws {
        let root = BinaryRunner.packageRoot
        let sounds = root.appendingPathComponent("Sounds")
        var packs: [String] = []
        var expected: Set<String> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: sounds.path).sorted() {
            guard let data = FileManager.default.contents(atPath: sounds.appendingPathComponent("\(name)/pack.json").path),
                let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { continue }
            let language = manifest["language"] as? String ?? "en-US"
            if language.hasPrefix("en") { continue }
            packs.append(name)
            for file in ["whole.json", "whole.mfcc"] {
                XCTAssertTrue(
                    FileManager.default.fileExists(atPath: sounds.appendingPathComponent("\(name)/\(file)").path),
                    "Sounds/\(name)/\(file) is missing: rebuild the pack with scripts/make-pack --language \(language)")
            }
            for phrasing in manifest["phrasings"] as? [String] ?? [] { expected.insert("\(name) \(phrasing)") }
        }
        XCTAssertGreaterThanOrEqual(packs.count, 7, "de es fr it nl pl ru: \(packs)")

        let r = try BinaryRunner.run(
            ["--binary", BinaryRunner.binary.path, "--reference", "--only", "proxy", "--parallel", "2"]
                + packs.flatMap { ["--pack", sounds.appendingPathComponent($0).path] },
            timeout: 900, executable: root.appendingPathComponent("scripts/pack-quality"))
        XCTAssertNotEqual(r.status, 69, "scripts/pack-quality lacks a tool: run scripts/install-deps --test.\n\(r.stderr)")
        XCTAssertNotEqual(r.status, 2, "scripts/pack-quality refused its input\n\(r.stderr)")
        var seen: Set<String> = []
        for line in r.stdout.split(separator: "\n") where line.hasPrefix("| ") && !line.hasPrefix("| pack") && !line.hasPrefix("| ---") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 14, let heard = Int(cells[12].prefix(while: \.isNumber)) else {
                XCTFail("unreadable row: \(line)")
                continue
            }
            let key = "\(cells[1]) \(cells[2])"
            seen.insert(key)
            XCTAssertGreaterThanOrEqual(
                heard, Self.belowGoal[key] ?? Self.required, "\(key): \(heard)/96 quarter hours heard right\n\(line)")
        }
        XCTAssertEqual(seen, expected, "one row per pack and phrasing\n\(r.stdout)\(r.stderr)")
        // pack-quality exits 1 while a set is under 94, 0 when every one reaches it.
        XCTAssertEqual(r.status, Self.belowGoal.isEmpty ? 0 : 1, "\(r.stdout)\(r.stderr)")
    }
}
