import Foundation
import MQTT
import TestSupport
import XCTest

/// Whatever answers on the broker's address (issue 29, item 2): bytes that are not MQTT are a
/// failed attempt with a sentence, then a retry; never the end of the process. libmosquitto
/// 2.0.11 aborts (`log__printf: Assertion 'mosq' failed`) on an MQTT 5 property it does not know;
/// before the guard in CMosquitto's loader these tests killed the test process (exit 134).
final class HostileBrokerTests: XCTestCase {
    /// The 37-byte answer of the issue: CONNACK with flags, reason 109 and a property length that
    /// runs into an unknown property identifier.
    static let issueAnswer: [UInt8] = hex(
        "2123ff6d59927c6218544dcc847fdfcf6f24b599cc470b0b1657ba06618f34a4ebb9cc173a")

    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    func options(_ port: Int) -> MQTTOptions {
        var o = MQTTOptions(host: "127.0.0.1", port: port, clientID: "tc-hostile-\(UUID().uuidString.prefix(8))", keepalive: 60)
        o.backoffInitial = 0.02
        o.backoffMax = 0.1
        o.connectTimeout = 1
        return o
    }

    func errors(_ states: [MQTTState]) -> [MQTTError] {
        states.compactMap { if case .waiting(let e, _) = $0 { return e } else { return nil } }
    }

    func testTheIssuesConnackIsAProtocolErrorAndARetry() throws {
        let peer = try HostilePeer { _ in Self.issueAnswer }
        defer { peer.stop() }
        let d = try Driver(options(peer.port))
        d.client.start()
        XCTAssertTrue(d.run(timeout: 30) { peer.connections >= 3 && d.client.failures >= 3 }, "states: \(d.states)")
        let first = try XCTUnwrap(errors(d.states).first)
        XCTAssertEqual(first.kind, .library(call: "mosquitto_loop_read", code: 1000, errno: 0), first.description)
        XCTAssertTrue(
            first.description.contains("libmosquitto gave up on a packet it could not read"), first.description)
        XCTAssertTrue(
            first.description.contains(
                "check that the host and port are an MQTT broker's listener (not another service, or a TLS port without ca-file); the clock keeps speaking and reconnects"
            ), first.description)
        XCTAssertTrue(first.description.hasPrefix("MQTT broker mqtt://127.0.0.1:\(peer.port): mosquitto_loop_read failed: "))
        // It sent a CONNECT each time (the fake broker read one per connection).
        XCTAssertTrue(peer.firstReads.prefix(3).allSatisfy { $0.first == 0x10 }, "\(peer.firstReads.prefix(3))")
    }

    /// 60 seeded answers of 4 KiB; half of them start with the CONNACK type byte, so they reach
    /// the packet parsers (CONNACK's properties, and after an accepted CONNACK those of whatever
    /// follows). Every one ends as a failed attempt and the next attempt is made.
    func testRandomAnswersAreFailedAttemptsNeverTheEnd() throws {
        let seed: UInt64 = 29
        let peer = try HostilePeer { n in
            var g = SeededGenerator(seed: seed &+ UInt64(n))
            var bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &g) }
            if n % 2 == 0 {
                bytes[0] = 0x20
                bytes[1] = UInt8.random(in: 2...120, using: &g)  // a remaining length that fits
            }
            return bytes
        }
        defer { peer.stop() }
        let d = try Driver(options(peer.port))
        d.client.start()
        XCTAssertTrue(d.run(timeout: 120) { peer.connections >= 60 && self.errors(d.states).count >= 59 }, "connections \(peer.connections), states: \(d.states.suffix(5))")
        let kinds = Set(errors(d.states).map { "\($0.kind)" })
        XCTAssertFalse(kinds.isEmpty)
        for e in errors(d.states) { XCTAssertTrue(e.description.hasSuffix("."), e.description) }
    }
}
