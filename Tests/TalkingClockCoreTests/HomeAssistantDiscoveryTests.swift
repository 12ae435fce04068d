import Foundation
import TestSupport
import XCTest

@testable import TalkingClockCore

/// The Home Assistant device-discovery payload (`HomeAssistantDiscovery`) against the keys Home
/// Assistant's documentation requires (`DiscoveryValidator`, which lists them with their sources),
/// and the `chime` / `volume` control requests its select and number send.
final class HomeAssistantDiscoveryTests: XCTestCase {
    var config: MQTTConfig {
        var c = MQTTConfig(host: "localhost")
        c.topic = "tc"
        c.room = "kitchen"
        return c
    }

    func object(_ payload: HomeAssistantDiscovery.Payload) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(payload.json.utf8)) as? [String: Any])
    }

    func testPayloadPassesTheValidator() throws {
        let payload = HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1.2.3")
        XCTAssertEqual(DiscoveryValidator.problems(json: payload.json), [], payload.json)
        XCTAssertEqual(HomeAssistantDiscovery.configTopic(prefix: "homeassistant", room: "kitchen"), "homeassistant/device/talking_clock_kitchen/config")
        XCTAssertEqual(HomeAssistantDiscovery.statusTopic(prefix: "ha"), "ha/status")
        // A room with '-' is still a valid id.
        XCTAssertEqual(DiscoveryValidator.problems(json: HomeAssistantDiscovery.payload(config: config, room: "living-room_2", version: "x").json), [])
    }

    func testPayloadContents() throws {
        let o = try object(HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1.2.3"))
        let dev = try XCTUnwrap(o["dev"] as? [String: Any])
        XCTAssertEqual(dev["ids"] as? [String], ["talking_clock_kitchen"])
        XCTAssertEqual(dev["sw"] as? String, "1.2.3")
        for key in ["name", "mf", "mdl"] { XCTAssertNotNil(dev[key] as? String, key) }
        let origin = try XCTUnwrap(o["o"] as? [String: Any])
        XCTAssertEqual(origin["name"] as? String, "talking-clock")
        XCTAssertEqual(origin["sw"] as? String, "1.2.3")
        XCTAssertEqual(o["avty_t"] as? String, "tc/kitchen/availability")
        let cmps = try XCTUnwrap(o["cmps"] as? [String: [String: Any]])
        XCTAssertEqual(
            Set(cmps.keys),
            ["mute", "mute_for", "say", "skip", "chime", "volume", "next", "onset_error", "announcement", "reply"])
        for (key, c) in cmps {
            XCTAssertEqual(c["uniq_id"] as? String, "talking_clock_kitchen_\(key)")
            XCTAssertNotNil(c["name"] as? String, key)
        }

        let mute = try XCTUnwrap(cmps["mute"])
        XCTAssertEqual(mute["p"] as? String, "switch")
        XCTAssertEqual(mute["cmd_t"] as? String, "tc/kitchen/command")
        XCTAssertEqual(mute["pl_on"] as? String, "mute")
        XCTAssertEqual(mute["pl_off"] as? String, "unmute")
        XCTAssertEqual(mute["stat_t"] as? String, "tc/kitchen/state")
        XCTAssertEqual(mute["val_tpl"] as? String, "{{ 'ON' if value_json.muted else 'OFF' }}")
        XCTAssertEqual(mute["stat_on"] as? String, "ON")
        XCTAssertEqual(mute["stat_off"] as? String, "OFF")

        let say = try XCTUnwrap(cmps["say"])
        XCTAssertEqual(say["p"] as? String, "button")
        XCTAssertEqual(say["cmd_t"] as? String, "tc/kitchen/command")
        XCTAssertEqual(say["pl_prs"] as? String, "say")

        let chime = try XCTUnwrap(cmps["chime"])
        XCTAssertEqual(chime["p"] as? String, "select")
        XCTAssertEqual(chime["options"] as? [String], ["none", "hour", "westminster", "ships-bells"])
        XCTAssertEqual(chime["cmd_tpl"] as? String, "chime {{ value }}")
        XCTAssertEqual(chime["val_tpl"] as? String, "{{ value_json.chime }}")
        // Every option is a request the control protocol accepts.
        for option in chime["options"] as? [String] ?? [] {
            XCTAssertEqual(try ControlRequest.parse(line: Array("chime \(option)".utf8)).get(), .chime(ChimeStyle(rawValue: option)!))
        }

        let volume = try XCTUnwrap(cmps["volume"])
        XCTAssertEqual(volume["p"] as? String, "number")
        XCTAssertEqual(volume["min"] as? Int, 0)
        XCTAssertEqual(volume["max"] as? Int, 100)
        XCTAssertEqual(volume["step"] as? Int, 1)
        XCTAssertEqual(volume["cmd_tpl"] as? String, "volume {{ value | int }}")
        XCTAssertEqual(volume["val_tpl"] as? String, "{{ value_json.volume }}")

        let next = try XCTUnwrap(cmps["next"])
        XCTAssertEqual(next["p"] as? String, "sensor")
        XCTAssertEqual(next["dev_cla"] as? String, "timestamp")
        XCTAssertEqual(next["stat_t"] as? String, "tc/kitchen/state")
        XCTAssertNil(next["cmd_t"])

        let onset = try XCTUnwrap(cmps["onset_error"])
        XCTAssertEqual(onset["p"] as? String, "sensor")
        XCTAssertEqual(onset["ent_cat"] as? String, "diagnostic")
        XCTAssertEqual(onset["unit_of_meas"] as? String, "ms")
    }

    /// The templates read keys the state really has.
    func testTemplatesReadTheStateKeys() throws {
        let report = StatusReport(
            driver: "timer", next: .init(at: "2026-07-01T10:15:00+00:00", text: "ten fifteen AM"), muted: false,
            mute: "unmuted", skipPending: false, stateWarning: nil, quiet: nil,
            last: .init(result: "spoke", text: "ten AM", boundary: "2026-07-01T10:00:00+00:00", onsetErrorMs: 0.012),
            playing: false, device: "default", pack: "default", zone: "UTC", chime: "westminster", volume: 40)
        let state = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        XCTAssertEqual(state["chime"] as? String, "westminster")
        XCTAssertEqual(state["volume"] as? Int, 40)
        XCTAssertNotNil(state["muted"] as? Bool)
        XCTAssertNotNil((state["next"] as? [String: Any])?["at"] as? String)
        XCTAssertNotNil((state["last"] as? [String: Any])?["onset_error_ms"] as? Double)
    }

    /// With reminders and a voice that can say new words: the away switch, the next-reminder
    /// sensor and two notify entities (this room; every room at one instant), each valid, each
    /// sending a request the control protocol reads; without them, none of these.
    func testRemindersAwayAndNotify() throws {
        let plain = try object(HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1"))
        let plainKeys = Set((plain["cmps"] as? [String: Any] ?? [:]).keys)
        XCTAssertTrue(plainKeys.isDisjoint(with: ["away", "next_reminder", "speak", "speak_everywhere"]), "\(plainKeys)")
        let o = try object(HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1", reminders: true, speak: true))
        XCTAssertEqual(DiscoveryValidator.problems(o), [])
        let cmps = try XCTUnwrap(o["cmps"] as? [String: [String: Any]])
        let away = try XCTUnwrap(cmps["away"])
        XCTAssertEqual(away["p"] as? String, "switch")
        XCTAssertEqual(away["pl_on"] as? String, "away on")
        XCTAssertEqual(away["pl_off"] as? String, "away off")
        XCTAssertEqual(away["val_tpl"] as? String, "{{ 'ON' if value_json.away_switch else 'OFF' }}")
        XCTAssertEqual(try ControlRequest.parse(line: Array("away on".utf8)).get(), .away(true))
        XCTAssertEqual(try ControlRequest.parse(line: Array("away off".utf8)).get(), .away(false))
        let reminder = try XCTUnwrap(cmps["next_reminder"])
        XCTAssertEqual(reminder["p"] as? String, "sensor")
        XCTAssertEqual(reminder["dev_cla"] as? String, "timestamp")
        XCTAssertEqual(reminder["val_tpl"] as? String, "{{ value_json.next_reminder.at if value_json.get('next_reminder') else None }}")
        let speak = try XCTUnwrap(cmps["speak"])
        XCTAssertEqual(speak["p"] as? String, "notify")
        XCTAssertEqual(speak["cmd_t"] as? String, "tc/kitchen/command")
        XCTAssertEqual(speak["cmd_tpl"] as? String, "speak {{ value }}")
        XCTAssertNil(speak["stat_t"])
        let everywhere = try XCTUnwrap(cmps["speak_everywhere"])
        XCTAssertEqual(everywhere["p"] as? String, "notify")
        XCTAssertEqual(everywhere["cmd_t"] as? String, "tc/all/command", "one message to every room: one instant for all")
        XCTAssertEqual(
            everywhere["cmd_tpl"] as? String, "speak at {{ (as_timestamp(now()) + 3) | round(0, 'ceil') | int }} {{ value }}")
        // What Home Assistant renders from those templates is a request the protocol reads, in any
        // language.
        XCTAssertEqual(
            try ControlRequest.parse(line: Array("speak Das Essen ist fertig, Kinder!".utf8)).get(),
            .speak(text: "Das Essen ist fertig, Kinder!", at: nil))
        XCTAssertEqual(
            try ControlRequest.parse(line: Array("speak at 1767225603 Обед готов".utf8)).get(), .speak(text: "Обед готов", at: 1_767_225_603))
        XCTAssertThrowsError(try ControlRequest.parse(line: Array("speak at soon Hello".utf8)).get())
        XCTAssertThrowsError(try ControlRequest.parse(line: Array("speak".utf8)).get())
        XCTAssertThrowsError(try ControlRequest.parse(line: Array("speak hello\u{7}".utf8)).get(), "a control character")
        // A notify entity with a state topic is not one.
        var broken = o
        var c = cmps
        c["speak"]?["stat_t"] = "tc/kitchen/state"
        broken["cmps"] = c
        XCTAssertTrue(DiscoveryValidator.problems(broken).contains("component speak (notify) has a `stat_t`; a notify entity only sends"))
    }

    /// The validator itself catches what it claims to.
    func testValidatorCatchesMissingKeys() throws {
        var o = try object(HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1"))
        o["dev"] = nil
        o["o"] = nil
        var cmps = o["cmps"] as! [String: [String: Any]]
        cmps["say"]?["cmd_t"] = nil
        cmps["mute"]?["uniq_id"] = "bad id!"
        cmps["chime"]?["options"] = nil
        cmps["next"]?["dev_cla"] = nil
        cmps["volume"]?["p"] = nil
        cmps["bad key"] = ["p": "sensor", "uniq_id": "x", "name": "x"]
        o["cmps"] = cmps
        let problems = DiscoveryValidator.problems(o)
        for expected in [
            "the root has no `dev` object", "the root has no `o` object", "component say (button) has no `cmd_t`",
            "component mute: uniq_id 'bad id!' is not [a-zA-Z0-9_-]", "component chime (select) has no `options` list",
            "no sensor has `dev_cla: timestamp`", "component volume has no `p`", "component key 'bad key' is not [a-zA-Z0-9_-]",
        ] {
            XCTAssertTrue(problems.contains(expected), "\(expected) not in \(problems)")
        }
        XCTAssertFalse(DiscoveryValidator.rules.isEmpty)
    }

    func testChimeAndVolumeRequests() {
        func parse(_ text: String) -> Result<ControlRequest, ControlProtocolError> { ControlRequest.parse(line: Array(text.utf8)) }
        XCTAssertEqual(try parse("chime westminster").get(), .chime(.westminster))
        XCTAssertEqual(try parse("CHIME Ships-Bells").get(), .chime(.shipsBells))
        XCTAssertEqual(try parse("chime none\r\n").get(), .chime(.none))
        XCTAssertEqual(try parse("volume 40").get(), .volume(40))
        XCTAssertEqual(try parse("volume 0").get(), .volume(0))
        XCTAssertEqual(try parse("  volume\t100 ").get(), .volume(100))
        for bad in ["chime", "chime big-ben", "chime hour westminster", "volume", "volume 101", "volume -1", "volume 4.5", "volume loud", "volume 40 50"] {
            guard case .failure(let error) = parse(bad) else { return XCTFail("\(bad) accepted") }
            XCTAssertTrue(error.message.contains("such as"), "\(bad): \(error.message)")
        }
        guard case .failure(let e) = parse("chime big-ben") else { return XCTFail() }
        XCTAssertEqual(e.message, "'chime' needs one style, one of none, hour, westminster, ships-bells, such as chime westminster, not 'big-ben'.")
        guard case .failure(let v) = parse("volume 101") else { return XCTFail() }
        XCTAssertEqual(v.message, "'volume' needs a whole percent from 0 to 100, such as volume 40, not '101'.")
        guard case .failure(let near) = parse("volum 3") else { return XCTFail() }
        XCTAssertTrue(near.message.contains("did you mean 'volume'?"), near.message)
        XCTAssertTrue(ControlRequest.helpText.contains("chime <style>") && ControlRequest.helpText.contains("volume <0-100>"))
    }

    // MARK: - Issue 22, item 12: what Home Assistant showed missing

    func testAnEventEntityReportsEveryAnnouncementOutcomeFromTheEventTopic() throws {
        let cmps = try XCTUnwrap(object(HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1"))["cmps"] as? [String: [String: Any]])
        let event = try XCTUnwrap(cmps["announcement"])
        XCTAssertEqual(event["p"] as? String, "event")
        XCTAssertEqual(event["stat_t"] as? String, "tc/kitchen/event", "the topic MQTTRoom publishes AnnouncementEvent on")
        XCTAssertEqual(event["evt_typ"] as? [String], ["spoke", "skipped", "cut", "failed"])
        // The payload the daemon publishes there: Home Assistant needs `event_type`, one of
        // `evt_typ`; the other keys (reason, onset error, boundary, words) become the event's attributes.
        for kind in AnnouncementEvent.Kind.allCases {
            let json = AnnouncementEvent(
                kind, boundary: "2026-07-01T10:15:00+00:00", text: "ten fifteen AM", reason: kind == .spoke ? nil : "why",
                onsetErrorMs: kind == .spoke ? 0.25 : nil
            ).json
            let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            XCTAssertEqual(payload["event_type"] as? String, kind.rawValue, json)
            XCTAssertEqual(payload["event"] as? String, kind.rawValue, "the key existing subscribers read stays: \(json)")
            XCTAssertTrue((event["evt_typ"] as? [String] ?? []).contains(kind.rawValue))
            XCTAssertEqual(Set(payload.keys), ["event", "event_type", "boundary", "text", "reason", "onset_error_ms"], json)
            XCTAssertEqual(try JSONDecoder().decode(AnnouncementEvent.self, from: Data(json.utf8)).event, kind)
        }
    }

    func testChimeAndVolumeAreConfigurationAndTheOriginHasASupportURLAndTheRoomAnArea() throws {
        let o = try object(HomeAssistantDiscovery.payload(config: config, room: "living_room", version: "1"))
        let cmps = try XCTUnwrap(o["cmps"] as? [String: [String: Any]])
        XCTAssertEqual(cmps["chime"]?["ent_cat"] as? String, "config")
        XCTAssertEqual(cmps["volume"]?["ent_cat"] as? String, "config")
        XCTAssertNil(cmps["mute"]?["ent_cat"], "mute is a main control")
        XCTAssertEqual((o["o"] as? [String: Any])?["url"] as? String, "https://github.com/talking-clock/talking-clock")
        XCTAssertEqual((o["dev"] as? [String: Any])?["sa"] as? String, "Living room")
        XCTAssertEqual(HomeAssistantDiscovery.area(room: "kitchen"), "Kitchen")
        XCTAssertEqual(HomeAssistantDiscovery.area(room: "hall-2"), "Hall 2")
        // Issue 29: room "-" gave Home Assistant a blank area; separators are not words.
        XCTAssertEqual(HomeAssistantDiscovery.area(room: "__living--room_"), "Living room")
        for room in ["-", "_", "-_-"] {
            XCTAssertNil(HomeAssistantDiscovery.area(room: room), room)
            let dev = try XCTUnwrap(object(HomeAssistantDiscovery.payload(config: config, room: room, version: "1"))["dev"] as? [String: Any])
            XCTAssertNil(dev["sa"], "no suggested_area for room \(room)")
        }
    }

    func testATimedMuteControlAndASkipButtonSendRequestsTheDaemonAccepts() throws {
        let cmps = try XCTUnwrap(object(HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1"))["cmps"] as? [String: [String: Any]])
        let skip = try XCTUnwrap(cmps["skip"])
        XCTAssertEqual(skip["p"] as? String, "button")
        XCTAssertEqual(skip["cmd_t"] as? String, "tc/kitchen/command")
        XCTAssertEqual(try ControlRequest.parse(line: Array((skip["pl_prs"] as? String ?? "").utf8)).get(), .skip)

        let muteFor = try XCTUnwrap(cmps["mute_for"])
        XCTAssertEqual(muteFor["p"] as? String, "number")
        XCTAssertEqual(muteFor["cmd_t"] as? String, "tc/kitchen/command")
        XCTAssertEqual(muteFor["unit_of_meas"] as? String, "min")
        XCTAssertEqual(muteFor["cmd_tpl"] as? String, "{{ 'unmute' if (value | int) == 0 else 'mute for ' ~ (value | int) ~ 'm' }}")
        XCTAssertTrue((muteFor["val_tpl"] as? String ?? "").contains("value_json.mute_until"))
        // What the template renders for every value the control offers is a request the daemon takes.
        XCTAssertEqual([muteFor["min"] as? Int, muteFor["max"] as? Int, muteFor["step"] as? Int], [0, 1440, 5])
        let (step, high) = (5, 1440)
        XCTAssertEqual(try ControlRequest.parse(line: Array("unmute".utf8)).get(), .unmute)
        for minutes in stride(from: step, through: high, by: step) {
            XCTAssertEqual(try ControlRequest.parse(line: Array("mute for \(minutes)m".utf8)).get(), .muteFor(seconds: minutes * 60))
        }
    }

    /// A refusal is visible: the `reply` topic (where `chime westminster` on a pack that cannot ring
    /// it is answered `error pack: …`) is a sensor, and a daemon that knows its pack's chimes offers
    /// only those, so the select cannot pick one it would refuse.
    func testRefusalsAreVisibleAndTheSelectOffersOnlyWhatThePackCanRing() throws {
        let cmps = try XCTUnwrap(object(HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1"))["cmps"] as? [String: [String: Any]])
        let reply = try XCTUnwrap(cmps["reply"])
        XCTAssertEqual(reply["p"] as? String, "sensor")
        XCTAssertEqual(reply["stat_t"] as? String, "tc/kitchen/reply")
        XCTAssertEqual(reply["ent_cat"] as? String, "diagnostic")
        XCTAssertEqual(reply["val_tpl"] as? String, "{{ value[:255] }}", "a sensor's state holds at most 255 characters")

        let limited = try object(
            HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1", chimes: ["hour", "none", "ships-bells"]))
        let chime = try XCTUnwrap((limited["cmps"] as? [String: [String: Any]])?["chime"])
        XCTAssertEqual(chime["options"] as? [String], ["none", "hour", "ships-bells"], "in the usual order, without westminster")
        XCTAssertEqual(DiscoveryValidator.problems(limited), [])
    }

    /// Mute until, the quiet window, playing and the last outcome are attributes of the mute switch
    /// and the event entity, read from the state with `get` (a missing key is not a template error).
    func testStateAttributesComeFromKeysTheStateHas() throws {
        let cmps = try XCTUnwrap(object(HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1"))["cmps"] as? [String: [String: Any]])
        for key in ["mute", "announcement"] {
            XCTAssertEqual(cmps[key]?["json_attr_t"] as? String, "tc/kitchen/state", key)
            XCTAssertEqual(cmps[key]?["json_attr_tpl"] as? String, HomeAssistantDiscovery.attributesTemplate, key)
        }
        let report = StatusReport(
            driver: "timer", next: nil, muted: true, mute: "muted until 2026-07-01T11:00:00+00:00", skipPending: false,
            stateWarning: nil, quiet: "22:00-07:00 silent", last: .init(result: "cut: stale", text: "ten AM", boundary: nil, onsetErrorMs: nil),
            playing: true, device: "default", pack: "default", zone: "UTC", chime: "hour", volume: 40,
            muteUntil: "2026-07-01T11:00:00+00:00")
        let state = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        for key in ["mute", "mute_until", "quiet", "playing", "last"] {
            XCTAssertNotNil(state[key], "the state has no \(key)")
            XCTAssertTrue(HomeAssistantDiscovery.attributesTemplate.contains("value_json.get('\(key)')"), key)
        }
        XCTAssertEqual(StatusReport.decode(report.json), report)
        // Not muted for a time: the key is there, null (every state has the same keys).
        var untimed = report
        untimed.muteUntil = nil
        XCTAssertTrue(untimed.json.contains(#""mute_until":null"#), untimed.json)
    }

    func testTheValidatorRequiresAnEventsTopicAndTypes() throws {
        var o = try object(HomeAssistantDiscovery.payload(config: config, room: "kitchen", version: "1"))
        var cmps = o["cmps"] as! [String: [String: Any]]
        cmps["announcement"]?["evt_typ"] = nil
        cmps["announcement"]?["stat_t"] = nil
        o["cmps"] = cmps
        let problems = DiscoveryValidator.problems(o)
        XCTAssertTrue(problems.contains("component announcement (event) has no `stat_t`"), "\(problems)")
        XCTAssertTrue(problems.contains("component announcement (event) has no `evt_typ` list"), "\(problems)")
    }
}
