import Foundation
import Glibc
import TestSupport
import XCTest

/// The built daemon on a private broker against hostile MQTT traffic (issue 22): a second daemon
/// with the same room, a flood of commands, an oversized payload.
extension MQTTDaemonTests {
    /// Publishes each line of `lines` as one message, in one `mosquitto_pub -l` (thousands a second).
    func publishLines(_ topic: String, _ lines: [String]) throws {
        let file = dir.appendingPathComponent("lines-\(UUID().uuidString)")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["mosquitto_pub", "-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-q", "1", "-l"]
        p.standardInput = try FileHandle(forReadingFrom: file)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
    }

    func testTwoDaemonsWithTheSameRoomSayWhoAndBackOff() throws {
        let config = try writeConfig(table)
        let a = try start(config: config, extra: external, log: "a.log")
        let b = try start(config: config, extra: external, log: "b.log")
        let deadline = Date().addingTimeInterval(60)
        var said: DaemonProcess?
        while said == nil && Date() < deadline {
            said = [a, b].first { !$0.logLines(containing: "mqtt room taken over").isEmpty }
            usleep(50_000)
        }
        let d = try XCTUnwrap(said, "neither daemon said it was taken over:\n\(a.log)\n\(b.log)")
        let line = try XCTUnwrap(d.logLines(containing: "mqtt room taken over").first, d.log)
        XCTAssertTrue(line.hasPrefix("<4>"), line)
        XCTAssertTrue(line.contains("room=kitchen"), line)
        XCTAssertTrue(line.contains("another client uses the client id talking-clock-kitchen, most likely a second talking-clock with room = \\\"kitchen\\\""), line)
        XCTAssertTrue(line.contains("Give each clock its own room"), line)
        // Backing off: the delay it announces has grown past the first second (4 s less up to
        // half of it, the jitter).
        let retry = line.split(separator: " ").first { $0.hasPrefix("retry_s=") }.flatMap { Double($0.dropFirst(8)) }
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(retry, line), 2)
        XCTAssertTrue(a.isRunning && b.isRunning)
    }

    func testAFloodOfCommandsIsRateLimitedAndSaysSo() throws {
        let w = try watch()
        let d = try start(config: try writeConfig(table), extra: external)
        XCTAssertTrue(w.wait("0 tc/kitchen/availability", "online"), d.log)
        try publishLines("tc/kitchen/command", Array(repeating: "status", count: 3000))
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error busy: more than 10 commands at once (then 2 a second) on MQTT"), d.log)
        XCTAssertTrue(d.waitForLog("mqtt command flood", timeout: 10), d.log)
        // The clock still takes commands at the limit's pace: re-sent until one is let through.
        let until = Date().addingTimeInterval(20)
        while !w.wait("0 tc/kitchen/reply", "ok muted", timeout: 1) && Date() < until {
            try publish("tc/kitchen/command", "mute for 1m")
        }
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "ok muted", timeout: 0), "\(w.lines.suffix(5))")
        let answered = w.matching("0 tc/kitchen/reply", "ok driver external").count
        XCTAssertGreaterThanOrEqual(answered, 10, "the first burst runs")
        XCTAssertLessThanOrEqual(answered, 60, "3,000 commands did not all run")
        XCTAssertEqual(w.matching("0 tc/kitchen/reply", "error busy").count, 1, "one refusal reply per flood, not 2,990")
        XCTAssertTrue(d.waitForLog("mqtt commands refused", timeout: 5), d.log)
    }

    /// A command published with the retain flag while the room is connected is refused like one
    /// replayed at connection: the README says a retained command never runs.
    func testARetainedCommandWhileConnectedIsNotRun() throws {
        let w = try watch()
        let d = try start(config: try writeConfig(table), extra: external)
        XCTAssertTrue(w.wait("0 tc/kitchen/availability", "online"), d.log)
        try publish("tc/kitchen/command", "mute for 30m", retain: true)
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: a retained command is never executed"), "\(w.lines)")
        XCTAssertTrue(try d.request("status json").contains(#""muted":false"#), "the retained mute did not run")
        try publish("tc/kitchen/command", "", retain: true)
        // Without the flag it runs.
        try publish("tc/kitchen/command", "mute for 30m")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "ok muted"), "\(w.lines)")
    }

    func testAnOversizedPayloadIsRefusedByItsLength() throws {
        let w = try watch()
        let d = try start(config: try writeConfig(table), extra: external)
        XCTAssertTrue(w.wait("0 tc/kitchen/availability", "online"), d.log)
        try publish("tc/kitchen/command", bytes: [UInt8](repeating: 65, count: 1_000_000))
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: the command is 1000000 bytes"), "\(w.lines.suffix(3))")
        XCTAssertTrue(d.waitForLog("mqtt message too large", timeout: 10), d.log)
        let line = try XCTUnwrap(d.logLines(containing: "mqtt message too large").first, d.log)
        XCTAssertTrue(line.contains("payload_bytes=1000000") && line.contains("limit_bytes=65536"), line)
        XCTAssertTrue(try d.request("status").hasPrefix("ok driver external"))
    }
}
