import TimeZoneRules
import XCTest

/// POSIX rules turned into instants. Expected values are UTC, computed with Python's
/// `calendar.timegm` from the dates the rules name.
final class POSIXRulesTests: XCTestCase {
    func testDaylightTransitionsInAYear() throws {
        let cases: [(why: String, rule: String, year: Int, start: Int, end: Int)] = [
            (
                "US: 2nd Sunday of March, 1st of November, 02:00", "EST5EDT,M3.2.0,M11.1.0", 2024, 1_710_054_000,
                1_730_613_600
            ),
            (
                "EU: last Sundays, 01:00 UTC (the end is written in summer time)", "CET-1CEST,M3.5.0,M10.5.0/3", 2024,
                1_711_846_800, 1_729_990_800
            ),
            (
                "southern hemisphere: the start comes after the end", "AEST-10AEDT,M10.1.0,M4.1.0/3", 2024,
                1_728_144_000,
                1_712_419_200
            ),
            (
                "a negative time: 23:00 the day before (Nuuk)", "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", 2024, 1_711_846_800,
                1_729_990_800
            ),
            (
                "past 24:00: Thursday 26:00 is Friday 02:00 (Israel)", "IST-2IDT,M3.4.4/26,M10.5.0", 2024,
                1_711_670_400,
                1_729_983_600
            ),
            (
                "J60 is March 1 even in a leap year; zero-based 59 is February 29 then", "<-03>3<-02>,J60,59", 2024,
                1_709_269_200, 1_709_179_200
            ),
            ("... and March 1 in a common year", "<-03>3<-02>,J60,59", 2023, 1_677_646_800, 1_677_643_200),
            (
                "week 5 is the last: February 29, 2024 is the fifth Thursday", "EST5EDT,M2.5.4,M11.1.0", 2024,
                1_709_190_000,
                1_730_613_600
            ),
            (
                "... and February 23, 2023 the fourth and last", "EST5EDT,M2.5.4,M11.1.0", 2023, 1_677_135_600,
                1_699_164_000
            ),
            ("±167 hours (RFC 8536 3.3.1)", "EST5EDT,M3.2.0/167,M11.1.0/-167", 2024, 1_710_648_000, 1_730_005_200),
        ]
        for c in cases {
            let rule = try POSIXTZString(c.rule)
            let transitions = try XCTUnwrap(rule.daylightTransitions(inYear: c.year), c.why)
            XCTAssertEqual(transitions.start, c.start, "start: \(c.why)")
            XCTAssertEqual(transitions.end, c.end, "end: \(c.why)")
            // The local time type changes exactly there, and nextTransition finds it.
            for (instant, isDST) in [(c.start, true), (c.end, false)] {
                XCTAssertEqual(rule.localTimeType(at: instant).isDST, isDST, c.why)
                XCTAssertEqual(rule.localTimeType(at: instant - 1).isDST, !isDST, c.why)
                XCTAssertEqual(rule.nextTransition(after: instant - 1)?.instant, instant, c.why)
            }
        }
        XCTAssertNil(try POSIXTZString("EST5").daylightTransitions(inYear: 2024), "no daylight time, no transitions")
    }

    func testLocalTimeTypes() throws {
        let rule = try POSIXTZString("CET-1CEST,M3.5.0,M10.5.0/3")
        XCTAssertEqual(
            rule.localTimeType(at: 1_711_846_799), LocalTimeType(utcOffset: 3600, isDST: false, abbreviation: "CET"))
        XCTAssertEqual(
            rule.localTimeType(at: 1_711_846_800), LocalTimeType(utcOffset: 7200, isDST: true, abbreviation: "CEST"))
        XCTAssertEqual(
            rule.nextTransition(after: 1_711_846_800),
            ZoneTransition(
                instant: 1_729_990_800, before: LocalTimeType(utcOffset: 7200, isDST: true, abbreviation: "CEST"),
                after: LocalTimeType(utcOffset: 3600, isDST: false, abbreviation: "CET")))
        XCTAssertEqual(try POSIXTZString("<+0530>-5:30").localTimeType(at: 0).utcOffset, 19_800)
        XCTAssertNil(try POSIXTZString("<+0530>-5:30").nextTransition(after: 0), "a fixed offset never changes")
        // Far from the epoch: no overflow (instants are taken as ±2^59 s beyond it).
        XCTAssertEqual(rule.localTimeType(at: Int.max), rule.localTimeType(at: 1 << 59))
        XCTAssertEqual(rule.localTimeType(at: Int.min), rule.localTimeType(at: -(1 << 59)))
        XCTAssertNil(rule.nextTransition(after: Int.max))
        XCTAssertNotNil(rule.nextTransition(after: Int.min))
    }

    /// RFC 8536 3.3.1: daylight time all year starts January 1 at 00:00 and ends December 31
    /// at 24:00 plus the daylight saving — the end meets the next year's start.
    func testDaylightTimeAllYear() throws {
        let rule = try POSIXTZString("EST5EDT,0/0,J365/25")
        for year in [1999, 2000, 2024, 2100] {
            let (start, end) = try XCTUnwrap(rule.daylightTransitions(inYear: year))
            XCTAssertEqual(end, try XCTUnwrap(rule.daylightTransitions(inYear: year + 1)).start, "no gap in \(year)")
            for t in [start - 1, start, start + 1, end - 1, end, end + 1] {
                XCTAssertEqual(rule.localTimeType(at: t).abbreviation, "EDT", "\(year) at \(t)")
            }
        }
        XCTAssertNil(rule.nextTransition(after: 0), "nothing ever changes")
        XCTAssertEqual(ZoneRules(rule).instants(forLocalSeconds: 1_000_000), .unique(1_000_000 + 14_400))
    }

    /// TZ=EST5EDT,M3.2.0,M11.1.0 alone gives New York's rules since 2007, to 2100.
    func testPOSIXRuleAloneMatchesTheZoneFile() throws {
        let path = try ZoneDirectory.path(ofZone: "America/New_York")
        guard let bytes = try? ZoneFile.read(path: path) else { throw XCTSkip("no \(path)") }
        let file = try ZoneRules(TZif(bytes: bytes))
        let rule = ZoneRules(try POSIXTZString("EST5EDT,M3.2.0,M11.1.0"))
        let from = 1_199_145_600  // 2008-01-01
        var a = file.nextTransition(after: from)
        var b = rule.nextTransition(after: from)
        var count = 0
        while let x = a, x.instant < 4_102_444_800 {
            XCTAssertEqual(x, b)
            a = file.nextTransition(after: x.instant)
            b = rule.nextTransition(after: x.instant)
            count += 1
        }
        XCTAssertEqual(count, 2 * 92, "two transitions a year, 2008-2099")
        for t in stride(from: from, to: 4_102_444_800, by: 86_400 * 7 + 3601) {
            XCTAssertEqual(file.offset(at: t), rule.offset(at: t), "at \(t)")
        }
        XCTAssertEqual(
            ZoneRules(try POSIXTZString("EST5EDT")).offset(at: 1_720_000_000).abbreviation, "EDT",
            "no rules given: the US rules")
    }
}
