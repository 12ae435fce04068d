import TimeZoneRules
import XCTest

/// The system zone named `name`, or a skip when the machine has no tz database.
func systemZone(_ name: String) throws -> ZoneRules {
    let path = try ZoneDirectory.path(ofZone: name)
    guard let bytes = try? ZoneFile.read(path: path) else { throw XCTSkip("no zone file \(path) (install tzdata)") }
    return try ZoneRules(TZif(bytes: bytes))
}

final class ZoneRulesTests: XCTestCase {
    enum Expected {
        case unique(offset: Int)
        case repeated(earlierOffset: Int, laterOffset: Int)
        case skipped(before: Int, after: Int)
    }

    /// Local wall clock readings to instants. Offsets as zoneinfo gives them (fold=0, fold=1).
    func testLocalTimeToInstants() throws {
        let cases: [(why: String, zone: String, local: WallClockTime, expected: Expected)] = [
            (
                "an ordinary summer noon", "Europe/Berlin", .init(year: 2024, month: 6, day: 1, hour: 12),
                .unique(offset: 7200)
            ),
            (
                "the last second before the spring jump", "Europe/Berlin",
                .init(year: 2024, month: 3, day: 31, hour: 1, minute: 59, second: 59), .unique(offset: 3600)
            ),
            (
                "02:00 is skipped: the clock jumps to 03:00", "Europe/Berlin",
                .init(year: 2024, month: 3, day: 31, hour: 2),
                .skipped(before: 3600, after: 7200)
            ),
            (
                "02:30 is skipped", "Europe/Berlin", .init(year: 2024, month: 3, day: 31, hour: 2, minute: 30),
                .skipped(before: 3600, after: 7200)
            ),
            (
                "03:00 happens once", "Europe/Berlin", .init(year: 2024, month: 3, day: 31, hour: 3),
                .unique(offset: 7200)
            ),
            (
                "02:00 happens twice in autumn", "Europe/Berlin", .init(year: 2024, month: 10, day: 27, hour: 2),
                .repeated(earlierOffset: 7200, laterOffset: 3600)
            ),
            (
                "02:59:59 too", "Europe/Berlin", .init(year: 2024, month: 10, day: 27, hour: 2, minute: 59, second: 59),
                .repeated(earlierOffset: 7200, laterOffset: 3600)
            ),
            ("03:00 once", "Europe/Berlin", .init(year: 2024, month: 10, day: 27, hour: 3), .unique(offset: 3600)),
            (
                "after 2037 the footer rule answers", "Europe/Berlin",
                .init(year: 2090, month: 3, day: 26, hour: 2, minute: 30),
                .skipped(before: 3600, after: 7200)
            ),
            (
                "a 30-minute gap (Lord Howe)", "Australia/Lord_Howe",
                .init(year: 2024, month: 10, day: 6, hour: 2, minute: 15),
                .skipped(before: 37_800, after: 39_600)
            ),
            (
                "a 30-minute overlap (Lord Howe)", "Australia/Lord_Howe",
                .init(year: 2024, month: 4, day: 7, hour: 1, minute: 45),
                .repeated(earlierOffset: 39_600, laterOffset: 37_800)
            ),
            (
                "+05:30 to +05:45 skips 15 minutes (Kathmandu 1986)", "Asia/Kathmandu",
                .init(year: 1986, month: 1, day: 1, hour: 0, minute: 5), .skipped(before: 19_800, after: 20_700)
            ),
            ("a 45-minute offset", "Asia/Kathmandu", .init(year: 2024, month: 1, day: 1), .unique(offset: 20_700)),
            (
                "Chile springs forward at Saturday 24:00", "America/Santiago",
                .init(year: 2024, month: 9, day: 8, hour: 0, minute: 30), .skipped(before: -14_400, after: -10_800)
            ),
            (
                "Samoa skipped all of 2011-12-30", "Pacific/Apia", .init(year: 2011, month: 12, day: 30, hour: 12),
                .skipped(before: -36_000, after: 50_400)
            ),
            ("no rules at all", "Etc/UTC", .init(year: 2024, month: 3, day: 31, hour: 2), .unique(offset: 0)),
        ]
        for c in cases {
            let rules = try systemZone(c.zone)
            let l = c.local.localSeconds
            let got = rules.instants(for: c.local)
            let why = "\(c.zone) \(c.local): \(c.why)"
            switch c.expected {
            case .unique(let offset):
                XCTAssertEqual(got, .unique(l - offset), why)
            case .repeated(let earlier, let later):
                XCTAssertEqual(got, .repeated(earlier: l - earlier, later: l - later), why)
            case .skipped(let before, let after):
                guard case .skipped(let t) = got else { return XCTFail("\(why): \(got)") }
                XCTAssertEqual([t.before.utcOffset, t.after.utcOffset], [before, after], why)
                XCTAssertTrue(
                    t.instant + before <= l && l < t.instant + after, "\(why): the jump at \(t.instant) skips it")
            }
            for t in got.instants {
                XCTAssertEqual(rules.wallClockTime(at: t), c.local, "\(why): round trip")
            }
        }
    }

