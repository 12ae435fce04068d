import Foundation
import TestSupport
import XCTest

/// Every committed pack speaks at one loudness and without a pause inside a phrase:
/// `scripts/loudness` renders the 96 quarter hours of every phrasing of every pack under Sounds/
/// with the built binary (voice only) and measures them (ITU-R BS.1770 with pyloudnorm; silences of
/// 10 ms frames 45 dB under the phrase's loudest). The test reads the figures from its table and
/// checks them itself: within ±1 LU of the default pack's en-US 12h phrases, and no silence over
/// 200 ms inside a phrase.
final class ShippedPacksLoudnessTests: XCTestCase {
    func testEveryPackAndPhrasingIsWithinOneLUOfTheDefaultPackWithNoInnerPauseOver200ms() throws {
        let root = BinaryRunner.packageRoot
        let sounds = root.appendingPathComponent("Sounds")
        // The sets the table must have: one row per pack and declared phrasing.
        var expected: Set<String> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: sounds.path) {
            guard let data = FileManager.default.contents(atPath: sounds.appendingPathComponent("\(name)/pack.json").path),
                let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { continue }
            for phrasing in manifest["phrasings"] as? [String] ?? ["12h"] { expected.insert("\(name) \(phrasing)") }
        }
        XCTAssertGreaterThanOrEqual(expected.count, 9 * 2 + 1, "every language's pack with its phrasings: \(expected.sorted())")

        let r = try BinaryRunner.run(["--binary", BinaryRunner.binary.path], timeout: 900, executable: root.appendingPathComponent("scripts/loudness"))
        XCTAssertNotEqual(r.status, 69, "scripts/loudness lacks a tool: run scripts/install-deps --test.\n\(r.stderr)")
        var seen: Set<String> = []
        for line in r.stdout.split(separator: "\n") where line.hasPrefix("| ") && !line.hasPrefix("| pack") && !line.hasPrefix("| ---") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 7, let delta = Double(cells[4]),
                let silence = Double(cells[6].prefix(while: { $0.isNumber || $0 == "." }))
            else { XCTFail("unreadable row: \(line)"); continue }
            let key = "\(cells[0]) \(cells[2])"
            seen.insert(key)
            XCTAssertLessThanOrEqual(abs(delta), 1.0, "\(key): \(delta) LU from the default pack\n\(line)")
            XCTAssertLessThanOrEqual(silence, 200, "\(key): a \(silence) ms pause inside a phrase\n\(line)")
        }
        XCTAssertEqual(seen, expected, "one row per pack and phrasing\n\(r.stdout)\(r.stderr)")
        XCTAssertEqual(r.status, 0, "\(r.stdout)\(r.stderr)")
    }
}
