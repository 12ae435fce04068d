import Foundation
import Glibc
import TestSupport
import XCTest

/// The daemon as a thin shell around its engine, tried as a user meets it: nothing it waits on
/// (a broker's name, a reload) stalls the clock or loses what the user set, and every change of
/// status reaches MQTT when it happens.
final class EngineShellTests: BrokerTestCase {
    override var scratchName: String { "shell" }

    func writeConfig(_ text: String, name: String = "config.toml") throws -> URL {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func start(
        config: URL?, extra: [String] = [], launcher: [String] = [], environment: [String: String] = [:]
    ) throws -> DaemonProcess {
        var args = ["run", "--pack", packPath, "--tz", "UTC", "--device", "null"]
        args += ["--state-dir", dir.appendingPathComponent("state-\(daemons.count)").path]
        if let config { args += ["--config", config.path] }
        var env = ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path]
        for (k, v) in environment { env[k] = v }
        let d = try DaemonProcess(
            args + extra, socket: dir.appendingPathComponent("run\(daemons.count)/control.sock").path,
            environment: env, launcher: launcher, logURL: dir.appendingPathComponent("daemon\(daemons.count).log"))
        daemons.append(d)
        return d
    }

    /// `mosquitto_sub` on `topic` into a file; the returned function reads the payloads so far.
    func record(_ topic: String) throws -> () -> [String] {
        let file = dir.appendingPathComponent("sub-\(UUID().uuidString).txt")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let sub = Process()
        sub.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sub.arguments = ["mosquitto_sub", "-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-q", "1"]
        sub.standardOutput = try FileHandle(forWritingTo: file)
        sub.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try sub.run()
        subscribers.append(sub)
        return { String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init) }
    }

    /// A broker whose name the DNS server never answers (scripts/harness/blackhole-dns: the
    /// resolver takes its full 20 s to give up) must not stall the loop: the socket answers at
    /// once while the name resolves, and the boundary 3 s after start is spoken on time, not
    /// skipped as stale. Before the connect ran off the loop, the socket answered after 10.1 s
    /// and the boundary was skipped.
    func testABrokerNameThatNeverResolvesStallsNothing() throws {
        guard getuid() == 0 || FileManager.default.fileExists(atPath: "/proc/sys/user/max_user_namespaces") else {
            throw XCTSkip("needs root or user namespaces for a private network namespace")
        }
        let config = try writeConfig("[mqtt]\nbroker = \"mqtt://broker.blackhole.test:1883\"\nroom = \"kitchen\"\n")
        let launcher = [BinaryRunner.packageRoot.appendingPathComponent("scripts/harness/blackhole-dns").path]
        let launched = Date()
        let d = try start(config: config, extra: ["--fake-clock", "2026-07-01T10:14:57Z"], launcher: launcher)
        // Its first `status` answered (DaemonProcess waits for it) while the lookup hangs: the
        // connect starts before the loop runs, so a connect on the loop would hold this for 20 s.
        let firstAnswer = Date().timeIntervalSince(launched)
        XCTAssertLessThan(firstAnswer, 5, "the socket first answered \(firstAnswer) s after launch")
        // The connect (and its name lookup) started with the daemon; ask while it hangs.
        for _ in 0..<5 {
            let asked = Date()
            let status = try d.request("status")
            let took = Date().timeIntervalSince(asked)
            XCTAssertTrue(status.hasPrefix("ok driver timer"), status)
            XCTAssertLessThan(took, 0.5, "the control socket answered in \(took) s while the broker's name resolved")
        }
        XCTAssertTrue(d.waitForLog("spoke boundary=2026-07-01T10:15:00+00:00", timeout: 15), d.log)
        let spoke = d.logLines(containing: "spoke boundary=2026-07-01T10:15:00")
        let onset = spoke.first.flatMap { line in
            line.split(separator: " ").first { $0.hasPrefix("onset_error_ms=") }.flatMap { Double($0.dropFirst(15)) }
        }
        XCTAssertNotNil(onset, d.log)
        XCTAssertLessThan(abs(onset ?? 99), 5, "spoken on time: \(spoke)")
        XCTAssertFalse(d.log.contains("reason=stale"), d.log)
        XCTAssertFalse(d.log.contains("mqtt connected"), "the name never resolved: \(d.log)")
    }

    /// A timed mute that runs out is published on the retained state within a second of its end,
    /// not at the next boundary (a real Home Assistant showed the room muted 13.5 min too long).
    func testATimedMuteEndIsPublishedWithinASecond() throws {
        try brokerUp()
        let config = try writeConfig(
            "[mqtt]\nbroker = \"mqtt://127.0.0.1:\(port)\"\nroom = \"kitchen\"\ntopic = \"tc\"\ndiscovery = false\n")
        let d = try start(config: config)
        XCTAssertTrue(d.waitForLog("mqtt connected", timeout: 15), d.log)
        let lines = try record("tc/kitchen/state")
        /// Waits for a state published after the first `after` lines that contains `fragment`.
        func waitFor(_ fragment: String, after: Int = 0, timeout: Double) -> Date? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if lines().dropFirst(after).contains(where: { $0.contains(fragment) }) { return Date() }
                usleep(10_000)
            }
            return nil
        }
        XCTAssertNotNil(waitFor("\"muted\":false", timeout: 10), "the retained state: \(lines())")
        let reply = try d.request("mute for 3s")
        XCTAssertTrue(reply.hasPrefix("ok muted until "), reply)
        XCTAssertNotNil(waitFor("\"muted\":true", timeout: 5), "\(lines())")
        // The mute ends at the whole second `mute for` computed (now + 3, truncated).
        let status = try d.request("status json")
        XCTAssertTrue(status.contains("\"muted\":true"), status)
        let before = lines().count
        guard let unmutedAt = waitFor("\"muted\":false", after: before, timeout: 8) else {
            return XCTFail("the end of the mute was never published: \(lines())")
        }
        let end = try XCTUnwrap(muteEnd(reply))
        XCTAssertLessThan(
            unmutedAt.timeIntervalSince1970 - end, 1.0, "published \(unmutedAt.timeIntervalSince1970 - end) s after the mute ended")
    }

    /// The instant in "ok muted until 2026-07-01T10:20:03+00:00".
    func muteEnd(_ reply: String) -> Double? {
        guard let at = reply.split(separator: " ").last else { return nil }
        let f = ISO8601DateFormatter()
        return f.date(from: String(at))?.timeIntervalSince1970
    }

    /// `announce --next --max-wait 5` handed to a running daemon returns within 6 s on either
    /// driver (exit 3: the boundary is too far), instead of waiting 305 s on the timer driver
    /// because that boundary was already armed.
    func testAnnounceNextHonoursMaxWaitOnEitherDriver() throws {
        for driver in ["timer", "external"] {
            let d = try start(config: nil, extra: ["--driver", driver, "--fake-clock", "2026-07-01T10:05:00Z"])
            let asked = Date()
            let out = try BinaryRunner.run(
                ["announce", "--next", "--max-wait", "5", "--socket", d.socket],
                environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path], timeout: 30)
            let took = Date().timeIntervalSince(asked)
            XCTAssertLessThan(took, 6, "\(driver): \(took) s")
            XCTAssertEqual(out.status, 3, "\(driver): \(out.stderr)")
            XCTAssertTrue(out.stderr.contains("more than --max-wait 5 s"), "\(driver): \(out.stderr)")
            _ = d.stop()
        }
    }

    /// A `reload` sent over MQTT that changes the `[mqtt]` table replaces the connection, and its
    /// reply still arrives, through the new one (before, it was lost with the old connection and
    /// `reload --everywhere` exited 4).
    func testAReloadOverMQTTThatChangesTheTableIsAnswered() throws {
        try brokerUp()
        let table = "[mqtt]\nbroker = \"mqtt://127.0.0.1:\(port)\"\nroom = \"kitchen\"\ntopic = \"tc\"\ndiscovery = false\n"
        let config = try writeConfig(table)
        let d = try start(config: config)
        XCTAssertTrue(d.waitForLog("mqtt connected", timeout: 15), d.log)
        let lines = try record("tc/kitchen/reply")
        // Subscribed once a `status` sent over MQTT is answered.
        let subscribed = Date().addingTimeInterval(10)
        while !lines().contains(where: { $0.hasPrefix("ok driver") }), Date() < subscribed {
            try publish("tc/kitchen/command", "status")
            usleep(200_000)
        }
        try (table + "keepalive = 45\n").write(to: config, atomically: true, encoding: .utf8)
        try publish("tc/kitchen/command", "reload")
        let deadline = Date().addingTimeInterval(15)
        while !lines().contains(where: { $0.hasPrefix("ok reloaded") }), Date() < deadline { usleep(50_000) }
        XCTAssertTrue(lines().contains { $0.hasPrefix("ok reloaded") }, "replies: \(lines()); log: \(d.log)")
        XCTAssertEqual(d.logLines(containing: "mqtt connected").count, 2, "the new settings made a new connection: \(d.log)")
    }

    /// A state directory that cannot be opened no longer means no single-instance guard: the lock
    /// moves to the user's runtime directory, and a second daemon is refused (exit 75) instead of
    /// both speaking every boundary.
    func testAnUnusableStateDirectoryStillAllowsOneDaemonOnly() throws {
        let runtime = dir.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        chmod(runtime.path, 0o700)
        let blocked = dir.appendingPathComponent("not-a-directory")
        try "x".write(to: blocked, atomically: true, encoding: .utf8)
        let state = blocked.appendingPathComponent("state").path  // under a file: can never be made
        let first = try DaemonProcess(
            ["run", "--pack", packPath, "--tz", "UTC", "--device", "null", "--state-dir", state],
            socket: dir.appendingPathComponent("a/control.sock").path,
            environment: ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path],
            logURL: dir.appendingPathComponent("first.log"))
        daemons.append(first)
        XCTAssertTrue(first.log.contains("state directory unusable"), first.log)
        let second = try BinaryRunner.run(
            ["run", "--pack", packPath, "--tz", "UTC", "--device", "null", "--state-dir", state, "--socket",
             dir.appendingPathComponent("b/control.sock").path],
            environment: ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path],
            timeout: 20, stopAfter: 5)
        XCTAssertEqual(second.status, 75, second.stderr)
        XCTAssertTrue(second.stderr.contains("Another talking-clock daemon is already running"), second.stderr)
    }

    /// The same with a runtime directory each (issue 29, item 9): the runtime directories' locks
    /// differ, so the state directory's name is held in the kernel instead (an abstract socket),
    /// and the second daemon is refused all the same. Before, both started and both spoke.
    func testAnUnusableStateDirectoryAllowsOneDaemonWhateverTheRuntimeDirectory() throws {
        let blocked = dir.appendingPathComponent("not-a-directory")
        try "x".write(to: blocked, atomically: true, encoding: .utf8)
        let state = blocked.appendingPathComponent("state").path  // under a file: can never be made
        func environment(_ runtime: String) throws -> [String: String] {
            let url = dir.appendingPathComponent(runtime)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            chmod(url.path, 0o700)
            return ["XDG_RUNTIME_DIR": url.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path]
        }
        let first = try DaemonProcess(
            ["run", "--pack", packPath, "--tz", "UTC", "--device", "null", "--state-dir", state],
            socket: dir.appendingPathComponent("a/control.sock").path, environment: try environment("runtime-a"),
            logURL: dir.appendingPathComponent("first.log"))
        daemons.append(first)
        XCTAssertTrue(first.log.contains("state directory unusable"), first.log)
        let second = try BinaryRunner.run(
            ["run", "--pack", packPath, "--tz", "UTC", "--device", "null", "--state-dir", state, "--socket",
             dir.appendingPathComponent("b/control.sock").path],
            environment: try environment("runtime-b"), timeout: 20, stopAfter: 5)
        XCTAssertEqual(second.status, 75, second.stderr)
        XCTAssertTrue(
            second.stderr.contains("Another talking-clock daemon is already running with the state directory \(state), which cannot be opened"),
            second.stderr)
        // Once the first has gone, the name is free: a new one starts.
        first.stop()
        let third = try DaemonProcess(
            ["run", "--pack", packPath, "--tz", "UTC", "--device", "null", "--state-dir", state],
            socket: dir.appendingPathComponent("c/control.sock").path, environment: try environment("runtime-c"),
            logURL: dir.appendingPathComponent("third.log"))
        daemons.append(third)
        XCTAssertTrue(third.log.contains("state directory unusable"), third.log)
    }
}

