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

/// A clock with no `room` takes its host name; one that cannot be a room says why (issue 29,
/// item 9: a host called "all" was told it had characters other than letters and digits).
final class HostNameRoomTests: XCTestCase {
    func testTheHostNameBecomesTheRoomOrSaysWhyNot() {
        XCTAssertEqual(try MQTTConfig.room(fromHostName: "kitchen").get(), "kitchen")
        XCTAssertEqual(try MQTTConfig.room(fromHostName: "kitchen.local").get(), "kitchen")
        let fix = "; set room = \"kitchen\" (for example) in [mqtt]."
        let cases: [(String, String)] = [
            ("all", "the host name \"all\" cannot be the MQTT room: \"all\" addresses every room at once (<topic>/all/command), so no clock may take it" + fix),
            ("all.example.org", "the host name \"all.example.org\" (its first part, \"all\") cannot be the MQTT room: \"all\" addresses every room at once (<topic>/all/command), so no clock may take it" + fix),
            ("pi+clock", "the host name \"pi+clock\" cannot be the MQTT room: a room has only letters, digits, '_' and '-' (it is one level of an MQTT topic)" + fix),
            ("", "the host name \"\" cannot be the MQTT room: it is empty" + fix),
            (String(repeating: "h", count: 65), "the host name \"\(String(repeating: "h", count: 65))\" cannot be the MQTT room: it is 65 characters long; a room has at most 64" + fix),
        ]
        for (host, sentence) in cases {
            guard case .failure(let e) = MQTTConfig.room(fromHostName: host) else { return XCTFail(host) }
            XCTAssertEqual(e.description, sentence, host)
        }
    }
}
