import TimeZoneRules
import XCTest

final class POSIXTZStringTests: XCTestCase {
    typealias Zone = POSIXTZString.Zone
    typealias Transition = POSIXTZString.Transition

    func testValidStrings() throws {
        let usRules = POSIXTZString.Rules(
            start: Transition(day: .monthWeekDay(month: 3, week: 2, weekday: 0)),
            end: Transition(day: .monthWeekDay(month: 11, week: 1, weekday: 0)))
        let cases: [(why: String, text: String, expected: POSIXTZString)] = [
            (
                "positive is WEST of Greenwich: EST5 is UTC-05:00", "EST5",
                POSIXTZString(standard: Zone(name: "EST", utcOffset: -18_000))
            ),
            ("an explicit + is still west", "UTC+5", POSIXTZString(standard: Zone(name: "UTC", utcOffset: -18_000))),
            ("a minus is east", "UTC-3", POSIXTZString(standard: Zone(name: "UTC", utcOffset: 10_800))),
            (
                "the quoted form, with minutes", "<+0530>-5:30",
                POSIXTZString(standard: Zone(name: "+0530", utcOffset: 19_800))
            ),
            ("seconds too", "LMT-0:53:28", POSIXTZString(standard: Zone(name: "LMT", utcOffset: 3208))),
            ("zero", "UTC0", POSIXTZString(standard: Zone(name: "UTC", utcOffset: 0))),
            (
                "daylight time one hour ahead by default, no rules given", "EST5EDT",
                POSIXTZString(
                    standard: Zone(name: "EST", utcOffset: -18_000), daylight: Zone(name: "EDT", utcOffset: -14_400))
            ),
            (
                "US rules, changes at 02:00 by default", "EST5EDT,M3.2.0,M11.1.0",
                POSIXTZString(
                    standard: Zone(name: "EST", utcOffset: -18_000), daylight: Zone(name: "EDT", utcOffset: -14_400),
                    rules: usRules)
            ),
            (
                "the same with the default times written out", "EST5EDT4,M3.2.0/2,M11.1.0/02:00:00",
                POSIXTZString(
                    standard: Zone(name: "EST", utcOffset: -18_000), daylight: Zone(name: "EDT", utcOffset: -14_400),
                    rules: usRules)
            ),
            (
                "Julian and zero-based days, a negative time (RFC 8536)", "<-03>3<-02>,J60/-1,300/25",
                POSIXTZString(
                    standard: Zone(name: "-03", utcOffset: -10_800), daylight: Zone(name: "-02", utcOffset: -7200),
                    rules: .init(
                        start: Transition(day: .julian(60), time: -3600),
                        end: Transition(day: .zeroBased(300), time: 90_000)))
            ),
        ]
        for c in cases {
            XCTAssertEqual(try POSIXTZString(c.text), c.expected, c.why)
        }
        XCTAssertEqual(try POSIXTZString("EST5").fixedOffset, -18_000, "no daylight time: a fixed offset")
        XCTAssertNil(try POSIXTZString("EST5EDT").fixedOffset, "daylight time: not a fixed offset")
    }

    func testInvalidStrings() {
        let cases: [(why: String, text: String, says: String)] = [
            ("a zone name is not a POSIX string", "Nowhere/Bogus", "no offset after 'Nowhere'"),
            ("a name needs an offset", "EST", "no offset after 'EST'"),
            ("names have at least 3 letters", "ES5", "shorter than 3 letters"),
            ("a quoted name needs its '>'", "<+05", "no closing '>'"),
            ("offsets are at most 24 hours", "UTC+25", "25 hours is out of range"),
            ("minutes are below 60", "UTC+5:60", "60 minutes is out of range"),
            ("two rules, not one", "EST5EDT,M3.2.0", "expected ','"),
            ("months 1…12", "EST5EDT,M13.2.0,M11.1.0", "out of range"),
            ("trailing text glibc would ignore", "EST5EDT,M3.2.0,M11.1.0 junk", "unexpected text"),
            ("empty", "", "expected the standard time name"),
        ]
        for c in cases {
            XCTAssertThrowsError(try POSIXTZString(c.text), c.why) { error in
                XCTAssertTrue("\(error)".contains(c.says), "\(c.why): \(error)")
            }
        }
    }
}
