import EventLoop
import Foundation
import MQTT
import TestSupport
import XCTest

/// A private mosquitto from `scripts/harness/mosquitto`: its own dir and free loopback port.
final class Broker {
    let dir: URL
    private(set) var port = 0
    private(set) var ca = ""
    private(set) var wrongCA = ""
    private let extra: [String]

    init(tls: Bool = false, user: String? = nil, password: String? = nil) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("tc-mqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var extra: [String] = []
        if tls { extra.append("--tls") }
        if let user { extra += ["--user", user, "--password", password ?? ""] }
        self.extra = extra
        try up()
    }

    static var script: String { BinaryRunner.packageRoot.appendingPathComponent("scripts/harness/mosquitto").path }

    /// Starts the broker (again: the same port and config).
    func up() throws {
        let out = try Self.run([Self.script, "up", "--dir", dir.path] + extra)
        for line in out.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { continue }
            switch kv[0] {
            case "port": port = Int(kv[1]) ?? 0
            case "ca": ca = kv[1]
            case "wrong_ca": wrongCA = kv[1]
            default: break
            }
        }
        XCTAssertGreaterThan(port, 0, "harness printed no port: \(out)")
    }

    func kill() throws { _ = try Self.run([Self.script, "kill", "--dir", dir.path]) }

    func down() {
        _ = try? Self.run([Self.script, "down", "--dir", dir.path])
        try? FileManager.default.removeItem(at: dir)
    }

    var log: String { (try? String(contentsOf: dir.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? "" }

    /// Runs a command to completion; throws with its stderr if it fails.
    @discardableResult
    static func run(_ argv: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw NSError(
                domain: "harness", code: Int(p.terminationStatus),
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "\(argv.joined(separator: " ")): \(String(decoding: errData, as: UTF8.self))"
                ])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `mosquitto_pub` once (the other side of a test).
    func publish(_ topic: String, _ text: String, retain: Bool = false, caFile: String? = nil) throws {
        var argv = ["mosquitto_pub", "-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-m", text, "-q", "1"]
        if retain { argv.append("-r") }
        if let caFile { argv += ["--cafile", caFile] }
        try Self.run(argv)
    }
}

/// `mosquitto_sub` in the background, one line per message: "<retain flag> <topic> <payload>".
final class Subscriber {
    let process = Process()
    let file: URL

    init(broker: Broker, topic: String, caFile: String? = nil) throws {
        file = broker.dir.appendingPathComponent("sub-\(UUID().uuidString).txt")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var argv = ["mosquitto_sub", "-h", "127.0.0.1", "-p", "\(broker.port)", "-t", topic, "-F", "%r %t %p"]
        if let caFile { argv += ["--cafile", caFile] }
        process.arguments = argv
        process.standardOutput = try FileHandle(forWritingTo: file)
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    var lines: [String] {
        ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}

/// The daemon's own `EventLoop` driving a client through `MQTTEventSource`, plus a 20 ms tick
/// used only to check the test's condition and deadline (the client's own wake-ups are counted
/// by the source, not including this tick).
final class Driver {
    let loop: EventLoop
    let client: MQTTClient
    let source: MQTTEventSource
    private let tick: TimerFD
    var states: [MQTTState] = []
    var messages: [MQTTMessage] = []
    var connects = 0
    var onConnect: (() -> Void)?

    init(_ options: MQTTOptions) throws {
        loop = try EventLoop()
        client = try MQTTClient(options)
        source = try MQTTEventSource(client: client, loop: loop)
        tick = try TimerFD(realtime: false)
        client.onState = { [unowned self] in self.states.append($0) }
        client.onMessage = { [unowned self] in self.messages.append($0) }
        client.onConnect = { [unowned self] in
            self.connects += 1
            self.onConnect?()
        }
    }

    /// Runs the loop until `condition` holds (true) or `timeout` seconds pass (false).
    /// `every` runs at each 20 ms tick (e.g. to re-send until the other side sees it).
    @discardableResult
    func run(timeout: Double, every: (() -> Void)? = nil, until condition: @escaping () -> Bool) -> Bool {
        if condition() { return true }
        let deadline = MQTTClient.now() + timeout
        var met = false
        try? loop.watch(tick.fd, events: .readable) { [unowned self] _ in
            _ = self.tick.read()
            every?()
            if condition() {
                met = true
                self.loop.stop()
            } else if MQTTClient.now() >= deadline {
                self.loop.stop()
            } else {
                self.tick.arm(after: 0.02)
            }
        }
        tick.arm(after: 0.02)
        loop.run()
        tick.disarm()
        loop.unwatch(tick.fd)
        return met || condition()
    }

    var connected: Bool { client.state == .connected }
}

/// The mqtt-probe executable beside the test bundle.
var probeBinary: String {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for candidate in [here, here.deletingLastPathComponent()] {
        let url = candidate.appendingPathComponent("mqtt-probe")
        if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
    }
    return BinaryRunner.packageRoot.appendingPathComponent(".build/debug/mqtt-probe").path
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes.
func waitFor(_ timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = MQTTClient.now() + timeout
    while MQTTClient.now() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
