import Foundation
import Glibc
import TestSupport
import XCTest

/// What the tests of built daemons on a real private broker share (`MQTTDaemonTests`, `RoomsTests`):
/// a scratch directory with a fixture pack, a broker from `scripts/harness/mosquitto` (its own
/// directory and free loopback port), `mosquitto_pub` as the other side, and the daemons and
/// `mosquitto_sub` processes to stop afterwards. Skipped when mosquitto is not installed.
class BrokerTestCase: XCTestCase {
    var dir: URL!
    var broker: URL { dir.appendingPathComponent("broker") }
    var port = 0
    var ca = ""
    var wrongCA = ""
    var daemons: [DaemonProcess] = []
    var subscribers: [Process] = []
    var packPath: String { dir.appendingPathComponent("pack").path }

    /// The scratch directory's name prefix.
    var scratchName: String { "broker" }

    override func setUpWithError() throws {
        for tool in ["mosquitto", "mosquitto_sub", "mosquitto_pub"] where which(tool) == nil {
            throw XCTSkip("\(tool) is not installed (Debian: mosquitto, mosquitto-clients)")
        }
        dir = FixturePack.temporaryDirectory(scratchName)
        try FixturePack.write(to: dir.appendingPathComponent("pack"))
    }

    override func tearDown() {
        for d in daemons where d.isRunning { d.kill9() }
        for s in subscribers where s.isRunning {
            s.terminate()
            s.waitUntilExit()
        }
        if dir != nil {
            _ = try? run(["python3", Self.script, "down", "--dir", broker.path])
            try? FileManager.default.removeItem(at: dir)
        }
    }

    static var script: String { BinaryRunner.packageRoot.appendingPathComponent("scripts/harness/mosquitto").path }

    func which(_ tool: String) -> String? {
        for d in ["/usr/sbin", "/usr/bin", "/sbin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(d)/\(tool)") {
            return "\(d)/\(tool)"
        }
        return nil
    }

    /// Starts the broker (`extra`: the harness's `--tls`, `--user U --password P`) and reads its port
    /// and, with TLS, its CA and a CA that did not sign it.
    func brokerUp(_ extra: [String] = []) throws {
        let out = try run(["python3", Self.script, "up", "--dir", broker.path] + extra)
        for line in out.split(separator: "\n") {
            if line.hasPrefix("port=") { port = Int(line.dropFirst(5)) ?? 0 }
            if line.hasPrefix("ca=") { ca = String(line.dropFirst(3)) }
            if line.hasPrefix("wrong_ca=") { wrongCA = String(line.dropFirst(9)) }
        }
        XCTAssertGreaterThan(port, 0, out)
    }

    /// Runs a command to completion and returns its standard output; throws if it fails.
    @discardableResult
    func run(_ argv: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw NSError(domain: "run", code: Int(p.terminationStatus), userInfo: [NSLocalizedDescriptionKey: argv.joined(separator: " ")])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `mosquitto_pub` of a text, or of raw bytes (through a file).
    func publish(_ topic: String, _ text: String? = nil, bytes: [UInt8]? = nil, retain: Bool = false) throws {
        var argv = ["mosquitto_pub", "-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-q", "1"]
        if let bytes {
            let f = dir.appendingPathComponent("payload-\(UUID().uuidString)")
            try Data(bytes).write(to: f)
            argv += ["-f", f.path]
        } else {
            argv += ["-m", text ?? ""]
        }
        if retain { argv.append("-r") }
        try run(argv)
    }
}
