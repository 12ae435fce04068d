import Foundation
import TestSupport
import XCTest

/// The built daemon against whatever answers on its broker's address (issue 29, item 2): the
/// issue's 37-byte CONNACK made libmosquitto abort the daemon (exit 134) at every connect. Now
/// each such answer is a logged failed attempt and a retry, and the clock keeps its time.
extension MQTTDaemonTests {
    func testBytesThatAreNotMQTTNeverStopTheDaemon() throws {
        let issueAnswer: [UInt8] = Array(
            "2123ff6d59927c6218544dcc847fdfcf6f24b599cc470b0b1657ba06618f34a4ebb9cc173a".utf8
        ).chunks(2).map { UInt8(String(decoding: $0, as: UTF8.self), radix: 16)! }
        // The first answers are the issue's, then seeded random 4 KiB answers.
        let peer = try HostilePeer { n in
            if n < 2 { return issueAnswer }
            var g = SeededGenerator(seed: 2900 &+ UInt64(n))
            var bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &g) }
            bytes[0] = 0x20
            bytes[1] = UInt8.random(in: 2...120, using: &g)
            return bytes
        }
        defer { peer.stop() }
        let config = try writeConfig("broker = \"mqtt://127.0.0.1:\(peer.port)\"\nroom = \"kitchen\"\ntopic = \"tc\"\n")
        let d = try start(config: config, extra: ["--device", "null", "--fake-clock", "2026-07-01T10:14:57Z"])
        XCTAssertTrue(d.waitForLog("spoke boundary=2026-07-01T10:15:00+00:00", timeout: 30), d.log)
        // Four connections: the issue's answer twice, then random ones (1, 2, 4 s of backoff).
        let until = Date().addingTimeInterval(40)
        while peer.connections < 4 && Date() < until { usleep(50_000) }
        XCTAssertGreaterThanOrEqual(peer.connections, 4, d.log)
        XCTAssertTrue(d.waitForLog("mqtt not connected", count: 2, timeout: 10), d.log)
        XCTAssertTrue(d.isRunning, d.log)
        XCTAssertTrue(try d.request("status").hasPrefix("ok "), "the daemon answers")
        let line = try XCTUnwrap(d.logLines(containing: "mqtt not connected").first, d.log)
        XCTAssertTrue(line.contains("libmosquitto gave up on a packet it could not read"), line)
        XCTAssertTrue(line.contains("not speaking MQTT as expected"), line)
        XCTAssertEqual(d.stop(), 0, d.log)
    }
}

extension Array {
    /// Consecutive slices of `size` elements (the last may be shorter).
    fileprivate func chunks(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
