import Foundation
import MQTT
import XCTest

/// The client against a hostile broker side (issue 22): payloads over the limit are reported by
/// their length and never copied, and a second client with the same id makes the reconnect
/// backoff grow instead of the two taking the connection from each other every second.
final class MQTTAbuseTests: XCTestCase {
    var brokers: [Broker] = []
    var others: [Process] = []

    override func tearDown() {
        for p in others where p.isRunning {
            p.terminate()
            p.waitUntilExit()
        }
        for b in brokers { b.down() }
    }

    func broker() throws -> Broker {
        let b = try Broker()
        brokers.append(b)
        return b
    }

    func testAPayloadOverTheLimitIsReportedByItsLengthAndNotDelivered() throws {
        let b = try broker()
        var o = MQTTOptions(host: "127.0.0.1", port: b.port, clientID: "tc-big-\(UUID().uuidString.prefix(8))", keepalive: 60)
        o.maximumPayload = 1000
        let d = try Driver(o)
        var oversized: [String] = []
        d.client.onOversized = { oversized.append("\($0) \($1)") }
        d.onConnect = { try? d.client.subscribe("tc/in/#", qos: 1) }
        d.client.start()
        XCTAssertTrue(d.run(timeout: 20) { d.connected }, "states: \(d.states)")
        // Re-sent until the subscription is in place: the first that arrives counts.
        XCTAssertTrue(
            d.run(timeout: 20, every: { try? b.publish("tc/in/big", String(repeating: "B", count: 5000)) }) {
                !oversized.isEmpty
            })
        XCTAssertEqual(oversized.first, "tc/in/big 5000")
        XCTAssertTrue(d.messages.allSatisfy { $0.topic != "tc/in/big" }, "the oversized payload was not delivered")
        try b.publish("tc/in/fits", String(repeating: "F", count: 1000))
        XCTAssertTrue(d.run(timeout: 20) { d.messages.contains { $0.topic == "tc/in/fits" } })
        XCTAssertEqual(d.messages.first { $0.topic == "tc/in/fits" }?.payload.count, 1000)
    }

    func testASecondClientWithTheSameIDIsSeenAndTheBackoffGrows() throws {
        let b = try broker()
        let id = "tc-twin-\(UUID().uuidString.prefix(8))"
        // The twin: mosquitto_sub reconnects on its own (after 1 s) each time it is taken over.
        let twin = Process()
        twin.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        twin.arguments = ["mosquitto_sub", "-h", "127.0.0.1", "-p", "\(b.port)", "-i", id, "-t", "tc/twin", "-k", "60"]
        twin.standardOutput = FileHandle.nullDevice
        twin.standardError = FileHandle.nullDevice
        try twin.run()
        others.append(twin)
        var o = MQTTOptions(host: "127.0.0.1", port: b.port, clientID: id, keepalive: 60)
        o.backoffInitial = 0.25
        o.backoffMax = 4
        let d = try Driver(o)
        d.client.start()
        XCTAssertTrue(d.run(timeout: 60) { d.client.shortSessions >= 3 }, "states: \(d.states)")
        XCTAssertGreaterThanOrEqual(d.connects, 3)
        // Each connection closed at once doubled the delay: no reset to 0.25 s after a CONNACK.
        let delays = d.states.compactMap { s -> Double? in
            if case .waiting(_, let retryIn) = s { return retryIn }
            return nil
        }
        XCTAssertEqual(Array(delays.prefix(3)), [0.25, 0.5, 1], "states: \(d.states)")
        // Once the twin has gone, a connection that lasts resets the count.
        twin.terminate()
        twin.waitUntilExit()
        XCTAssertTrue(d.run(timeout: 30) { d.connected })
    }
}

extension MQTTAbuseTests {
    /// A broker name that does not resolve is a DNS problem, not something in the broker's log.
    func testAHostNameThatDoesNotResolveSaysSo() throws {
        var o = MQTTOptions(host: "no-such-broker.invalid", port: 1883, clientID: "tc-dns-\(UUID().uuidString.prefix(8))", keepalive: 60)
        o.backoffInitial = 30
        let d = try Driver(o)
        d.client.start()
        XCTAssertTrue(d.run(timeout: 30) { d.client.failures >= 1 }, "states: \(d.states)")
        guard case .waiting(let error, _) = d.states.last else { return XCTFail("not waiting: \(d.states)") }
        XCTAssertFalse(error.description.contains("see the broker's log"), error.description)
        XCTAssertTrue(
            error.description.contains("the broker's host name could not be resolved: check the host in the broker address"),
            error.description)
    }
}
