import Foundation
import XCTest

@testable import TalkingClockCore
import TestSupport

final class InstantParserTests: XCTestCase {
    let ny = Zone(identifier: "America/New_York")!

    func testForms() throws {
        XCTAssertEqual(try InstantParser.parse("2026-11-01T06:15:00Z", in: ny), 1_793_513_700)
        XCTAssertEqual(try InstantParser.parse("2026-11-01T01:15:00-05:00", in: ny), 1_793_513_700)
        XCTAssertEqual(try InstantParser.parse("2026-11-01T01:15:00.5-05:00", in: ny), 1_793_513_700.5)
        // Ambiguous local time: the earlier (EDT) occurrence.
        XCTAssertEqual(try InstantParser.parse("2026-11-01T01:15", in: ny), 1_793_513_700 - 3600)
        XCTAssertEqual(try InstantParser.parse("2026-07-01 12:00", in: ny), 1_782_921_600)
    }

    func testErrorsNameTheInputAndTheFix() {
        for (input, fragment) in [
            ("tomorrow", "is not a date and time"),
            ("2026-02-30T10:00", "has only 28 days"),
            ("2026-03-08T02:30", "does not exist in America/New_York"),
            ("2026-11-01T25:00", "is not a date and time"),
            ("2026-11-01T01:15:00+5", "is not a date and time"),
        ] {
            XCTAssertThrowsError(try InstantParser.parse(input, in: ny), input) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(input): \(error)")
            }
        }
    }

    func testClockTime() throws {
        XCTAssertTrue(try InstantParser.parseClockTime("07:05") == (7, 5))
        XCTAssertTrue(try InstantParser.parseClockTime("7:05") == (7, 5))
        for bad in ["24:00", "12:60", "12:5", "noon", "", "1:2:3", "+1:00"] {
            XCTAssertThrowsError(try InstantParser.parseClockTime(bad), bad)
        }
    }
}
