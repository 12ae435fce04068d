import Foundation
import Glibc
import TalkingClockCore
import TestSupport
import XCTest

/// The system time zone changing while the daemon runs (`timedatectl set-timezone` replaces the
/// /etc/localtime symlink). The daemon runs in a private mount namespace whose /etc is a copy, so
/// the test changes that copy and never the machine's own zone.
final class ZoneChangeTests: XCTestCase {
    var dir: URL!
    var pulse: AudioHarness.PrivatePulse?
    var daemon: DaemonProcess?

    override func tearDown() {
        daemon?.stop()
        pulse?.stop()
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Replaces `etc/localtime` the way timedatectl does: a new symlink renamed over the old one.
    func setZone(_ name: String, in etc: URL) throws {
        let fresh = etc.appendingPathComponent(".localtime.new")
        try? FileManager.default.removeItem(at: fresh)
        try FileManager.default.createSymbolicLink(
            atPath: fresh.path, withDestinationPath: "/usr/share/zoneinfo/" + name)
        XCTAssertEqual(
            rename(fresh.path, etc.appendingPathComponent("localtime").path), 0, String(cString: strerror(errno)))
        try (name + "\n").write(to: etc.appendingPathComponent("timezone"), atomically: true, encoding: .utf8)
    }

    /// Hourly announcements, Asia/Kolkata (UTC+5:30) switched to Europe/London (UTC+1 in July) at
    /// 10:36 UTC: the daemon was waiting for 17:00 IST (11:30 UTC); London's 12:00 (11:00 UTC)
    /// comes first and must be spoken, in London's words.
    func testAZoneChangeWhileWaitingRearmsForTheNewZonesBoundary() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            throw XCTSkip("needs root and unshare(1) to give the daemon a private /etc")
        }
        guard AudioHarness.isAvailable else {
            throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test")
        }
        let hostZone = try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime")
        dir = FixturePack.temporaryDirectory("zone")
        try FixturePack.write(
            to: dir.appendingPathComponent("pack"), framesPerClip: { _ in 2205 },
            format: StreamFormat(sampleRate: 22050, channels: 1))
        let etc = dir.appendingPathComponent("etc")
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/bin/cp")
        copy.arguments = ["-a", "/etc/.", etc.path]
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        try copy.run()
        copy.waitUntilExit()
        try? FileManager.default.removeItem(at: etc.appendingPathComponent("localtime"))
        try setZone("Asia/Kolkata", in: etc)
        let wrapper = dir.appendingPathComponent("private-etc")
        try "#!/bin/sh\nmount --bind \"$PRIVATE_ETC\" /etc || exit 99\nexec \"$@\"\n".write(
            to: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper.path, 0o755)
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", wrapper.path, "/bin/true"]
        probe.environment = ["PRIVATE_ETC": etc.path, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        try probe.run()
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            throw XCTSkip("cannot bind-mount a private /etc in a mount namespace here")
        }

        let cfg = dir.appendingPathComponent("cfg/talking-clock")
        try FileManager.default.createDirectory(at: cfg, withIntermediateDirectories: true)
        try "interval = \"hour\"\n".write(
            to: cfg.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        pulse = try AudioHarness.PrivatePulse("zone")
        var env = pulse!.environment
        env["PRIVATE_ETC"] = etc.path
        env["XDG_CONFIG_HOME"] = dir.appendingPathComponent("cfg").path
        // 10:35 UTC is 16:05 in Kolkata; at 300 times real speed a simulated minute is 0.2 s.
        let d = try DaemonProcess(
            [
                "run", "--pack", dir.appendingPathComponent("pack").path, "--device", "pulse", "--fake-clock",
                "2026-07-01T10:35:00Z",
                "--clock-rate", "300", "--state-dir", dir.appendingPathComponent("state").path,
            ],
            socket: dir.appendingPathComponent("run/control.sock").path, environment: env, unset: ["TZ"],
            launcher: ["/usr/bin/unshare", "-m", wrapper.path], logURL: dir.appendingPathComponent("daemon.log"))
        daemon = d
        let before = try d.request("status")
        XCTAssertTrue(before.contains(#"next 2026-07-01T17:00:00+05:30 "five PM""#), before)

        try setZone("Europe/London", in: etc)
        XCTAssertTrue(d.waitForLog("<5>zone changed from=Asia/Kolkata to=Europe/London", timeout: 3), d.log)
        XCTAssertTrue(try d.request("status").contains(#"next 2026-07-01T12:00:00+01:00 "noon""#))
        XCTAssertTrue(d.waitForLog(#"<6>spoke boundary=2026-07-01T12:00:00+01:00"#, timeout: 10), d.log)
        XCTAssertTrue(d.logLines(containing: "<6>spoke ").first?.contains(#"text=noon"#) ?? false, d.log)
        XCTAssertEqual(
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime"), hostZone,
            "the machine's own zone is untouched")
    }
}
