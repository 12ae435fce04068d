import ConfigFiles
import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// Whatever `TZ` holds, the clock's boundaries read what `date` with the same `TZ` says, or the
/// value is refused. The oracle is the system's own `date` (glibc): `TZ=EST5` and
/// `TZ='EST5EDT,M3.2.0,M11.1.0'` were once read as UTC and `TZ=UTC+5` with the sign reversed. The
/// zone is resolved in-process exactly as the daemon and `schedule` resolve it (`ZoneResolver` with
/// the variable), the boundaries laid out by `BoundarySchedule`; `TZEnvironmentTests` runs a few
/// values through the binary and the refusals.
final class TZValuesTests: XCTestCase {
    /// Every value, at instants across daylight-saving changes in both hemispheres and after the
    /// last transition a zone file lists (2090, where the file's footer rule takes over).
    static let values: [(why: String, tz: String)] = [
        ("POSIX, no daylight time: 5 hours west", "EST5"),
        ("POSIX: a + is west, not east (was read as UTC+05:00)", "UTC+5"),
        ("POSIX: a - is east", "UTC-3"),
        ("the quoted form with minutes", "<+0530>-5:30"),
        ("the quoted form, half an hour east", "<+0330>-3:30"),
        ("a quoted negative name", "<-03>3"),
        ("POSIX with US rules", "EST5EDT,M3.2.0,M11.1.0"),
        ("…with the default 02:00 written out", "EST5EDT,M3.2.0/2,M11.1.0/02:00:00"),
        ("POSIX with rules no zone file has", "XXX5YYY,M3.2.0,M11.1.0"),
        ("POSIX with EU rules", "CET-1CEST,M3.5.0,M10.5.0/3"),
        ("POSIX, southern hemisphere: daylight time across the new year", "AEST-10AEDT,M10.1.0,M4.1.0/3"),
        ("POSIX, half-hour offset and half-hour daylight shift (Lord Howe)", "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"),
        ("POSIX, a half-hour offset west with daylight time", "NST3:30NDT,M3.2.0,M11.1.0"),
        ("POSIX, Julian days (Feb 29 never counted)", "XXX3YYY,J60/2,J300/2"),
        ("POSIX, zero-based days (Feb 29 counted)", "XXX3YYY,59,299"),
        ("POSIX, daylight time without rules: the US rules, as posixrules gives", "XXX5YYY"),
        ("a zone file named like a POSIX string is a zone file", "EST5EDT"),
        ("a zone with a fixed offset", "EST"),
        ("a name", "Europe/Berlin"),
        ("a name, southern hemisphere", "Australia/Sydney"),
        ("a name, 12:45 ahead with daylight time", "Pacific/Chatham"),
        ("a name, 3:30 behind with daylight time", "America/St_Johns"),
        ("a name after ':'", ":America/New_York"),
        ("an absolute path under the zoneinfo directory, 45 minutes", "/usr/share/zoneinfo/Asia/Kathmandu"),
        ("an absolute path after ':'", ":/usr/share/zoneinfo/Europe/London"),
        ("posix/ holds the same zones", "posix/Australia/Lord_Howe"),
        ("empty is UTC to glibc", ""),
        ("a bare ':' too", ":"),
    ]

    /// From each instant, the next 8 quarters (two hours): across the US spring change, the EU
    /// autumn change (the repeated hour), both Australian changes, and in 2090.
    static let instants = [
        "2026-01-15T12:07:00Z", "2026-07-15T12:07:00Z", "2026-03-08T06:20:00Z", "2026-10-25T00:20:00Z",
        "2026-04-04T15:20:00Z", "2026-10-03T15:20:00Z", "2090-03-12T06:20:00Z", "2090-10-29T00:20:00Z",
    ]

    func testTheClockSpeaksWhatDateSaysForEveryTZValue() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/date") else { throw XCTSkip("no /usr/bin/date to compare with") }
        var compared = 0
        for v in Self.values {
            let zone = try ZoneResolver.resolve(explicit: nil, environment: ["TZ": v.tz, "TZDIR": ""])
            var rows: [(at: String, instant: Int, from: String)] = []
            for from in Self.instants {
                let start = try XCTUnwrap(ISO8601DateFormatter().date(from: from)).timeIntervalSince1970
                let boundaries = BoundarySchedule.upcoming(after: start, count: 8, in: zone)
                XCTAssertEqual(boundaries.count, 8)
                if let first = boundaries.first {
                    XCTAssertTrue(Double(first) > start && Double(first) <= start + 900, "\(v.why) from \(from): the next quarter")
                }
                rows += boundaries.map { (CivilTime.local($0, in: zone).rfc3339, $0, from) }
            }
            // One `date` for all of this value's instants.
            let expected = try TestZones.glibcReadings(tz: v.tz, at: rows.map(\.instant))
            XCTAssertEqual(expected.count, rows.count, v.why)
            for (row, said) in zip(rows, expected) where row.at != said {
                XCTFail("\(v.why): TZ='\(v.tz)' from \(row.from): the clock says \(row.at), date says \(said)")
            }
            compared += rows.count
        }
        XCTAssertEqual(compared, Self.values.count * Self.instants.count * 8)
    }
}
