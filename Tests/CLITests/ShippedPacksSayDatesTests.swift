import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// Every shipped pack says every date of a leap year and every value (-99 … 150) in each unit of
/// every language that speaks with it (de's pack for de-AT too: "jänner"; es's for es-419), as
/// `check` proves them: scripts/make-pack cuts these words for every pack (the default pack from
/// carrier sentences, the language packs from the engine's own date and value sentences).
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
        for (language, pack) in packs {
            let report = pack.checkDatesAndValues(language: language)
            XCTAssertEqual(report.gaps, [], "\(language) with Sounds/\(pack.directory.lastPathComponent)")
            XCTAssertTrue(report.saysDates, "\(language) with Sounds/\(pack.directory.lastPathComponent)")
        }
    }
}
