import Foundation
import Glibc
import TestSupport
import XCTest

/// Issue 22, item 1: the shipped systemd unit had `RestrictAddressFamilies=AF_UNIX`, so under
/// systemd every TCP socket failed with EAFNOSUPPORT, MQTT never connected, and the log blamed the
/// broker. Here the built daemon runs under the unit's own rule, applied with the same kind of
/// seccomp filter systemd installs (`scripts/harness/restrict-address-families --unit`, no user
/// manager needed), against the harness's private broker.
final class MQTTSandboxTests: BrokerTestCase {
    override var scratchName: String { "mqtt-sandbox" }

    static var restrict: String {
        BinaryRunner.packageRoot.appendingPathComponent("scripts/harness/restrict-address-families").path
    }
    static var unit: String { BinaryRunner.packageRoot.appendingPathComponent("scripts/talking-clock.service.in").path }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = [Self.restrict, "--allow", "AF_UNIX", "--", "/bin/true"]
        probe.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try probe.run()
        probe.waitUntilExit()
        if probe.terminationStatus == 69 { throw XCTSkip("libseccomp is not installed: run scripts/install-deps --test") }
        XCTAssertEqual(probe.terminationStatus, 0, "scripts/harness/restrict-address-families cannot install its filter")
        try brokerUp()
    }

    /// The daemon under `restriction` (the harness's arguments before `--`), with `[mqtt]` naming
    /// the broker by `host`.
    func start(_ restriction: [String], host: String) throws -> DaemonProcess {
        let config = dir.appendingPathComponent("config-\(daemons.count).toml")
        try "[mqtt]\nbroker = \"mqtt://\(host):\(port)\"\nroom = \"kitchen\"\ntopic = \"tc\"\n".write(
            to: config, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(
            [
                "run", "--pack", packPath, "--tz", "UTC", "--config", config.path, "--driver", "external", "--device",
                "file:FILE=/dev/null", "--state-dir", dir.appendingPathComponent("state-\(daemons.count)").path,
            ],
            socket: dir.appendingPathComponent("run\(daemons.count)/control.sock").path,
            launcher: ["/usr/bin/python3", Self.restrict] + restriction + ["--"],
            logURL: dir.appendingPathComponent("daemon-\(daemons.count).log"))
        daemons.append(d)
        return d
    }

    func testUnderTheShippedUnitsAddressFamiliesTheDaemonReachesTheBrokerByName() throws {
        let d = try start(["--unit", Self.unit], host: "localhost")
        XCTAssertTrue(d.log.contains("restrict-address-families: allow AF_UNIX"), d.log)
        XCTAssertTrue(d.waitForLog("mqtt connected", timeout: 20), "the unit's rule keeps MQTT from connecting: " + d.log)
        XCTAssertEqual(d.logLines(containing: "mqtt not connected"), [], d.log)
        XCTAssertTrue(try d.request("status").hasPrefix("ok "), "the control socket (AF_UNIX) answers")
    }

    /// A sandbox that forbids TCP is named as the cause, not the broker.
    func testWithoutInternetSocketsTheLogNamesTheSandboxNotTheBroker() throws {
        let d = try start(["--allow", "AF_UNIX"], host: "127.0.0.1")
        XCTAssertTrue(d.waitForLog("mqtt not connected", timeout: 20), d.log)
        let line = try XCTUnwrap(d.logLines(containing: "mqtt not connected").first)
        XCTAssertTrue(line.contains("errno 97"), line)
        XCTAssertTrue(line.contains("the broker was never reached"), line)
        XCTAssertTrue(line.contains("RestrictAddressFamilies="), line)
        XCTAssertFalse(line.contains("check that the broker runs"), line)
        XCTAssertTrue(try d.request("status").hasPrefix("ok "), "the clock keeps running")
    }
}
