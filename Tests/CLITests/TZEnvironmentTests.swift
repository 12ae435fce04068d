import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// Whatever `TZ` holds, the clock says what `date` with the same `TZ` says, or refuses with a
/// sentence naming the value and the fix. The oracle is the system's own `date` (glibc): `TZ=EST5`
/// and `TZ='EST5EDT,M3.2.0,M11.1.0'` were read as UTC and `TZ=UTC+5` with the sign reversed.
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

    /// `TZ=value date -d @instant +%Y-%m-%dT%H:%M:%S%:z`: the local reading glibc gives.
    func date(tz: String, at instant: Int) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/date")
        p.arguments = ["-d", "@\(instant)", "+%Y-%m-%dT%H:%M:%S%:z"]
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = tz
        env.removeValue(forKey: "TZDIR")
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func schedule(tz: String, from: String, extra: [String] = []) throws -> BinaryRunner.Outcome {
        try BinaryRunner.run(
            ["schedule", "--from", from, "--count", "1", "--json", "--pack", pack.path] + extra,
            environment: ["TZ": tz, "TZDIR": ""])
    }

    func testTheClockReadsTZAsDateDoes() throws {
        let values: [(why: String, tz: String)] = [
            ("POSIX, no daylight time: 5 hours west", "EST5"),
            ("POSIX: a + is west, not east (was read as UTC+05:00)", "UTC+5"),
            ("POSIX: a - is east", "UTC-3"),
            ("the quoted form with minutes", "<+0530>-5:30"),
            ("a quoted negative name", "<-03>3"),
            ("POSIX with US rules: the tz database's EST5EDT has the same", "EST5EDT,M3.2.0,M11.1.0"),
            ("…with the default 02:00 written out", "EST5EDT,M3.2.0/2,M11.1.0/02:00:00"),
            ("POSIX with EU rules: the tz database's CET has the same", "CET-1CEST,M3.5.0,M10.5.0/3"),
            ("a zone file named like a POSIX string is a zone file", "EST5EDT"),
            ("a zone with a fixed offset", "EST"),
            ("a name", "Europe/Berlin"),
            ("a name after ':'", ":America/New_York"),
            ("an absolute path under the zoneinfo directory, 45 minutes", "/usr/share/zoneinfo/Asia/Kathmandu"),
            ("posix/ holds the same zones", "posix/Australia/Lord_Howe"),
            ("empty is UTC to glibc", ""),
            ("a bare ':' too", ":"),
        ]
        // Two instants, winter and summer in the north, 7 minutes past a quarter.
        for instant in [1_768_478_820, 1_784_117_220] {  // 2026-01-15T12:07:00Z, 2026-07-15T12:07:00Z
            let from = CivilTime.utcString(instant)
            for v in values {
                let r = try schedule(tz: v.tz, from: from)
                XCTAssertEqual(r.status, 0, "\(v.why): TZ='\(v.tz)': \(r.stderr)")
                guard let object = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
                    let at = object["at"] as? String, let utc = object["utc"] as? String,
                    let boundary = ISO8601DateFormatter().date(from: utc).map({ Int($0.timeIntervalSince1970) })
                else {
                    XCTFail("\(v.why): TZ='\(v.tz)': \(r.stdout)")
                    continue
                }
                XCTAssertEqual(at, try date(tz: v.tz, at: boundary), "\(v.why): TZ='\(v.tz)' at \(utc)")
                XCTAssertTrue(boundary > instant && boundary - instant <= 900, "\(v.why): the next quarter, not \(utc)")
            }
        }
    }

    func testWhatCannotBeReadIsRefusedWithTheValueAndTheFix() throws {
        let cases: [(why: String, tz: String, says: String)] = [
            (
                "daylight-saving rules no tz database zone of that name has", "XXX5YYY,M3.2.0,M11.1.0",
                "TZ='XXX5YYY,M3.2.0,M11.1.0' is a POSIX rule string with daylight-saving rules, which talking-clock does not read yet; set TZ (or `zone` in the config) to a zone name such as America/New_York."
            ),
            (
                "an unknown name: glibc would use UTC without a word", "Nowhere/Bogus",
                "TZ='Nowhere/Bogus' is not a time zone: there is no zone file /usr/share/zoneinfo/Nowhere/Bogus"
            ),
            ("beyond any zone's offset", "UTC+24", "TZ='UTC+24' is an offset of 24 hours"),
            ("leap-second zone files keep a different clock", "right/UTC", "TZ='right/UTC' names the zone file"),
        ]
        for c in cases {
            let r = try schedule(tz: c.tz, from: "2026-07-15T12:07:00Z")
            XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, "\(c.why): \(r.stdout)")
            XCTAssertEqual(r.stdout, "", c.why)
            XCTAssertTrue(r.stderr.contains(c.says), "\(c.why): \(r.stderr)")
        }
        // A zone on the command line or in the config makes TZ irrelevant.
        let explicit = try schedule(tz: "Nowhere/Bogus", from: "2026-07-15T12:07:00Z", extra: ["--tz", "Asia/Tokyo"])
        XCTAssertEqual(explicit.status, 0, explicit.stderr)
        XCTAssertTrue(explicit.stdout.hasPrefix("{\"at\":\"2026-07-15T21:15:00+09:00\""), explicit.stdout)
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
}
