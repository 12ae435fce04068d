import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// The shipped packs and the words of dates and values, as `check` proves them: the default pack
/// (en-US, which scripts/make-pack builds with them) says every date of a leap year and every value
/// (-99 … 150) in each unit; any other shipped pack that holds one date word says them all, in every
/// language that speaks with it (de's pack for de-AT too: "jänner"). The language packs do not
/// hold them yet (issue 28: make-pack --language does not make them), which this test allows.
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
            // Words the time says too ("zwei"; "twenty-eighth" is not one) prove nothing.
            let time = Set(
                SpokenLanguages.phrasings(of: language).flatMap { SpokenLanguages.vocabulary(of: language, phrasing: $0) })
            let dateOnly = SpokenLanguages.dateWords(of: language).filter { !time.contains($0) }
            guard language == SpokenLanguages.defaultTag || !pack.clipIds.isDisjoint(with: dateOnly) else { continue }
            let report = pack.checkDatesAndValues(language: language)
            XCTAssertEqual(report.gaps, [], "\(language) with Sounds/\(pack.directory.lastPathComponent)")
        }
    }
}
