import XCTest

@testable import TalkingClockCore

/// `[mqtt]` topics a broker would never deliver, refused when the config is read (issue 22).
final class MQTTConfigAbuseTests: XCTestCase {
    func refusal(_ mqtt: String) -> String? {
        do {
            _ = try Config.parse("[mqtt]\nbroker = \"mqtt://localhost\"\n" + mqtt, source: "config.toml")
            return nil
        } catch {
            return error.description
        }
    }

    func testBrokerTopicsAndTrailingSlashesAreRefused() {
        let prefix =
            "config.toml: line 3: 'discovery-prefix' in [mqtt] must be a topic prefix such as \"homeassistant\" (Home "
            + "Assistant's default): no '+' or '#', no empty level, no leading or trailing '/', not starting with '$', not "
        let cases: [(String, String)] = [
            (
                "topic = \"$SYS/x\"",
                "config.toml: line 3: 'topic' in [mqtt] must not start with '$' (\"$SYS/x\"): topics beginning with '$', "
                    + "such as $SYS, belong to the broker; use a prefix such as \"talking-clock\"."
            ),
            ("topic = \"$share\"", "config.toml: line 3: 'topic' in [mqtt] must not start with '$' (\"$share\"): topics beginning with '$', such as $SYS, belong to the broker; use a prefix such as \"talking-clock\"."),
            ("discovery-prefix = \"homeassistant/\"", prefix + "\"homeassistant/\"."),
            ("discovery-prefix = \"/homeassistant\"", prefix + "\"/homeassistant\"."),
            ("discovery-prefix = \"home//assistant\"", prefix + "\"home//assistant\"."),
            ("discovery-prefix = \"$SYS\"", prefix + "\"$SYS\"."),
        ]
        for (line, message) in cases {
            XCTAssertEqual(refusal(line), message, line)
        }
        XCTAssertNil(refusal("topic = \"home/clocks\"\ndiscovery-prefix = \"ha/discovery\""))
    }
}