    /// Negative daylight saving (Ireland): winter is the "daylight" time, GMT with isdst set.
    func testNegativeDaylightSaving() throws {
        let dublin = try systemZone("Europe/Dublin")
        XCTAssertEqual(dublin.offset(at: 1_704_067_200), LocalTimeType(utcOffset: 0, isDST: true, abbreviation: "GMT"))
        XCTAssertEqual(
            dublin.offset(at: 1_719_792_000), LocalTimeType(utcOffset: 3600, isDST: false, abbreviation: "IST"))
        XCTAssertEqual(dublin.offset(at: 4_000_000_000).utcOffset, 3600, "2096-10-02, from the footer rule")
    }

    /// A whole year of quarter hours, as a clock announces them (from the file's transitions in
    /// 2024, from its footer rule in 2090): every lookup is cheap, the wall clock moves 15
    /// minutes each time except at the two changes, and daylight time lasts from the last Sunday
    /// of March to the last of October.
    func testAYearOfQuarterHours() throws {
        let berlin = try systemZone("Europe/Berlin")
        for (year, dstDays) in [(2024, 210), (2090, 217)] {
            let from = WallClockTime(year: year, month: 1, day: 1).localSeconds - 3600
            let quarters = (0..<35_040).map { from + $0 * 900 }
            let clock = ContinuousClock()
            var dstQuarters = 0
            let lookups = clock.measure {
                for t in quarters where berlin.offset(at: t).isDST { dstQuarters += 1 }
            }
            var locals: [Int] = []
            let wallClock = clock.measure {
                locals = quarters.map { berlin.wallClockTime(at: $0).localSeconds }
            }
            var resolutions: [LocalTimeResolution] = []
            let backToUTC = clock.measure {
                resolutions = locals.map { berlin.instants(forLocalSeconds: $0) }
            }
            XCTAssertEqual(dstQuarters, dstDays * 96, "\(year)")
            var steps: [Int: Int] = [:]
            for (a, b) in zip(locals, locals.dropFirst()) { steps[b - a, default: 0] += 1 }
            XCTAssertEqual(steps, [900: 35_037, 900 + 3600: 1, 900 - 3600: 1], "\(year)")
            for (t, resolution) in zip(quarters, resolutions) {
                XCTAssertTrue(resolution.instants.contains(t), "\(year): \(t) round trip")
            }
            XCTAssertLessThan(lookups + wallClock + backToUTC, .seconds(3), "\(year), debug build")
            print(
                "ZoneRulesTests: 35,040 quarter hours of \(year), debug build: offsets \(lookups), wall clock \(wallClock), "
                    + "back to UTC \(backToUTC)")
        }
    }

