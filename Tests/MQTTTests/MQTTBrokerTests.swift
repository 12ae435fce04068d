import Foundation
import MQTT
import XCTest

/// The MQTT client against a real mosquitto (scripts/harness/mosquitto), driven by the daemon's
/// EventLoop. Timeouts are generous (a busy 2-core machine); every wait ends on an event.
final class MQTTBrokerTests: XCTestCase {
    var brokers: [Broker] = []

    override func tearDown() {
        for b in brokers { b.down() }
        brokers = []
    }

    func broker(tls: Bool = false, user: String? = nil, password: String? = nil) throws -> Broker {
        let b = try Broker(tls: tls, user: user, password: password)
        brokers.append(b)
        return b
    }

    func options(_ b: Broker, id: String = "tc-test-\(UUID().uuidString.prefix(8))") -> MQTTOptions {
        var o = MQTTOptions(host: "127.0.0.1", port: b.port, clientID: id, keepalive: 60)
        o.backoffInitial = 0.25
        o.backoffMax = 1
        return o
    }

    func testPublishAndReceiveThroughMosquittoClients() throws {
        let b = try broker()
        let sub = try Subscriber(broker: b, topic: "tc/out")
        let d = try Driver(options(b))
        d.onConnect = { try? d.client.subscribe("tc/in", qos: 1) }
        d.client.start()
        XCTAssertTrue(d.run(timeout: 20) { d.connected }, "states: \(d.states)")
        // Re-send until the other side (subscribed at its own pace) has it.
        XCTAssertTrue(
            d.run(timeout: 20, every: { try? d.client.publish(MQTTMessage(topic: "tc/out", text: "hello é", qos: 1)) })
            {
                sub.lines.contains("0 tc/out hello é")
            }, "mosquitto_sub saw: \(sub.lines)")
        XCTAssertTrue(
            d.run(timeout: 20, every: { try? b.publish("tc/in", "say") }) { !d.messages.isEmpty }, "states: \(d.states)"
        )
        XCTAssertEqual(d.messages.first, MQTTMessage(topic: "tc/in", text: "say", qos: 1, retained: false))
        XCTAssertEqual(d.connects, 1)
    }

    func testRetainedMessageArrivesFlaggedOnSubscribe() throws {
        let b = try broker()
        try b.publish("tc/r/state", "{\"muted\":false}", retain: true)
        let d = try Driver(options(b))
        d.onConnect = { try? d.client.subscribe("tc/r/state") }
        d.client.start()
        XCTAssertTrue(d.run(timeout: 20) { !d.messages.isEmpty }, "states: \(d.states)")
        XCTAssertEqual(
            d.messages.first, MQTTMessage(topic: "tc/r/state", text: "{\"muted\":false}", qos: 0, retained: true))
        // A live message on the same topic is not flagged retained.
        try b.publish("tc/r/state", "live")
        XCTAssertTrue(d.run(timeout: 20) { d.messages.count >= 2 })
        XCTAssertEqual(d.messages.last?.retained, false)
        XCTAssertEqual(d.messages.last?.text, "live")
    }

