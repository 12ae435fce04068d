import Foundation
import XCTest

/// Sources use FoundationEssentials so that the binary does not link ICU. A file that imports
/// full Foundation links all of it (and ICU) into the executable. Zone rules come from the tz
/// database (TimeZoneRules), so no file needs Foundation's ICU-backed `TimeZone` any more.
final class FoundationImportTests: XCTestCase {
    /// Files allowed to import full Foundation: none (TestSupport, used only by tests, may).
    static let stillOnFoundation: Set<String> = []

    func testNoSourceImportsFullFoundation() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("TestSupport/") }
        XCTAssertGreaterThan(files.count, 50, "found the sources")
        var offenders: [String] = []
        for file in files.sorted() {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").contains {
                let line = $0.trimmingCharacters(in: .whitespaces)
                return line == "import Foundation" || line.hasSuffix(" import Foundation")
            }
            if imports && !Self.stillOnFoundation.contains(file) { offenders.append(file) }
        }
        XCTAssertEqual(offenders, [], "import FoundationEssentials instead (see docs/architecture.md)")
    }
}
