import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// Whatever `TZ` holds, the clock says what `date` with the same `TZ` says, or refuses with a
/// sentence naming the value and the fix. The oracle is the system's own `date` (glibc): `TZ=EST5`
/// and `TZ='EST5EDT,M3.2.0,M11.1.0'` were read as UTC and `TZ=UTC+5` with the sign reversed. The
/// rules come from the tz database's files and POSIX strings (`TimeZoneRules`), not from ICU.
final class TZEnvironmentTests: XCTestCase {
    var pack: URL!

    override func setUpWithError() throws {
        pack = FixturePack.temporaryDirectory("tz-env")
        try FixturePack.write(to: pack)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/date") else {
            throw XCTSkip("no /usr/bin/date to compare with")
        }
    }

    override func tearDown() { try? FileManager.default.removeItem(at: pack) }

    func schedule(tz: String?, from: String, count: Int = 1, extra: [String] = []) throws -> BinaryRunner.Outcome {
        var environment = ["TZDIR": ""]
        if let tz { environment["TZ"] = tz }
        return try BinaryRunner.run(
            ["schedule", "--from", from, "--count", "\(count)", "--json", "--pack", pack.path] + extra,
            environment: environment)
    }

    /// The boundaries `schedule --json` lists: the local reading it will speak, and the instant.
    func boundaries(_ r: BinaryRunner.Outcome, _ context: String) -> [(at: String, instant: Int)] {
        var rows: [(at: String, instant: Int)] = []
        for line in r.stdout.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let at = object["at"] as? String, let utc = object["utc"] as? String,
                let instant = ISO8601DateFormatter().date(from: utc).map({ Int($0.timeIntervalSince1970) })
            else {
                XCTFail("\(context): \(line)")
                continue
            }
            rows.append((at, instant))
        }
        return rows
    }

    /// The binary reads `TZ` as the in-process table says (`TZValuesTests` in DaemonTests compares
    /// every value with `date`): three values through `schedule`, across a DST change.
    func testTheClockSpeaksWhatDateSaysThroughTheBinary() throws {
        for tz in ["UTC+5", "EST5EDT,M3.2.0,M11.1.0", ":America/New_York"] {
            let context = "TZ='\(tz)'"
            let r = try schedule(tz: tz, from: "2026-03-08T06:20:00Z", count: 8)
            XCTAssertEqual(r.status, 0, "\(context): \(r.stderr)")
            let rows = boundaries(r, context)
            XCTAssertEqual(rows.count, 8, context)
            XCTAssertEqual(rows.map(\.at), try TestZones.glibcReadings(tz: tz, at: rows.map(\.instant)), context)
        }
    }

    /// `--tz` takes what `TZ` takes, read the same way: `--tz UTC+5` is five hours WEST.
    func testTheTzOptionReadsValuesAsTZDoes() throws {
        for tz in ["UTC+5", "CET-1CEST,M3.5.0,M10.5.0/3", ":Europe/Berlin", "/usr/share/zoneinfo/Asia/Kathmandu"] {
            let viaOption = try schedule(tz: "UTC", from: "2026-03-29T00:20:00Z", count: 8, extra: ["--tz", tz])
            let viaTZ = try schedule(tz: tz, from: "2026-03-29T00:20:00Z", count: 8)
            XCTAssertEqual(viaOption.status, 0, viaOption.stderr)
            XCTAssertEqual(viaOption.stdout, viaTZ.stdout, "--tz '\(tz)' and TZ='\(tz)'")
        }
        let west = try schedule(tz: nil, from: "2026-07-15T12:07:00Z", extra: ["--tz", "UTC+5"])
        XCTAssertEqual(try firstAt(west.stdout), "2026-07-15T07:15:00-05:00", west.stdout)
    }

    func testWhatCannotBeReadIsRefusedWithTheValueAndTheFix() throws {
        let fix = "Set TZ (or `zone` in the config, or --tz) to a zone name such as Europe/London"
        let cases: [(why: String, tz: String, says: [String])] = [
            (
                "an unknown name: glibc would use UTC without a word", "Mars/Olympus",
                [
                    "TZ='Mars/Olympus' is not a time zone: there is no zone file /usr/share/zoneinfo/Mars/Olympus, and it is not a POSIX TZ string",
                    "talking-clock refuses", fix,
                ]
            ),
            ("not POSIX either", "garbage,,", ["TZ='garbage,,' is not a time zone", "no offset after 'garbage'", fix]),
            ("a rule cut short", "EST5EDT,M3.2.0", ["TZ='EST5EDT,M3.2.0' is not a time zone", "expected ','", fix]),
            ("beyond the 24 hours POSIX allows", "UTC+25", ["TZ='UTC+25' is not a time zone", "25 hours is out of range"]),
            (
                "leap-second zone files keep a different clock", "right/UTC",
                ["TZ='right/UTC' names the zone file /usr/share/zoneinfo/right/UTC", "leap second", fix]
            ),
            ("a name may not leave the zone directory", "../../etc/passwd", ["TZ='../../etc/passwd' is not a time zone", "leave the zone directory"]),
            ("a file that is no zone file", "/etc/passwd", ["TZ='/etc/passwd' is not a time zone: /etc/passwd is not a zone file"]),
        ]
        for c in cases {
            let r = try schedule(tz: c.tz, from: "2026-07-15T12:07:00Z")
            XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, "\(c.why): \(r.stdout)")
            XCTAssertEqual(r.stdout, "", c.why)
            for part in c.says { XCTAssertTrue(r.stderr.contains(part), "\(c.why): wants \(part): \(r.stderr)") }
        }
        let option = try schedule(tz: "UTC", from: "2026-07-15T12:07:00Z", extra: ["--tz", "Mars/Olympus"])
        XCTAssertEqual(option.status, ExitStatus.badInput.rawValue, option.stdout)
        XCTAssertTrue(option.stderr.contains("--tz 'Mars/Olympus' is not a time zone"), option.stderr)
        // A zone on the command line or in the config makes TZ irrelevant.
        let explicit = try schedule(tz: "Nowhere/Bogus", from: "2026-07-15T12:07:00Z", extra: ["--tz", "Asia/Tokyo"])
        XCTAssertEqual(explicit.status, 0, explicit.stderr)
        XCTAssertEqual(try firstAt(explicit.stdout), "2026-07-15T21:15:00+09:00", explicit.stdout)
        // An empty --tz is refused like zone = "" in the config, not taken as "the system zone".
        let empty = try schedule(tz: "UTC", from: "2026-07-15T12:07:00Z", extra: ["--tz", ""])
        XCTAssertEqual(empty.status, ExitStatus.badInput.rawValue, empty.stdout)
        XCTAssertTrue(empty.stderr.contains("--tz is empty"), empty.stderr)
    }

    /// The daemon refuses a bad TZ at start instead of speaking UTC at every boundary.
    func testTheDaemonRefusesABadTZAtStart() throws {
        let dir = FixturePack.temporaryDirectory("tz-env-daemon")
        defer { try? FileManager.default.removeItem(at: dir) }
        chmod(dir.path, 0o700)  // the control socket's directory must be private
        // Without the check it would run (and say UTC's time) until stopped after 10 s.
        let r = try BinaryRunner.run(
            [
                "run", "--pack", pack.path, "--device", "file:FILE=/dev/null", "--state-dir", dir.path, "--socket",
                dir.appendingPathComponent("s.sock").path,
            ],
            environment: ["TZ": "Nowhere/Bogus", "TZDIR": ""], stopAfter: 10)
        XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, r.stderr)
        XCTAssertTrue(r.stderr.contains("TZ='Nowhere/Bogus' is not a time zone"), r.stderr)
    }

    /// The `at` field of the first line of `schedule --json` (keys are sorted, so not a prefix test).
    private func firstAt(_ stdout: String) throws -> String? {
        let line = stdout.split(separator: "\n").first.map(String.init) ?? ""
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return object?["at"] as? String
    }
}
