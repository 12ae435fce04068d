import Foundation
import Glibc
import TalkingClockCore
import TestSupport
import XCTest

/// A `tzdata` update while the daemon runs: dpkg renames a new zone file over the one in use.
/// The daemon watches that file's directory, reads the new rules and re-arms at once, without a
/// restart. The zone database here is a private `TZDIR` holding one zone, `Test/Zone`.
final class ZoneRulesReloadTests: XCTestCase {
    var dir: URL!
    var daemon: DaemonProcess?

    override func tearDown() {
        daemon?.stop()
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Puts `source`'s bytes at `Test/Zone` the way dpkg does: written beside it, renamed over it.
    func install(_ source: String, tzdir: URL) throws {
        let target = tzdir.appendingPathComponent("Test/Zone")
        let fresh = tzdir.appendingPathComponent("Test/Zone.dpkg-new")
        try Data(contentsOf: URL(fileURLWithPath: source)).write(to: fresh)
        XCTAssertEqual(rename(fresh.path, target.path), 0, String(cString: strerror(errno)))
    }

    /// Hourly announcements in `Test/Zone`, first Asia/Kolkata's rules (UTC+5:30): at 10:35 UTC
    /// the next is 17:00 IST (11:30 UTC). The file is replaced by Europe/London's (UTC+1 in July):
    /// 12:00 BST (11:00 UTC) comes first and is armed at once, same zone name, same process.
    func testATzdataUpdateOfTheZoneFileInUseRearmsWithoutARestart() throws {
        for zone in ["Asia/Kolkata", "Europe/London"] where !FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/" + zone) {
            throw XCTSkip("tzdata is not installed (no /usr/share/zoneinfo/\(zone)): run scripts/install-deps --test")
        }
        dir = FixturePack.temporaryDirectory("zone-rules")
        chmod(dir.path, 0o700)  // the control socket's directory must be private
        let pack = dir.appendingPathComponent("pack")
        try FixturePack.write(to: pack)
        let tzdir = dir.appendingPathComponent("zoneinfo")
        try FileManager.default.createDirectory(at: tzdir.appendingPathComponent("Test"), withIntermediateDirectories: true)
        try install("/usr/share/zoneinfo/Asia/Kolkata", tzdir: tzdir)
        let cfg = dir.appendingPathComponent("cfg/talking-clock")
        try FileManager.default.createDirectory(at: cfg, withIntermediateDirectories: true)
        try "interval = \"hour\"\n".write(to: cfg.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)

        let d = try DaemonProcess(
            [
                "run", "--pack", pack.path, "--device", "file:FILE=/dev/null", "--fake-clock", "2026-07-01T10:35:00Z",
                "--state-dir", dir.appendingPathComponent("state").path,
            ],
            socket: dir.appendingPathComponent("run/control.sock").path,
            environment: [
                "TZ": "Test/Zone", "TZDIR": tzdir.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path,
            ],
            logURL: dir.appendingPathComponent("daemon.log"))
        daemon = d
        let pid = d.pid
        let before = try d.request("status")
        XCTAssertTrue(before.contains(#"next 2026-07-01T17:00:00+05:30 "five PM""#), before)

        try install("/usr/share/zoneinfo/Europe/London", tzdir: tzdir)
        XCTAssertTrue(
            d.waitForLog(
                "<5>zone rules reloaded file=\(tzdir.path)/Test/Zone offset_before=+05:30 offset_now=+01:00 zone=Test/Zone",
                timeout: 5), d.log)
        let after = try d.request("status")
        XCTAssertTrue(after.contains(#"next 2026-07-01T12:00:00+01:00 "noon""#), after)
        let json = try d.request("status json")
        XCTAssertTrue(json.contains(#""zone":"Test/Zone""#), json)
        XCTAssertEqual(d.pid, pid)
        XCTAssertTrue(d.isRunning, "no restart")

        // A damaged file (a half-written update) is no zone: the daemon keeps the rules it has,
        // says so, and keeps running.
        let fresh = tzdir.appendingPathComponent("Test/Zone.dpkg-new")
        try Data("not a zone file\n".utf8).write(to: fresh)
        XCTAssertEqual(rename(fresh.path, tzdir.appendingPathComponent("Test/Zone").path), 0)
        XCTAssertTrue(d.waitForLog("zone unreadable, keeping the last one", timeout: 5), d.log)
        XCTAssertTrue(d.waitForLog("TZ='Test/Zone' is not a time zone", timeout: 1), d.log)
        XCTAssertTrue(try d.request("status").contains(#"next 2026-07-01T12:00:00+01:00 "noon""#))

        // The same rules again change nothing: no second reload line.
        try install("/usr/share/zoneinfo/Europe/London", tzdir: tzdir)
        try install("/usr/share/zoneinfo/Asia/Kolkata", tzdir: tzdir)
        XCTAssertTrue(d.waitForLog("<5>zone rules reloaded", count: 2, timeout: 5), d.log)
        XCTAssertTrue(d.waitForLog("offset_before=+01:00 offset_now=+05:30 zone=Test/Zone", timeout: 1), d.log)
        XCTAssertEqual(d.logLines(containing: "zone rules reloaded").count, 2, d.log)
        XCTAssertTrue(try d.request("status").contains(#"next 2026-07-01T17:00:00+05:30 "five PM""#))
    }
}
