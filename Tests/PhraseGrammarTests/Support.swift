import TalkingClockCore
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

/// One row of a date table: the day (YYYY-MM-DD), what a native speaker says, and why.
struct DateRow {
    var date: String
    var text: String
    var why: String
}

func date(_ date: String, _ text: String, _ why: String) -> DateRow { DateRow(date: date, text: text, why: why) }

/// One row of a value table: the number, its unit, what a native speaker says, and why.
struct ValueRow {
    var value: Int
    var unit: ValueUnit
    var text: String
    var why: String
}

func value(_ value: Int, _ unit: ValueUnit, _ text: String, _ why: String) -> ValueRow {
    ValueRow(value: value, unit: unit, text: text, why: why)
}

/// Checks every row (the date said through `Phrase.forDate`, so with its own weekday), that
/// there are at least `minimum`, and that the table has the edge cases, every month and
/// every day of the week.
func assertDates(_ tag: String, _ rows: [DateRow], minimum: Int = 30, file: StaticString = #filePath, line: UInt = #line)
    throws
{
    XCTAssertGreaterThanOrEqual(rows.count, minimum, "\(tag): too few date rows", file: file, line: line)
    let dates = try rows.map { try CalendarDate(parsing: $0.date) }
    for day in [1, 2, 3, 23, 31] {
        XCTAssertTrue(dates.contains { $0.day == day }, "\(tag): no row for day \(day)", file: file, line: line)
    }
    XCTAssertTrue(dates.contains { $0.month == 2 && $0.day == 29 }, "\(tag): no leap day", file: file, line: line)
    XCTAssertEqual(Set(dates.map(\.month)), Set(1...12), "\(tag): every month", file: file, line: line)
    XCTAssertEqual(Set(dates.map(\.weekday)), Set(1...7), "\(tag): every day of the week", file: file, line: line)
    for (row, day) in zip(rows, dates) {
        XCTAssertFalse(row.why.isEmpty, "\(tag) \(row.date): every row says why", file: file, line: line)
        let phrase = try Phrase.forDate(day, language: tag)
        XCTAssertEqual(phrase.text, row.text, "\(tag) \(row.date) — \(row.why)", file: file, line: line)
        XCTAssertEqual(phrase.kind, .date, file: file, line: line)
    }
}

/// Checks every row, that there are at least `minimum`, that both units are in it with the
/// issue's edge cases, and that values out of range are refused in each unit.
func assertValues(
    _ tag: String, _ rows: [ValueRow], minimum: Int = 30, file: StaticString = #filePath, line: UInt = #line
) throws {
    XCTAssertGreaterThanOrEqual(rows.count, minimum, "\(tag): too few value rows", file: file, line: line)
    for n in [0, 1, 2, 5, 21, 22, 25, -1, 100, 101] {
        XCTAssertTrue(rows.contains { $0.value == n }, "\(tag): no row for \(n)", file: file, line: line)
    }
    XCTAssertEqual(Set(rows.map(\.unit)), [.degrees, .percent], "\(tag): both units", file: file, line: line)
    for row in rows {
        XCTAssertFalse(row.why.isEmpty, "\(tag) \(row.value): every row says why", file: file, line: line)
        let phrase = try Phrase.forValue(row.value, unit: row.unit, language: tag)
        XCTAssertEqual(phrase.text, row.text, "\(tag) \(row.value) \(row.unit) — \(row.why)", file: file, line: line)
        XCTAssertEqual(phrase.kind, .value, file: file, line: line)
    }
    for unit in [ValueUnit.degrees, .percent] {
        for n in [1000, 151, -100] {
            XCTAssertThrowsError(try Phrase.forValue(n, unit: unit, language: tag), "\(tag) \(n)", file: file, line: line) {
                XCTAssertTrue(
                    "\($0)".contains("out of range: the clock says whole numbers from -99 to 150"), "\($0)", file: file,
                    line: line)
            }
        }
    }
}