    func testLastWillOfflineWhenTheClientProcessIsKilled() throws {
        let b = try broker()
        let sub = try Subscriber(broker: b, topic: "tc/room1/availability")
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: probeBinary)
        probe.arguments = [
            "--port", "\(b.port)", "--id", "room1", "--will", "tc/room1/availability", "--online",
            "tc/room1/availability",
        ]
        probe.standardOutput = FileHandle.nullDevice
        try probe.run()
        defer { if probe.isRunning { kill(probe.processIdentifier, SIGKILL) } }
        XCTAssertTrue(
            waitFor(30) { sub.lines.contains { $0.hasSuffix("tc/room1/availability online") } }, "\(sub.lines)")
        kill(probe.processIdentifier, SIGKILL)
        probe.waitUntilExit()
        XCTAssertTrue(
            waitFor(30) { sub.lines.contains { $0.hasSuffix("tc/room1/availability offline") } }, "\(sub.lines)")
        // Retained: a subscriber arriving later is told too.
        let late = try Subscriber(broker: b, topic: "tc/room1/availability")
        XCTAssertTrue(waitFor(30) { late.lines == ["1 tc/room1/availability offline"] }, "\(late.lines)")
    }

    func testReconnectsWithBackoffAfterTheBrokerIsKilledAndRepublishes() throws {
        let b = try broker()
        var o = options(b)
        o.will = MQTTMessage(topic: "tc/r/availability", text: "offline", qos: 1, retained: true)
        let d = try Driver(o)
        d.onConnect = {
            try? d.client.publish(MQTTMessage(topic: "tc/r/availability", text: "online", qos: 1, retained: true))
        }
        d.client.start()
        XCTAssertTrue(d.run(timeout: 20) { d.connected })
        try b.kill()
        // Lost, then refused at each attempt: the delays double up to the cap.
        XCTAssertTrue(d.run(timeout: 30) { d.client.failures >= 4 }, "states: \(d.states)")
        let delays = d.states.compactMap { s -> Double? in
            if case .waiting(_, let retryIn) = s { return retryIn }
            return nil
        }
        XCTAssertEqual(Array(delays.prefix(4)), [0.25, 0.5, 1, 1], "states: \(d.states)")
        if case .waiting(let error, _) = d.states.last {
            XCTAssertTrue(error.description.contains("mqtt://127.0.0.1:\(b.port)"), error.description)
        } else {
            XCTFail("not waiting: \(d.states)")
        }
        try b.up()
        XCTAssertTrue(d.run(timeout: 30) { d.connected && d.connects == 2 }, "states: \(d.states)")
        XCTAssertEqual(d.client.failures, 0)
        XCTAssertEqual(d.client.backoff, 0.25)
        // The on-connect callback republished availability (retained) on the restarted broker.
        let sub = try Subscriber(broker: b, topic: "tc/r/availability")
        XCTAssertTrue(d.run(timeout: 20) { sub.lines.contains("1 tc/r/availability online") }, "\(sub.lines)")
    }

    func testWrongPasswordIsAClearErrorRetriedWithBackoff() throws {
        let b = try broker(user: "clock", password: "right")
        var o = options(b)
        o.username = "clock"
        o.password = "wrong"
        let d = try Driver(o)
        d.client.start()
        XCTAssertTrue(d.run(timeout: 30) { d.client.failures >= 3 }, "states: \(d.states)")
        XCTAssertEqual(d.connects, 0)
        guard case .waiting(let error, _) = d.client.state else { return XCTFail("state \(d.client.state)") }
        guard case .refused(let code) = error.kind else { return XCTFail("\(error)") }
        XCTAssertTrue([4, 5, 134, 135].contains(code), "CONNACK \(code)")
        XCTAssertTrue(
            error.description.contains("mqtt://127.0.0.1:\(b.port) refused the connection"), error.description)
        XCTAssertTrue(error.description.contains("password file"), error.description)

        // The right password connects.
        o.password = "right"
        let good = try Driver(o)
        good.client.start()
        XCTAssertTrue(good.run(timeout: 20) { good.connected }, "states: \(good.states)")
    }

    func testTLSWithTheTestCAIsVerifiedAndWorks() throws {
        let b = try broker(tls: true)
        var o = options(b)
        o.caFile = b.ca
        let sub = try Subscriber(broker: b, topic: "tc/tls", caFile: b.ca)
        let d = try Driver(o)
        d.client.start()
        XCTAssertTrue(d.run(timeout: 20) { d.connected }, "states: \(d.states)\n\(b.log)")
        XCTAssertTrue(
            d.run(timeout: 20, every: { try? d.client.publish(MQTTMessage(topic: "tc/tls", text: "secure")) }) {
                sub.lines.contains("0 tc/tls secure")
            }, "\(sub.lines)")
    }

    func testTLSWithAnotherCAIsRefused() throws {
        let b = try broker(tls: true)
        var o = options(b)
        o.caFile = b.wrongCA
        let d = try Driver(o)
        d.client.start()
        XCTAssertTrue(d.run(timeout: 30) { d.client.failures >= 2 }, "states: \(d.states)")
        XCTAssertEqual(d.connects, 0)
        guard case .waiting(let error, _) = d.client.state else { return XCTFail("state \(d.client.state)") }
        XCTAssertTrue(error.description.contains("mqtts://127.0.0.1:\(b.port)"), error.description)
        XCTAssertTrue(error.description.contains("ca-file"), error.description)
    }

    /// Keepalive 5 s (libmosquitto's minimum) for 12 s: the connection stays up on pings alone,
    /// and the client's only wake-ups are the ping exchanges (timer + PINGRESP).
    func testIdleWakeupsAreOnlyKeepalive() throws {
        let b = try broker()
        var o = options(b)
        o.keepalive = 5
        let d = try Driver(o)
        d.client.start()
        XCTAssertTrue(d.run(timeout: 20) { d.connected })
        let start = d.source.wakeups
        let t0 = MQTTClient.now()
        d.run(timeout: 12) { false }
        let wakeups = d.source.wakeups - start
        let seconds = MQTTClient.now() - t0
        XCTAssertEqual(d.connects, 1, "states: \(d.states)")
        XCTAssertTrue(d.connected)
        XCTAssertGreaterThanOrEqual(wakeups, 2, "no keepalive at all in \(seconds) s")
        XCTAssertLessThanOrEqual(Double(wakeups), 2 * (seconds / 5 + 1), "\(wakeups) wake-ups in \(seconds) s")
    }
}
