import Foundation
import Glibc
import TestSupport
import XCTest

/// Several built daemons (rooms) on a real private broker (`scripts/harness/mosquitto`), driven by
/// the CLI's `--everywhere` commands and `rooms`: docs/mqtt.md, "Every room from the command line".
/// Every wait has a deadline; none is a fixed sleep.
final class RoomsTests: BrokerTestCase {
    override var scratchName: String { "rooms" }

    /// `mosquitto_sub` on `filter` in the background, one line per message: "TOPIC PAYLOAD".
    func watch(_ filter: String) throws -> () -> [String] {
        let file = dir.appendingPathComponent("sub-\(UUID().uuidString).txt")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["mosquitto_sub", "-h", "127.0.0.1", "-p", "\(port)", "-t", filter, "-t", "tc/probe", "-q", "1", "-F", "%t %p"]
        p.standardOutput = try FileHandle(forWritingTo: file)
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        subscribers.append(p)
        let lines = { String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init) }
        let probe = "probe-\(UUID().uuidString)"
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            try publish("tc/probe", probe)
            if waitUntil(timeout: 0.3, { lines().contains("tc/probe \(probe)") }) { return lines }
        }
        XCTFail("mosquitto_sub did not subscribe")
        return lines
    }

    /// A config file for `room`; `mqtt` replaces the default table body.
    func config(_ room: String, mqtt: String? = nil, top: String = "") throws -> URL {
        let url = dir.appendingPathComponent("\(room).toml")
        let table = mqtt ?? "broker = \"mqtt://127.0.0.1:\(port)\"\nroom = \"\(room)\"\ntopic = \"tc\"\ndiscovery = false\n"
        try (top + "[mqtt]\n" + table).write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func start(_ room: String, config: URL, extra: [String] = []) throws -> DaemonProcess {
        let n = daemons.count
        let runDir = dir.appendingPathComponent("run\(n)")
        try FileManager.default.createDirectory(at: runDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let d = try DaemonProcess(
            ["run", "--config", config.path, "--pack", packPath, "--tz", "UTC", "--device", "null", "--state-dir",
             dir.appendingPathComponent("state\(n)").path] + extra,
            socket: runDir.appendingPathComponent("control.sock").path,
            environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path],
            logURL: dir.appendingPathComponent("\(room).log"))
        daemons.append(d)
        return d
    }

    func cli(_ arguments: [String]) throws -> BinaryRunner.Outcome {
        try BinaryRunner.run(arguments, timeout: 30)
    }

    // MARK: -

    /// Three rooms, one `say --everywhere`: every room answers with the same instant (a whole
    /// second 0.5 to 1.5 s ahead) and speaks it with its first sample on it; `rooms` lists them
    /// with their state, plain and as JSON; a stopped room drops out (and shows with `--all`).
    func testThreeRoomsSpeakOneSayEverywhere() throws {
        try brokerUp()
        let rooms = ["kitchen", "hall", "study"]
        var configs: [URL] = []
        for room in rooms {
            configs.append(try config(room))
            _ = try start(room, config: configs.last!)
        }
        let events = try watch("tc/+/event")
        XCTAssertTrue(
            waitUntil(timeout: 15) { (try? cli(["rooms", "--config", configs[0].path]))?.stdout.split(separator: "\n").count == 3 },
            "three rooms online")

        let before = Date().timeIntervalSince1970
        let say = try cli(["say", "--everywhere", "--config", configs[1].path, "--wait", "10"])
        XCTAssertEqual(say.status, 0, say.stderr)
        let lines = say.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(Set(lines.map { String($0.prefix { $0 != ":" }) }), Set(rooms), say.stdout)
        // "kitchen: ok speaking "…" at 1767225600.000 (in 0.734 s)": one instant for all.
        let instants = Set(lines.compactMap { line -> String? in
            guard let r = line.range(of: " at ") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != " " })
        })
        XCTAssertEqual(instants.count, 1, say.stdout)
        let instant = Double(instants.first ?? "") ?? 0
        XCTAssertEqual(instant, instant.rounded(), "a whole second")
        XCTAssertGreaterThanOrEqual(instant - before, 0.5, say.stdout)
        XCTAssertLessThan(instant - before, 2.5, say.stdout)
        for line in lines { XCTAssertTrue(line.contains(": ok speaking "), line) }

        // Each room speaks it, anchored on the instant (null device: the onset is the wake-up's
        // accuracy; robust bounds on a busy machine, the real spread is in BENCHMARKS.md).
        XCTAssertTrue(waitUntil(timeout: 15) { events().filter { $0.contains(#""event":"spoke""#) }.count == 3 }, "\(events())")
        for room in rooms {
            guard let event = events().first(where: { $0.hasPrefix("tc/\(room)/event ") }) else { XCTFail(room); continue }
            let object = try JSONSerialization.jsonObject(with: Data(event.dropFirst("tc/\(room)/event ".count).utf8)) as? [String: Any]
            XCTAssertEqual(object?["event"] as? String, "spoke", event)
            let onset = object?["onset_error_ms"] as? Double
            XCTAssertNotNil(onset, event)
            XCTAssertLessThan(abs(onset ?? 1e9), 100, event)
        }

        // `rooms`: the state of each, plain and JSON.
        XCTAssertTrue(waitUntil(timeout: 10) { (try? cli(["rooms", "--config", configs[0].path]))?.stdout.components(separatedBy: "last spoke").count == 4 })
        let plain = try cli(["rooms", "--config", configs[0].path])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.stdout.split(separator: "\n").map { String($0.prefix { $0 != " " }) }, rooms.sorted(), plain.stdout)
        XCTAssertTrue(plain.stdout.contains("online; unmuted; next "), plain.stdout)
        let json = try cli(["rooms", "--json", "--config", configs[0].path])
        let array = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(array?.map { $0["room"] as? String }, rooms.sorted(), json.stdout)
        XCTAssertEqual(array?.allSatisfy { $0["online"] as? Bool == true }, true)
        let state = array?.first?["state"] as? [String: Any]
        XCTAssertEqual(state?["muted"] as? Bool, false, json.stdout)
        XCTAssertEqual((state?["last"] as? [String: Any])?["result"] as? String, "spoke", json.stdout)

        // A room that stops cleanly goes offline: gone from the list, shown by --all.
        XCTAssertEqual(daemons[2].stop(), 0)
        XCTAssertTrue(waitUntil(timeout: 10) { (try? cli(["rooms", "--config", configs[0].path]))?.stdout.split(separator: "\n").count == 2 })
        let all = try cli(["rooms", "--all", "--config", configs[0].path])
        XCTAssertTrue(all.stdout.contains("study    offline;"), all.stdout)

        // Mute everywhere: both online rooms answer, and the state says so.
        let mute = try cli(["mute", "--everywhere", "--for", "30m", "--config", configs[0].path])
        XCTAssertEqual(mute.status, 0, mute.stderr)
        XCTAssertEqual(mute.stdout.split(separator: "\n").count, 2, mute.stdout)
        XCTAssertTrue(mute.stdout.contains("kitchen: ok muted until ") && mute.stdout.contains("hall: ok muted until "), mute.stdout)
        XCTAssertTrue(try daemons[0].request("status json").contains(#""muted":true"#))
        let unmute = try cli(["unmute", "--everywhere", "--config", configs[0].path])
        XCTAssertEqual(unmute.status, 0, unmute.stderr)
        XCTAssertTrue(unmute.stdout.contains("kitchen: ok unmuted"), unmute.stdout)
    }

    /// Late and far `say at`s are refused with the right error (and exit status through the CLI),
    /// a silent online room makes the CLI say so and exit 4, and bad set-ups get clear errors.
    func testErrorsAndExitStatuses() throws {
        try brokerUp()
        let kitchen = try config("kitchen", top: "late-limit = 2\n")
        let d = try start("kitchen", config: kitchen)
        let replies = try watch("tc/+/reply")
        let now = Date().timeIntervalSince1970
        try publish("tc/all/command", "say at \(Int(now) - 100).000")
        XCTAssertTrue(waitUntil(timeout: 10) { replies().contains { $0.hasPrefix("tc/kitchen/reply error stale: say at ") } }, "\(replies())")
        XCTAssertTrue(replies().contains { $0.contains("more than late-limit (2.0 s); nothing spoken") }, "\(replies())")
        try publish("tc/all/command", "say at \(Int(now) + 100).000")
        XCTAssertTrue(waitUntil(timeout: 10) { replies().contains { $0.contains("s ahead, more than 30 s") } }, "\(replies())")
        // Late within late-limit: spoken at once, the reply says how late.
        try publish("tc/kitchen/command", "say at \(String(Date().timeIntervalSince1970 - 0.5))")
        XCTAssertTrue(waitUntil(timeout: 10) { replies().contains { $0.contains(" s late (say at ") } }, "\(replies())")
        XCTAssertTrue(d.waitForLog("spoke", timeout: 10), d.log)

        // An online room that never answers (a retained `online` with no daemon behind it).
        try publish("tc/ghost/availability", "online", retain: true)
        let silent = try cli(["skip", "--everywhere", "--wait", "1", "--config", kitchen.path])
        XCTAssertEqual(silent.status, 4, silent.stdout + silent.stderr)
        XCTAssertTrue(silent.stdout.contains("kitchen: ok "), silent.stdout)
        XCTAssertTrue(silent.stderr.contains("no reply within 1 s from ghost (online on mqtt://127.0.0.1:\(port))"), silent.stderr)
        try publish("tc/ghost/availability", "", retain: true)
        // An error reply exits with its kind's status: a reload of a config broken meanwhile is
        // refused (kind usage: 64).
        try "volume = 500\n[mqtt]\nbroker = \"mqtt://127.0.0.1:\(port)\"\nroom = \"kitchen\"\ntopic = \"tc\"\n".write(to: kitchen, atomically: true, encoding: .utf8)
        let other = try config("other")
        let reload = try cli(["reload", "--everywhere", "--config", other.path])
        XCTAssertEqual(reload.status, 64, reload.stdout + reload.stderr)
        XCTAssertTrue(reload.stdout.hasPrefix("kitchen: error usage: reload refused"), reload.stdout)

        // No [mqtt] table, and a broker that is not there.
        let plain = dir.appendingPathComponent("plain.toml")
        try "volume = 50\n".write(to: plain, atomically: true, encoding: .utf8)
        let none = try cli(["say", "--everywhere", "--config", plain.path])
        XCTAssertEqual(none.status, 64, none.stderr)
        XCTAssertTrue(none.stderr.contains("need an [mqtt] table in the config file \(plain.path)"), none.stderr)
        let combined = try cli(["say", "--everywhere", "--at", "12:00", "--config", kitchen.path])
        XCTAssertEqual(combined.status, 64, combined.stderr)
        let gone = try config("gone", mqtt: "broker = \"mqtt://127.0.0.1:1\"\nroom = \"gone\"\n")
        let unreachable = try cli(["rooms", "--config", gone.path])
        XCTAssertEqual(unreachable.status, 4, unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.contains("mqtt://127.0.0.1:1"), unreachable.stderr)
    }

    /// A daemon on `mqtts://` with the harness's self-signed CA, a username and a 0600 password
    /// file connects and answers a command sent by the CLI (TLS and password too); with the wrong
    /// CA it logs a clear error and keeps speaking boundaries.
    func testTLSAndPasswordFile() throws {
        try brokerUp(["--tls", "--user", "clock", "--password", "s3cret"])
        XCTAssertFalse(ca.isEmpty)
        let password = dir.appendingPathComponent("mqtt-password")
        try "s3cret\n".write(to: password, atomically: true, encoding: .utf8)
        chmod(password.path, 0o600)
        let good = try config(
            "kitchen",
            mqtt: "broker = \"mqtts://127.0.0.1:\(port)\"\nroom = \"kitchen\"\ntopic = \"tc\"\nusername = \"clock\"\npassword-file = \"mqtt-password\"\nca-file = \"\(ca)\"\ndiscovery = false\n")
        let d = try start("kitchen", config: good)
        XCTAssertTrue(d.waitForLog("mqtt connected", timeout: 15), d.log)
        let mute = try cli(["mute", "--everywhere", "--config", good.path])
        XCTAssertEqual(mute.status, 0, mute.stdout + mute.stderr)
        XCTAssertEqual(mute.stdout, "kitchen: ok muted\n")
        XCTAssertTrue(try d.request("status json").contains(#""muted":true"#))

        // The wrong CA: refused with the reason and the fix; a boundary a few seconds away is
        // still spoken on time (the broker is never on the announcement path).
        let wrong = try config(
            "hall",
            mqtt: "broker = \"mqtts://127.0.0.1:\(port)\"\nroom = \"hall\"\ntopic = \"tc\"\nusername = \"clock\"\npassword-file = \"mqtt-password\"\nca-file = \"\(wrongCA)\"\ndiscovery = false\n")
        // A simulated clock 6 s before 12:15 UTC (a quarter: no hour strokes), whatever the hour now.
        let h = try start("hall", config: wrong, extra: ["--fake-clock", "2026-07-01T12:14:54Z"])
        XCTAssertTrue(h.waitForLog("mqtt not connected", timeout: 15), h.log)
        XCTAssertTrue(h.log.contains("ca-file"), h.log)
        XCTAssertTrue(h.waitForLog("spoke", timeout: 20), h.log)
        XCTAssertTrue(h.logLines(containing: "spoke").first?.contains("boundary=") ?? false, h.log)
        XCTAssertTrue(h.isRunning)
        // The CLI with the wrong CA gets the same clear error, exit 4.
        let cliWrong = try cli(["rooms", "--config", wrong.path])
        XCTAssertEqual(cliWrong.status, 4, cliWrong.stderr)
        XCTAssertTrue(cliWrong.stderr.contains("ca-file"), cliWrong.stderr)
    }

    /// `reload` applies a changed `[mqtt]` table: the room reconnects under its new name (the
    /// old one goes offline); a table whose password file others can read refuses the reload and
    /// the old connection stays.
    func testReloadReconnectsWithNewMQTTSettings() throws {
        try brokerUp()
        let file = try config("kitchen")
        let d = try start("kitchen", config: file)
        let lines = try watch("tc/+/availability")
        XCTAssertTrue(waitUntil(timeout: 15) { lines().contains("tc/kitchen/availability online") }, "\(lines())")
        _ = try config("kitchen", mqtt: "broker = \"mqtt://127.0.0.1:\(port)\"\nroom = \"pantry\"\ntopic = \"tc\"\ndiscovery = false\n")
        XCTAssertEqual(try d.request("reload", timeout: 20), "ok reloaded")
        XCTAssertTrue(waitUntil(timeout: 15) { lines().contains("tc/pantry/availability online") }, "\(lines())")
        XCTAssertTrue(lines().contains("tc/kitchen/availability offline"), "\(lines())")
        let mute = try cli(["mute", "--everywhere", "--config", file.path])
        XCTAssertEqual(mute.stdout, "pantry: ok muted\n", mute.stderr)

        let password = dir.appendingPathComponent("open-password")
        try "x\n".write(to: password, atomically: true, encoding: .utf8)
        chmod(password.path, 0o644)
        _ = try config(
            "kitchen",
            mqtt: "broker = \"mqtt://127.0.0.1:\(port)\"\nroom = \"cellar\"\ntopic = \"tc\"\nusername = \"u\"\npassword-file = \"open-password\"\n")
        let refused = try d.request("reload", timeout: 20)
        XCTAssertTrue(refused.hasPrefix("error usage: reload refused, the previous configuration and pack stay: "), refused)
        XCTAssertTrue(refused.contains("can be read by other users (mode 644); run 'chmod 600"), refused)
        let still = try cli(["unmute", "--everywhere", "--config", try config("cli").path])
        XCTAssertEqual(still.stdout, "pantry: ok unmuted\n", "the old connection stays: \(still.stderr)")
    }

    /// `output-latency` starts a room's announcement that much early: on a clockless `null`
    /// device the whole `say at T` is written (and its `spoke` event published) at T − latency,
    /// while a room without one speaks at T. (The sample-accurate figure is
    /// `scripts/bench-rooms unison --first-room-latency`.)
    func testOutputLatencyStartsEarlier() throws {
        try brokerUp()
        let fast = try config("bluetooth", top: "output-latency = 1000\n")
        _ = try start("bluetooth", config: fast)
        _ = try start("wired", config: try config("wired"))
        let events = try watch("tc/+/event")
        XCTAssertTrue(waitUntil(timeout: 15) { (try? cli(["rooms", "--config", fast.path]))?.stdout.split(separator: "\n").count == 2 })
        let instant = (Date().timeIntervalSince1970 + 3).rounded(.up)
        try publish("tc/all/command", "say at \(Int(instant)).000")
        var seen: [String: Double] = [:]
        XCTAssertTrue(
            waitUntil(timeout: 15) {
                for room in ["bluetooth", "wired"] where seen[room] == nil {
                    if events().contains(where: { $0.hasPrefix("tc/\(room)/event ") && $0.contains(#""event":"spoke""#) }) {
                        seen[room] = Date().timeIntervalSince1970
                    }
                }
                return seen.count == 2
            }, "\(events())")
        XCTAssertLessThan(seen["bluetooth"] ?? .infinity, instant - 0.4, "spoken about 1 s before the instant")
        XCTAssertGreaterThanOrEqual(seen["wired"] ?? 0, instant, "spoken at the instant")
    }
}
