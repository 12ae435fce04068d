import MQTT
import XCTest

/// Reconnect jitter: rooms that lost the same broker spread their attempts over a fraction of the delay.
final class RetryDelayTests: XCTestCase {
    func testJitterTakesOffUpToItsFraction() {
        var o = MQTTOptions(host: "127.0.0.1", port: 1883, clientID: "x")
        XCTAssertEqual(o.retryDelay(backoff: 8, random: 0.9), 8, "no jitter: exactly the backoff")
        o.jitter = 0.5
        XCTAssertEqual(o.retryDelay(backoff: 8, random: 0), 8)
        XCTAssertEqual(o.retryDelay(backoff: 8, random: 0.5), 6)
        XCTAssertEqual(o.retryDelay(backoff: 8, random: 0.999_999), 4, accuracy: 0.001)
        o.jitter = 7  // clamped to 1: never negative
        XCTAssertEqual(o.retryDelay(backoff: 8, random: 2), 0)
        let spread = Set((0..<50).map { _ in o.retryDelay(backoff: 8, random: Double.random(in: 0..<1)) })
        XCTAssertGreaterThan(spread.count, 10, "random delays differ")
    }
}
