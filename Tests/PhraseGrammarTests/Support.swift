import XCTest

@testable import PhraseGrammar

/// One row of a language table: a time, the phrasing, what a native speaker says, and why.
struct Row {
    var hour: Int
    var minute: Int
    var phrasing: String
    var text: String
    var why: String
    var leadIn: String?
    var options: Set<String>
}

/// `row("15:45", "casual", "quarter to four", "the next hour after the half")`.
func row(
    _ time: String, _ phrasing: String, _ text: String, _ why: String, leadIn: String? = nil, options: Set<String> = []
) -> Row {
    let parts = time.split(separator: ":").map { Int($0)! }
    return Row(
        hour: parts[0], minute: parts[1], phrasing: phrasing, text: text, why: why, leadIn: leadIn, options: options)
}

/// Checks every row, that there are at least `minimum` rows, and that every phrasing of the
/// language is covered.
/// Returns how many rows the grammar phrased exactly as the table says.
@discardableResult
func assertTable(_ tag: String, _ rows: [Row], minimum: Int = 40, file: StaticString = #filePath, line: UInt = #line)
    throws -> Int
{
    let grammar = try Languages.grammar(tag)
    XCTAssertGreaterThanOrEqual(rows.count, minimum, "\(tag): too few rows", file: file, line: line)
    for phrasing in grammar.phrasings {
        XCTAssertGreaterThanOrEqual(
            rows.filter { $0.phrasing == phrasing }.count, 3, "\(tag): phrasing \(phrasing) is hardly tested",
            file: file, line: line)
    }
    var matched = 0
    for row in rows {
        XCTAssertFalse(row.why.isEmpty, "\(tag) \(row.hour):\(row.minute): every row says why", file: file, line: line)
        do {
            let phrase = try grammar.phrase(
                hour: row.hour, minute: row.minute, phrasing: row.phrasing, leadIn: row.leadIn, options: row.options)
            XCTAssertEqual(
                phrase.text, row.text, "\(tag) \(row.phrasing) \(row.hour):\(row.minute) — \(row.why)", file: file,
                line: line)
            if phrase.text == row.text { matched += 1 }
        } catch {
            XCTFail("\(tag) \(row.phrasing) \(row.hour):\(row.minute): \(error)", file: file, line: line)
        }
    }
    return matched
}

/// The shipped language files in the source tree.
let languagesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/PhraseGrammar/Languages")

let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
