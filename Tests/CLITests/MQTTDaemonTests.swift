import Foundation
import Glibc
import TestSupport
import XCTest

/// The built daemon on a real private broker (`scripts/harness/mosquitto`), with
/// `mosquitto_sub`/`mosquitto_pub` as the other side: the topic contract of docs/mqtt.md.
/// Every wait has a deadline; none is a fixed sleep.
final class MQTTDaemonTests: BrokerTestCase {
    override var scratchName: String { "mqttd" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try brokerUp()
    }

    /// `mosquitto_sub -v` on `filter` in the background: one line per message, "R TOPIC PAYLOAD"
    /// (R: 1 for a retained message replayed on subscribe, else 0).
    final class Watch {
        let file: URL
        init(file: URL) { self.file = file }
        var lines: [String] {
            // Lossy: a binary payload must not hide the other lines.
            String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
        }
        func matching(_ prefix: String, _ fragment: String = "") -> [String] {
            lines.filter { $0.hasPrefix(prefix) && (fragment.isEmpty || $0.contains(fragment)) }
        }
        /// Waits until `count` lines start with `prefix` and contain `fragment`.
        @discardableResult
        func wait(_ prefix: String, _ fragment: String = "", count: Int = 1, timeout: Double = 15) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while matching(prefix, fragment).count < count {
                if Date() >= deadline { return false }
                usleep(20_000)
            }
            return true
        }
    }

    func watch(_ filter: String = "tc/#") throws -> Watch {
        let file = dir.appendingPathComponent("sub-\(UUID().uuidString).txt")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // -q 1: nothing lost between the daemon's publish and our read.
        p.arguments = ["mosquitto_sub", "-h", "127.0.0.1", "-p", "\(port)", "-t", filter, "-t", "tc/probe", "-q", "1", "-F", "%r %t %p"]
        p.standardOutput = try FileHandle(forWritingTo: file)
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        subscribers.append(p)
        // Subscribed once our own probe message comes back.
        let probe = "probe-\(UUID().uuidString)"
        let w = Watch(file: file)
        let deadline = Date().addingTimeInterval(10)
        repeat {
            try publish("tc/probe", probe)
            if w.wait("0 tc/probe", probe, timeout: 0.3) { return w }
        } while Date() < deadline
        XCTFail("mosquitto_sub did not subscribe")
        return w
    }

    func writeConfig(_ mqtt: String, name: String = "config.toml") throws -> URL {
        let url = dir.appendingPathComponent(name)
        try ("[mqtt]\n" + mqtt).write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    var table: String { "broker = \"mqtt://127.0.0.1:\(port)\"\nroom = \"kitchen\"\ntopic = \"tc\"\n" }

    func start(config: URL?, extra: [String] = [], log: String = "daemon.log") throws -> DaemonProcess {
        var args = ["run", "--pack", packPath, "--tz", "UTC", "--state-dir", dir.appendingPathComponent("state-\(daemons.count)").path]
        if let config { args += ["--config", config.path] }
        let d = try DaemonProcess(
            args + extra, socket: dir.appendingPathComponent("run\(daemons.count)/control.sock").path,
            environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path],
            logURL: dir.appendingPathComponent(log))
        daemons.append(d)
        return d
    }

    var external: [String] { ["--driver", "external", "--device", "file:FILE=/dev/null"] }

    /// For runs that must fail at start: their own state dir and socket, never the user's.
    var isolated: [String] {
        external + ["--state-dir", dir.appendingPathComponent("state-x").path, "--socket", dir.appendingPathComponent("runx/control.sock").path]
    }

    func mapsLibmosquitto(_ d: DaemonProcess) -> Bool {
        // procfs files report size 0: read to the end.
        let data = FileHandle(forReadingAtPath: "/proc/\(d.pid)/maps")?.readDataToEndOfFile() ?? Data()
        return String(decoding: data, as: UTF8.self).contains("libmosquitto")
    }

    // MARK: -

    /// Availability, the retained state, commands on the room's and on `all`'s topic answered on
    /// `reply` with the socket's text, retained commands never run, garbage answered with an
    /// error, and a clean `offline` on SIGTERM.
    func testCommandsStateAndAvailability() throws {
        // Retained by mistake before the clock starts: they must never run.
        try publish("tc/kitchen/command", "mute", retain: true)
        try publish("tc/all/command", "say", retain: true)
        let w = try watch()
        let d = try start(config: try writeConfig(table), extra: external)
        XCTAssertTrue(w.wait("0 tc/kitchen/availability", "online"), w.lines.joined(separator: "\n") + d.log)
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: a retained command is never executed", count: 2), "\(w.lines)")
        XCTAssertTrue(w.wait("0 tc/kitchen/state", #""muted":false"#), "\(w.lines)")
        XCTAssertTrue(try d.request("status json").contains(#""muted":false"#), "the retained mute did not run")
        XCTAssertTrue(d.logLines(containing: "speaking").isEmpty && d.logLines(containing: "spoke").isEmpty, d.log)
        XCTAssertTrue(mapsLibmosquitto(d))
        // Clear the retained commands (as the reply says), so they stay out of the rest.
        try publish("tc/kitchen/command", "", retain: true)
        try publish("tc/all/command", "", retain: true)

        // A command on the room's topic: the reply is the socket's text; the state follows.
        try publish("tc/kitchen/command", "mute for 30m")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "ok muted"), "\(w.lines)")
        XCTAssertTrue(w.wait("0 tc/kitchen/state", #""muted":true"#), "\(w.lines)")
        let mqttReply = String(w.matching("0 tc/kitchen/reply", "ok muted")[0].dropFirst("0 tc/kitchen/reply ".count))
        // The same words as the socket; the end is now + 30 min, so the two may be a second apart.
        let socketReply = try d.request("mute for 30m")
        func end(_ reply: String) -> Double? {
            reply.split(separator: " ").last.flatMap { ISO8601DateFormatter().date(from: String($0))?.timeIntervalSince1970 }
        }
        XCTAssertEqual(socketReply.dropLast(25), mqttReply.dropLast(25), "the same words as the socket")
        XCTAssertEqual(end(socketReply) ?? 0, end(mqttReply) ?? -9, accuracy: 2, "\(socketReply) / \(mqttReply)")
        XCTAssertTrue(try d.request("status json").contains(#""muted":true"#))
        // Retained: a subscriber that comes later gets the current state at once.
        let later = try watch("tc/kitchen/state")
        XCTAssertTrue(later.wait("1 tc/kitchen/state", #""muted":true"#), "\(later.lines)")
        let json = String(later.matching("1 tc/kitchen/state")[0].dropFirst("1 tc/kitchen/state ".count))
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        XCTAssertEqual(object?["driver"] as? String, "external")
        XCTAssertEqual(object?["muted"] as? Bool, true)
        XCTAssertEqual(json, String(try d.request("status json").dropFirst(3)), "the state is what status json says")

        // `all` reaches the room.
        try publish("tc/all/command", "unmute")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "ok unmuted"), "\(w.lines)")
        XCTAssertTrue(w.wait("0 tc/kitchen/state", #""muted":false"#, count: 2), "\(w.lines)")
        // Another room's command is not ours.
        try publish("tc/hall/command", "mute")

        // Garbage gets an error reply and changes nothing.
        try publish("tc/kitchen/command", bytes: [0, 1, 2, 0xFF])
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: the request contains non-text bytes"), "\(w.lines)")
        try publish("tc/kitchen/command", bytes: [UInt8](repeating: 65, count: 5000))
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: the command is 5000 bytes"), "\(w.lines)")
        try publish("tc/kitchen/command", "bogus")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: unknown command 'bogus'"), "\(w.lines)")
        try publish("tc/kitchen/command", "status\nmute")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: one command per message"), "\(w.lines)")
        try publish("tc/kitchen/command", " ")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: the request is empty"), "\(w.lines)")
        XCTAssertTrue(try d.request("status json").contains(#""muted":false"#), "nothing muted the kitchen")
        XCTAssertTrue(d.isRunning)

        // SIGTERM: a clean `offline`, retained.
        XCTAssertEqual(d.stop(), 0)
        XCTAssertTrue(w.wait("0 tc/kitchen/availability", "offline"), "\(w.lines)")
        // Sent by the daemon, not the broker's Last Will: it said DISCONNECT ("disconnected."
        // in mosquitto's log; a lost client is "closed its connection").
        let brokerLog = String(decoding: (try? Data(contentsOf: broker.appendingPathComponent("mosquitto.log"))) ?? Data(), as: UTF8.self)
        XCTAssertTrue(brokerLog.contains("Client talking-clock-kitchen disconnected."), brokerLog)
        let after = try watch("tc/kitchen/availability")
        XCTAssertTrue(after.wait("1 tc/kitchen/availability", "offline"), "\(after.lines)")
        XCTAssertTrue(w.lines.filter { $0.hasPrefix("0 tc/kitchen/reply") }.allSatisfy { !$0.contains("hall") })
    }

    /// The broker killed and restarted: the daemon reconnects and republishes availability and
    /// state; the daemon SIGKILLed: the broker publishes the Last Will `offline`.
    func testReconnectAfterBrokerRestartAndLastWill() throws {
        let d = try start(config: try writeConfig(table), extra: external)
        var w = try watch()
        XCTAssertTrue(w.wait("", "tc/kitchen/availability online"), "\(w.lines)" + d.log)
        _ = try run(["python3", Self.script, "kill", "--dir", broker.path])
        XCTAssertTrue(d.waitForLog("mqtt not connected", timeout: 15), d.log)
        // The broker keeps nothing across the crash (no persistence): what comes now is republished.
        try brokerUp()
        w = try watch()
        XCTAssertTrue(w.wait("", "tc/kitchen/availability online", timeout: 20), "\(w.lines)" + d.log)
        XCTAssertTrue(w.wait("", "tc/kitchen/state {"), "\(w.lines)")
        // And the Home Assistant discovery config (the new broker had none retained).
        let ha = try watch("homeassistant/#")
        XCTAssertTrue(ha.wait("", "\(Self.discoveryTopic) {"), "\(ha.lines)" + d.log)
        XCTAssertTrue(d.logLines(containing: "mqtt connected").count >= 2, d.log)
        XCTAssertTrue(try d.request("status").hasPrefix("ok "), "the daemon answered throughout")
        d.kill9()
        XCTAssertTrue(w.wait("0 tc/kitchen/availability", "offline"), "the Last Will: \(w.lines)")
    }

    /// A boundary spoken (a simulated clock 3 s before 10:15) gives exactly one `spoke` event,
    /// with the boundary and the onset error, and the state's `last` says so.
    func testABoundarySpokenIsOneEvent() throws {
        let w = try watch()
        let d = try start(
            config: try writeConfig(table),
            extra: ["--device", "null", "--fake-clock", "2026-07-01T10:14:57Z"])
        XCTAssertTrue(w.wait("0 tc/kitchen/event", #""event":"spoke""#), "\(w.lines)" + d.log)
        let events = w.matching("0 tc/kitchen/event")
        XCTAssertEqual(events.count, 1, "\(events)")
        let json = String(events[0].dropFirst("0 tc/kitchen/event ".count))
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        XCTAssertEqual(object?["boundary"] as? String, "2026-07-01T10:15:00+00:00")
        XCTAssertEqual(object?["text"] as? String, "ten fifteen AM")
        XCTAssertNotNil(object?["onset_error_ms"] as? Double, json)
        XCTAssertTrue(object?.keys.contains("reason") ?? false, "every key is present: \(json)")
        XCTAssertTrue(w.wait("0 tc/kitchen/state", #""result":"spoke""#), "\(w.lines)")
        XCTAssertEqual(d.logLines(containing: "spoke boundary=2026-07-01T10:15:00+00:00").count, 1, d.log)
    }

    /// Bad `[mqtt]` keys and a password file others can read are refused with the file and line;
    /// without an `[mqtt]` table libmosquitto is not even loaded.
    func testBadConfigIsRefusedAndNoTableMeansNoMQTT() throws {
        let bad = try writeConfig("brokr = \"mqtt://127.0.0.1:1\"\n", name: "bad.toml")
        var out = try BinaryRunner.run(["run", "--config", bad.path, "--pack", packPath] + isolated, timeout: 20)
        XCTAssertNotEqual(out.status, 0)
        XCTAssertTrue(out.stderr.contains("\(bad.path): line 2: unknown key 'brokr' in [mqtt]; did you mean 'broker'?"), out.stderr)

        for (text, expected) in [
            ("broker = \"http://x\"\n", "line 2: 'broker' in [mqtt] must be mqtt://HOST:PORT"),
            ("broker = \"mqtt://h:1\"\nroom = \"living room\"\n", "line 3: 'room' in [mqtt] must be 1 to 64 letters"),
            ("broker = \"mqtt://h:1\"\npassword = \"hunter2\"\n", "line 3: a password is never written in the config"),
            ("broker = \"mqtt://h:1\"\nkeepalive = 5\n", "line 3: 'keepalive' in [mqtt] must be a whole number of seconds from 30 to 3600"),
            ("room = \"kitchen\"\n", "line 1: the [mqtt] table has no 'broker'"),
        ] {
            let url = try writeConfig(text, name: "bad2.toml")
            out = try BinaryRunner.run(["run", "--config", url.path, "--pack", packPath] + isolated, timeout: 20)
            XCTAssertNotEqual(out.status, 0, text)
            XCTAssertTrue(out.stderr.contains("\(url.path): \(expected)"), "\(text): \(out.stderr)")
        }

        let secret = dir.appendingPathComponent("mqtt-password")
        try "s3cret\n".write(to: secret, atomically: true, encoding: .utf8)
        chmod(secret.path, 0o644)
        let config = try writeConfig(table + "username = \"clock\"\npassword-file = \"\(secret.path)\"\n", name: "pw.toml")
        out = try BinaryRunner.run(["run", "--config", config.path, "--pack", packPath] + isolated, timeout: 20)
        XCTAssertNotEqual(out.status, 0)
        XCTAssertTrue(
            out.stderr.contains("\(config.path): line 6: the MQTT password file \(secret.path) can be read by other users (mode 644); run 'chmod 600 \(secret.path)'."),
            out.stderr)

        let plain = try start(config: nil, extra: external)
        XCTAssertFalse(mapsLibmosquitto(plain), "no [mqtt]: libmosquitto is not loaded")
        XCTAssertTrue(plain.logLines(containing: ">mqtt").isEmpty, plain.log)
    }

    // MARK: - Home Assistant discovery

    static let discoveryTopic = "homeassistant/device/talking_clock_kitchen/config"

    /// The retained device config on `homeassistant/device/talking_clock_<room>/config` passes the
    /// validator of Home Assistant's required keys; Home Assistant's birth (`online` on
    /// `homeassistant/status`) makes the daemon publish it again; `discovery = false` publishes
    /// nothing under the prefix.
    func testDiscoveryRetainedRepublishedOnBirthAndOffWhenDisabled() throws {
        let tc = try watch()
        let d = try start(config: try writeConfig(table), extra: external)
        XCTAssertTrue(tc.wait("0 tc/kitchen/availability", "online"), "\(tc.lines)" + d.log)
        XCTAssertTrue(d.waitForLog("mqtt discovery published", timeout: 15), d.log)

        // Retained: a subscriber that comes later (Home Assistant starting) gets it at once.
        let ha = try watch("homeassistant/#")
        XCTAssertTrue(ha.wait("1 \(Self.discoveryTopic) {"), "\(ha.lines)")
        let line = ha.matching("1 \(Self.discoveryTopic) ")[0]
        let json = String(line.dropFirst("1 \(Self.discoveryTopic) ".count))
        XCTAssertEqual(DiscoveryValidator.problems(json: json), [], json)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["avty_t"] as? String, "tc/kitchen/availability")
        let cmps = try XCTUnwrap(object["cmps"] as? [String: [String: Any]])
        XCTAssertEqual(cmps["say"]?["cmd_t"] as? String, "tc/kitchen/command")
        XCTAssertEqual(cmps["mute"]?["stat_t"] as? String, "tc/kitchen/state")
        XCTAssertEqual((object["dev"] as? [String: Any])?["ids"] as? [String], ["talking_clock_kitchen"])

        // Home Assistant (re)starts: its birth message makes the daemon publish again (live).
        XCTAssertTrue(ha.matching("0 \(Self.discoveryTopic) ").isEmpty, "\(ha.lines)")
        try publish("homeassistant/status", "online")
        XCTAssertTrue(ha.wait("0 \(Self.discoveryTopic) {"), "\(ha.lines)" + d.log)
        XCTAssertEqual(String(ha.matching("0 \(Self.discoveryTopic) ")[0].dropFirst("0 \(Self.discoveryTopic) ".count)), json)
        // Its `offline` (will) asks for nothing.
        try publish("homeassistant/status", "offline")
        try publish("tc/kitchen/command", "status")
        XCTAssertTrue(tc.wait("0 tc/kitchen/reply", "ok driver"), "\(tc.lines)")
        XCTAssertEqual(ha.matching("0 \(Self.discoveryTopic) ").count, 1, "\(ha.lines)")
        XCTAssertEqual(d.stop(), 0)

        // discovery = false: nothing under homeassistant/ for this room, even on Home Assistant's birth.
        let off = try start(
            config: try writeConfig(table.replacingOccurrences(of: "kitchen", with: "hall") + "discovery = false\n", name: "off.toml"),
            extra: external)
        XCTAssertTrue(tc.wait("0 tc/hall/availability", "online"), "\(tc.lines)" + off.log)
        try publish("homeassistant/status", "online")
        try publish("tc/hall/command", "status")
        XCTAssertTrue(tc.wait("0 tc/hall/reply", "ok driver"), "\(tc.lines)")
        let late = try watch("homeassistant/#")
        XCTAssertTrue(late.wait("1 \(Self.discoveryTopic) "), "the kitchen's is still retained: \(late.lines)")
        XCTAssertTrue(ha.lines.filter { $0.contains("talking_clock_hall") }.isEmpty, "\(ha.lines)")
        XCTAssertTrue(late.lines.filter { $0.contains("talking_clock_hall") }.isEmpty, "\(late.lines)")
        XCTAssertTrue(off.logLines(containing: "mqtt discovery published").isEmpty, off.log)
    }

    /// What the select and the number send (`chime <style>`, `volume <0-100>`) on the command
    /// topic: answered `ok …` on `reply` and shown in the retained state; a bad value changes nothing.
    func testChimeAndVolumeCommandsShowInTheState() throws {
        let bells = ["q1", "q2", "q3", "q4", "big"]
        let pack = dir.appendingPathComponent("pack-bells")
        try FixturePack.write(
            to: pack, ids: FixturePack.fullVocabulary + bells,
            extraManifest: #""bells": {"quarter": ["q1", "q2", "q3", "q4"], "hour": "big"},"#)
        let w = try watch()
        let d = try start(config: try writeConfig(table), extra: external + ["--pack", pack.path])
        XCTAssertTrue(w.wait("0 tc/kitchen/state", #""chime":"hour""#), "\(w.lines)" + d.log)
        XCTAssertTrue(w.wait("0 tc/kitchen/state", #""volume":100"#), "\(w.lines)")

        try publish("tc/kitchen/command", "volume 40")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "ok volume 40"), "\(w.lines)" + d.log)
        XCTAssertTrue(w.wait("0 tc/kitchen/state", #""volume":40"#), "\(w.lines)")
        try publish("tc/kitchen/command", "chime westminster")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "ok chime westminster"), "\(w.lines)" + d.log)
        XCTAssertTrue(w.wait("0 tc/kitchen/state", #""chime":"westminster""#), "\(w.lines)")
        XCTAssertTrue(w.matching("0 tc/kitchen/reply", "ok volume 40")[0].contains("until reload or restart"))

        // Retained: a later subscriber sees both.
        let later = try watch("tc/kitchen/state")
        XCTAssertTrue(later.wait("1 tc/kitchen/state", #""chime":"westminster""#), "\(later.lines)")
        XCTAssertTrue(later.matching("1 tc/kitchen/state")[0].contains(#""volume":40"#), "\(later.lines)")
        XCTAssertTrue(try d.request("status json").contains(#""chime":"westminster""#))

        try publish("tc/kitchen/command", "volume 140")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: 'volume' needs a whole percent from 0 to 100"), "\(w.lines)")
        try publish("tc/kitchen/command", "chime big-ben")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error usage: 'chime' needs one style"), "\(w.lines)")
        let json = try d.request("status json")
        XCTAssertTrue(json.contains(#""volume":40"#) && json.contains(#""chime":"westminster""#), json)

        // Until reload: the config's values come back.
        XCTAssertTrue(try d.request("reload").hasPrefix("ok reloaded"))
        XCTAssertTrue(w.wait("0 tc/kitchen/state", #""chime":"hour""#, count: 2), "\(w.lines)")
        let after = try d.request("status json")
        XCTAssertTrue(after.contains(#""volume":100"#) && after.contains(#""chime":"hour""#), after)
    }

    /// The fixture pack has no quarter bells: `chime westminster` is refused with a pack error and
    /// the chime stays.
    func testChimeThePackCannotRingIsRefused() throws {
        let w = try watch()
        let d = try start(config: try writeConfig(table), extra: external)
        XCTAssertTrue(w.wait("0 tc/kitchen/availability", "online"), "\(w.lines)" + d.log)
        try publish("tc/kitchen/command", "chime westminster")
        XCTAssertTrue(w.wait("0 tc/kitchen/reply", "error pack: chime not changed: Sound pack 'fixture' cannot ring"), "\(w.lines)")
        XCTAssertTrue(try d.request("status json").contains(#""chime":"hour""#))
    }
}