    func testNextTransition() throws {
        let berlin = try systemZone("Europe/Berlin")
        let cet = LocalTimeType(utcOffset: 3600, isDST: false, abbreviation: "CET")
        let cest = LocalTimeType(utcOffset: 7200, isDST: true, abbreviation: "CEST")
        XCTAssertEqual(
            berlin.nextTransition(after: 1_704_067_200),
            ZoneTransition(instant: 1_711_846_800, before: cet, after: cest))
        XCTAssertEqual(berlin.nextTransition(after: 1_711_846_799)?.instant, 1_711_846_800, "one second before")
        XCTAssertEqual(berlin.nextTransition(after: 1_711_846_800)?.instant, 1_729_990_800, "at it: the next one")
        // Past the file's last transition (2037), the footer's: 2090-03-26 01:00 UTC.
        XCTAssertEqual(
            berlin.nextTransition(after: 3_786_912_000),
            ZoneTransition(instant: 3_794_173_200, before: cet, after: cest))
        XCTAssertNil(try systemZone("Etc/UTC").nextTransition(after: 0), "UTC never changes")
        XCTAssertNil(
            try systemZone("Asia/Kolkata").nextTransition(after: 1_000_000_000), "India has not changed since 1945")
    }

    func testWallClockTime() {
        XCTAssertEqual(WallClockTime(localSeconds: 0), WallClockTime(year: 1970, month: 1, day: 1))
        XCTAssertEqual(WallClockTime(localSeconds: 0).weekday, 4, "a Thursday")
        XCTAssertEqual(WallClockTime(year: 2024, month: 3, day: 31).weekday, 0, "a Sunday")
        XCTAssertEqual(
            WallClockTime(localSeconds: -1),
            WallClockTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59))
        XCTAssertEqual(
            WallClockTime(year: 2024, month: 2, day: 29, hour: 24).localSeconds,
            WallClockTime(year: 2024, month: 3, day: 1).localSeconds, "fields are normalised")
        XCTAssertEqual(
            WallClockTime(year: 2023, month: 13, day: 1).localSeconds,
            WallClockTime(year: 2024, month: 1, day: 1).localSeconds)
        XCTAssertEqual("\(WallClockTime(year: 2024, month: 3, day: 31, hour: 2, minute: 30))", "2024-03-31 02:30:00")
        for t in stride(from: -100_000_000_000, to: 100_000_000_000, by: 9_876_543_211) {
            XCTAssertEqual(WallClockTime(localSeconds: t).localSeconds, t, "round trip at \(t)")
        }
    }

    func testZoneDirectory() throws {
        XCTAssertEqual(try ZoneDirectory.path(ofZone: "Europe/Berlin"), "/usr/share/zoneinfo/Europe/Berlin")
        XCTAssertEqual(try ZoneDirectory.path(ofZone: "Europe/Berlin", tzdir: ""), "/usr/share/zoneinfo/Europe/Berlin")
        XCTAssertEqual(try ZoneDirectory.path(ofZone: "Etc/GMT+5", tzdir: "/opt/zi/"), "/opt/zi/Etc/GMT+5")
        XCTAssertEqual(try ZoneDirectory.path(ofZone: "UTC", tzdir: "/"), "/UTC")
        let refused: [(name: String, says: String)] = [
            ("", "empty"),
            ("../../etc/passwd", "'..'"),
            ("Europe/../../etc/shadow", "'..'"),
            ("./UTC", "'.'"),
            ("/etc/localtime", "absolute"),
            ("Europe//Berlin", "empty path component"),
            ("Europe/Berlin/", "empty path component"),
            ("UTC\u{0}../x", "NUL"),
        ]
        for r in refused {
            XCTAssertThrowsError(try ZoneDirectory.path(ofZone: r.name, tzdir: "/opt/zi")) { error in
                XCTAssertTrue("\(error)".contains(r.says), "\(r.name): \(error)")
            }
        }
    }

    func testZoneFileErrors() {
        XCTAssertThrowsError(try ZoneFile.read(path: "/nonexistent/Europe/Berlin")) { error in
            XCTAssertEqual(
                "\(error)", "Could not read the zone file /nonexistent/Europe/Berlin: No such file or directory.")
        }
    }
}
