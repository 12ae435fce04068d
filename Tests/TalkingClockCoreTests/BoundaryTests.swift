import Foundation
import XCTest

@testable import TalkingClockCore
import TestSupport

/// Boundaries around real 2026/2027 transitions. Expected values were produced independently with
/// Python's `zoneinfo` (a second-by-second scan for local hh:mm with minute % 15 == 0, second 0).
final class BoundaryTests: XCTestCase {
    struct Row {
        let zone: String
        let from: String
        let expected: [String]
        let why: String
    }

    let rows: [Row] = [
        Row(zone: "America/New_York", from: "2026-03-08T06:40:00Z",
            expected: ["2026-03-08T01:45:00-05:00", "2026-03-08T03:00:00-04:00", "2026-03-08T03:15:00-04:00"],
            why: "spring forward: 01:45 EST is followed by 03:00 EDT, the skipped hour is never spoken"),
        Row(zone: "America/New_York", from: "2026-11-01T05:40:00Z",
            expected: ["2026-11-01T01:45:00-04:00", "2026-11-01T01:00:00-05:00", "2026-11-01T01:15:00-05:00",
                       "2026-11-01T01:30:00-05:00", "2026-11-01T01:45:00-05:00", "2026-11-01T02:00:00-05:00",
                       "2026-11-01T02:15:00-05:00"],
            why: "fall back: each quarter of the repeated hour once per occurrence"),
        Row(zone: "Europe/London", from: "2026-03-29T00:40:00Z",
            expected: ["2026-03-29T00:45:00+00:00", "2026-03-29T02:00:00+01:00", "2026-03-29T02:15:00+01:00"],
            why: "GMT to BST at 01:00"),
        Row(zone: "Europe/London", from: "2026-10-25T00:40:00Z",
            expected: ["2026-10-25T01:45:00+01:00", "2026-10-25T01:00:00+00:00", "2026-10-25T01:15:00+00:00",
                       "2026-10-25T01:30:00+00:00", "2026-10-25T01:45:00+00:00", "2026-10-25T02:00:00+00:00",
                       "2026-10-25T02:15:00+00:00"],
            why: "BST to GMT: 01:00-01:45 twice"),
        Row(zone: "Australia/Lord_Howe", from: "2026-04-04T14:10:00Z",
            expected: ["2026-04-05T01:15:00+11:00", "2026-04-05T01:30:00+11:00", "2026-04-05T01:45:00+11:00",
                       "2026-04-05T01:30:00+10:30", "2026-04-05T01:45:00+10:30"],
            why: "30-minute DST ends: 01:30 and 01:45 repeat, 01:15 does not"),
        Row(zone: "Australia/Lord_Howe", from: "2026-10-03T15:10:00Z",
            expected: ["2026-10-04T01:45:00+10:30", "2026-10-04T02:30:00+11:00", "2026-10-04T02:45:00+11:00",
                       "2026-10-04T03:00:00+11:00"],
            why: "30-minute DST starts: 02:00 and 02:15 never happen"),
        Row(zone: "Pacific/Chatham", from: "2026-04-04T13:40:00Z",
            expected: ["2026-04-05T03:30:00+13:45", "2026-04-05T02:45:00+12:45", "2026-04-05T03:00:00+12:45",
                       "2026-04-05T03:15:00+12:45", "2026-04-05T03:30:00+12:45", "2026-04-05T03:45:00+12:45"],
            why: "+13:45 to +12:45 at 03:45 local"),
        Row(zone: "Pacific/Chatham", from: "2026-09-26T13:40:00Z",
            expected: ["2026-09-27T02:30:00+12:45", "2026-09-27T03:45:00+13:45", "2026-09-27T04:00:00+13:45"],
            why: "+12:45 to +13:45 at 02:45 local"),
        Row(zone: "Asia/Kathmandu", from: "2026-06-01T00:00:00Z",
            expected: ["2026-06-01T06:00:00+05:45", "2026-06-01T06:15:00+05:45", "2026-06-01T06:30:00+05:45"],
            why: "a 45-minute offset: local quarters are not UTC quarters"),
        Row(zone: "America/Santiago", from: "2026-04-05T02:40:00Z",
            expected: ["2026-04-04T23:45:00-03:00", "2026-04-04T23:00:00-04:00", "2026-04-04T23:15:00-04:00",
                       "2026-04-04T23:30:00-04:00", "2026-04-04T23:45:00-04:00", "2026-04-05T00:00:00-04:00",
                       "2026-04-05T00:15:00-04:00"],
            why: "fall back at midnight: the date goes backwards too"),
        Row(zone: "America/Santiago", from: "2026-09-06T03:40:00Z",
            expected: ["2026-09-05T23:45:00-04:00", "2026-09-06T01:00:00-03:00", "2026-09-06T01:15:00-03:00"],
            why: "spring forward at midnight: there is no 00:00 that night"),
        Row(zone: "America/New_York", from: "2027-03-14T06:40:00Z",
            expected: ["2027-03-14T01:45:00-05:00", "2027-03-14T03:00:00-04:00", "2027-03-14T03:15:00-04:00"],
            why: "2027 spring forward"),
        Row(zone: "Europe/London", from: "2027-10-31T00:40:00Z",
            expected: ["2027-10-31T01:45:00+01:00", "2027-10-31T01:00:00+00:00", "2027-10-31T01:15:00+00:00",
                       "2027-10-31T01:30:00+00:00", "2027-10-31T01:45:00+00:00", "2027-10-31T02:00:00+00:00",
                       "2027-10-31T02:15:00+00:00"],
            why: "2027 fall back"),
    ]

