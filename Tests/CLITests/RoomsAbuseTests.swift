import Foundation
import Glibc
import TestSupport
import XCTest

/// `rooms` prints what the broker holds: text another client published there must not reach the
/// terminal raw (escape sequences, a newline that forges a room's line) (issue 22).
extension RoomsTests {
    func testRoomsEscapesBrokerText() throws {
        try brokerUp()
        let kitchen = try config("kitchen")
        let d = try start("kitchen", config: kitchen)
        // A real room's state, with its phrase replaced by a hostile one, retained as room "evil".
        let json = String(try d.request("status json").dropFirst(3))
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var next = try XCTUnwrap(object["next"] as? [String: Any], json)
        next["text"] = "It's noon\u{1B}[2J\u{1B}]0;pwned\u{07}\nkitchen  offline; forged\u{202E}"
        object["next"] = next
        let hostile = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        try publish("tc/evil/state", hostile, retain: true)
        try publish("tc/evil/availability", "online", retain: true)
        let rooms = try cli(["rooms", "--config", kitchen.path])
        XCTAssertEqual(rooms.status, 0, rooms.stderr)
        let lines = rooms.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(lines.count, 2, rooms.stdout)  // evil and kitchen: no forged third line
        let evil = try XCTUnwrap(lines.first { $0.hasPrefix("evil ") }, rooms.stdout)
        XCTAssertFalse(rooms.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        XCTAssertTrue(
            evil.contains(#"It's noon\u{1B}[2J\u{1B}]0;pwned\u{7}\u{A}kitchen  offline; forged\u{202E}"#), String(evil))
        try publish("tc/evil/state", "", retain: true)
        try publish("tc/evil/availability", "", retain: true)
    }

    /// `--everywhere` prints each room's reply escaped: a fake room answering with an escape
    /// sequence and a newline cannot forge another room's answer.
    func testEverywhereEscapesReplies() throws {
        try brokerUp()
        let kitchen = try config("kitchen")
        _ = try start("kitchen", config: kitchen)
        try publish("tc/evil/availability", "online", retain: true)
        defer { try? publish("tc/evil/availability", "", retain: true) }
        let commands = try watch("tc/all/command")
        // The CLI in the background; this test plays the fake room, answering its command with a
        // hostile reply.
        let cli = try background(["unmute", "--everywhere", "--wait", "10", "--config", kitchen.path])
        XCTAssertTrue(waitUntil(timeout: 20) { commands().contains("tc/all/command unmute") }, "\(commands())")
        try publish("tc/evil/reply", "ok \u{1B}[2Jdone\nkitchen: ok forged")
        let r = cli.finish()
        XCTAssertEqual(r.status, 0, r.stdout)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("kitchen: ") }.count, 1, r.stdout)
        XCTAssertTrue(lines.contains(#"evil: ok \u{1B}[2Jdone\u{A}kitchen: ok forged"#), r.stdout)
        XCTAssertFalse(r.stdout.unicodeScalars.contains { $0.value == 0x1B })
    }
}

/// What the CLI takes from the broker (issue 29, item 9): a retained state with no availability is
/// not a room; only the first reply of a room online when the command went out is an answer; the
/// broker being down is said as a command's failure, not the daemon's ("keeps speaking").
extension RoomsTests {
    func testAGhostRoomAndExtraRepliesAreNotAnswers() throws {
        try brokerUp()
        let kitchen = try config("kitchen")
        let d = try start("kitchen", config: kitchen)
        // A state retained for a room that has no availability: not a room.
        let state = String(try d.request("status json").dropFirst(3))
        try publish("tc/ghost/state", state, retain: true)
        defer { try? publish("tc/ghost/state", "", retain: true) }
        // A room "online" that never answers keeps the CLI waiting, so every reply below is seen.
        try publish("tc/silent/availability", "online", retain: true)
        defer { try? publish("tc/silent/availability", "", retain: true) }
        let all = try cli(["rooms", "--all", "--config", kitchen.path])
        XCTAssertEqual(all.stdout.split(separator: "\n").map { String($0.split(separator: " ")[0]) }, ["kitchen", "silent"], all.stdout)

        let commands = try watch("tc/all/command")
        let cli = try background(["unmute", "--everywhere", "--wait", "4", "--config", kitchen.path])
        XCTAssertTrue(waitUntil(timeout: 20) { commands().contains("tc/all/command unmute") }, "\(commands())")
        try publish("tc/ghost/reply", "ok from a room that is not there")
        try publish("tc/kitchen/reply", "ok a second answer")
        let (status, stdout, stderr) = cli.finish()
        XCTAssertEqual(status, 4, "silent did not answer: \(stdout)\(stderr)")
        let lines = stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("kitchen: ") }.count, 1, stdout)
        XCTAssertFalse(stdout.contains("ghost"), stdout)
        XCTAssertTrue(stderr.contains("ignored replies not owed by an online room: "), stderr)
        XCTAssertTrue(stderr.contains("ghost (1)") && stderr.contains("kitchen (1)"), stderr)
        XCTAssertTrue(stderr.contains("no reply within 4 s from silent"), stderr)
    }

    func testRoomsWithTheBrokerDownSaysWhatTheCommandCouldNotDo() throws {
        // A port nothing listens on: bind one, close it.
        let peer = try HostilePeer { _ in [] }
        let port = peer.port
        peer.stop()
        let url = try config("kitchen", mqtt: "broker = \"mqtt://127.0.0.1:\(port)\"\nroom = \"kitchen\"\ntopic = \"tc\"\n")
        let r = try cli(["rooms", "--config", url.path])
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "talking-clock: MQTT broker mqtt://127.0.0.1:\(port): mosquitto_connect_async failed: Connection refused (errno 111); check that the broker runs and listens on that host and port.\n")
    }
}

extension RoomsTests {
    /// The CLI running in the background while the test plays a room on the broker.
    struct Background {
        let process: Process
        let out: Pipe
        let err: Pipe

        /// Waits for it to exit: its status, stdout and stderr.
        func finish() -> (status: Int32, stdout: String, stderr: String) {
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, stdout, stderr)
        }
    }

    func background(_ arguments: [String]) throws -> Background {
        let p = Process()
        p.executableURL = BinaryRunner.binary
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(["XDG_CONFIG_HOME": "/nonexistent/talking-clock-tests"]) { $1 }
        let b = Background(process: p, out: Pipe(), err: Pipe())
        p.standardOutput = b.out
        p.standardError = b.err
        try p.run()
        return b
    }
}
