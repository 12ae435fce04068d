import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// Every shipped pack says every date of a leap year and every value (-99 … 150) in each unit of
/// every language that speaks with it (de's pack for de-AT too: "jänner"), as `check` proves them.
///
/// The packs gain these words when scripts/make-pack regenerates them (branch lang-audio). Until
/// then no shipped pack holds a date word, and this test skips and says so; as soon as one pack
/// holds one, it is enforced for all of them.
final class ShippedPacksSayDatesTests: XCTestCase {
    func testEveryShippedPackSaysEveryDateAndValue() throws {
        let sounds = BinaryRunner.packageRoot.appendingPathComponent("Sounds")
        var packs: [(language: String, pack: SoundPack)] = []
        for language in SpokenLanguages.known {
            let names =
                [SpokenLanguages.defaultPack(of: language)]
                + (SpokenLanguages.packFallback(of: language).map { [$0] } ?? [])
            guard
                let directory = names.map({ sounds.appendingPathComponent($0) }).first(where: {
                    FileManager.default.fileExists(atPath: $0.appendingPathComponent("pack.json").path)
                })
            else {
                XCTFail("\(language): no pack in Sounds/ (looked for \(names.joined(separator: ", ")))")
                continue
            }
            packs.append((language, try SoundPack(directory: directory, scan: false)))
        }
        let anyDateWord = packs.contains { entry in
            // Words the time says too ("zwei", "twenty-eighth" is not one) prove nothing.
            let time = Set(
                SpokenLanguages.phrasings(of: entry.language).flatMap {
                    SpokenLanguages.vocabulary(of: entry.language, phrasing: $0)
                })
            let dateOnly = SpokenLanguages.dateWords(of: entry.language).filter { !time.contains($0) }
            return !entry.pack.clipIds.isDisjoint(with: dateOnly)
        }
        guard anyDateWord else {
            throw XCTSkip(
                "No shipped pack holds the words of dates yet (issue 28: scripts/make-pack does not make them; "
                    + "record-pack DIR --dates / --values adds them to a pack of one's own); once one does, every pack must say every date and value.")
        }
        for (language, pack) in packs {
            let report = pack.checkDatesAndValues(language: language)
            XCTAssertEqual(report.gaps, [], "\(language) with Sounds/\(pack.directory.lastPathComponent)")
        }
    }
}