    func zone(_ name: String) throws -> Zone { try XCTUnwrap(Zone(identifier: name), name) }

    func testTransitionTables() throws {
        for row in rows {
            let tz = try zone(row.zone)
            let from = try InstantParser.parse(row.from, in: tz)
            let got = BoundarySchedule.upcoming(after: from, count: row.expected.count, in: tz)
                .map { CivilTime.local($0, in: tz).rfc3339 }
            XCTAssertEqual(got, row.expected, "\(row.zone): \(row.why)")
        }
    }

    func testNextIsStrictlyAfterEvenOnABoundary() throws {
        let tz = try zone("Europe/London")
        let b = try InstantParser.parse("2026-07-01T12:00:00+01:00", in: tz)
        XCTAssertEqual(BoundarySchedule.next(after: b, in: tz), Int(b) + 900, "a boundary is not after itself")
        XCTAssertEqual(BoundarySchedule.next(after: b - 0.001, in: tz), Int(b), "a millisecond before goes to it")
        XCTAssertEqual(BoundarySchedule.next(after: b + 0.999, in: tz), Int(b) + 900)
    }

    /// A whole year, every boundary: 900 s apart, each on a local quarter, each local quarter once
    /// per occurrence (the count equals the year's civil quarters minus skipped plus repeated).
    func testAYearOfBoundariesIsExactly900SecondsApart() throws {
        for name in ["America/New_York", "Australia/Lord_Howe", "Pacific/Chatham", "Asia/Kathmandu", "America/Santiago"] {
            let tz = try zone(name)
            let start = try InstantParser.parse("2026-01-01T00:00", in: tz) - 1
            let end = try InstantParser.parse("2027-01-01T00:00", in: tz)
            var t = start
            var previous: Int?
            var count = 0
            while true {
                let b = BoundarySchedule.next(after: t, in: tz)
                if Double(b) >= end { break }
                let local = CivilTime.local(b, in: tz)
                XCTAssertEqual(local.minute % 15, 0, "\(name) \(local)")
                XCTAssertEqual(local.second, 0, "\(name) \(local)")
                if let previous { XCTAssertEqual(b - previous, 900, "\(name) after \(CivilTime.local(previous, in: tz))") }
                previous = b
                t = Double(b)
                count += 1
            }
            // Offsets are multiples of 15 minutes, so a year of real time holds exactly one boundary per 900 s.
            XCTAssertEqual(count, Int(end - start - 1) / 900, name)
        }
    }

    func testIntervals() throws {
        let tz = try zone("Asia/Kathmandu")
        let from = try InstantParser.parse("2026-06-01T06:05", in: tz)
        let half = BoundarySchedule.upcoming(after: from, count: 2, in: tz, interval: .half).map { CivilTime.local($0, in: tz).rfc3339 }
        XCTAssertEqual(half, ["2026-06-01T06:30:00+05:45", "2026-06-01T07:00:00+05:45"])
        let hour = BoundarySchedule.upcoming(after: from, count: 2, in: tz, interval: .hour).map { CivilTime.local($0, in: tz).rfc3339 }
        XCTAssertEqual(hour, ["2026-06-01T07:00:00+05:45", "2026-06-01T08:00:00+05:45"])
    }

    func testCivilConversionsRoundTrip() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let d = CivilTime.date(days: days)
            XCTAssertEqual(CivilTime.days(year: d.year, month: d.month, day: d.day), days)
        }
        XCTAssertEqual(CivilTime.local(0, offset: 0).weekday, 4, "1970-01-01 was a Thursday")
        XCTAssertEqual(CivilTime.utcString(1_793_000_000), "2026-10-26T07:33:20Z")
    }
}
