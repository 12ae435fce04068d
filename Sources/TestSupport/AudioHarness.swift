import Foundation

/// Drives the project's real-time harness (`scripts/harness/`): a private PulseAudio with a
/// real-time null sink, a time-stamped capture of its monitor, and the analyses.
public enum AudioHarness {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static var scripts: URL { BinaryRunner.packageRoot.appendingPathComponent("scripts/harness") }

    /// Whether the tools the harness needs are installed (`scripts/install-deps --test`).
    public static var isAvailable: Bool {
        ["/usr/bin/pulseaudio", "/usr/bin/parec"].allSatisfy(FileManager.default.isExecutableFile(atPath:))
    }

    /// Runs a harness script to completion; returns stdout.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = scripts.appendingPathComponent(tool)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: data, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts (or reuses) the private PulseAudio; returns the environment clients need.
    /// - Parameter dir: its own runtime directory instead of the shared default, for a test that
    ///   stops it (`pulseDown(dir:)`) or must not hear other tests' sound.
    public static func pulseUp(dir: String? = nil) throws -> [String: String] {
        var env: [String: String] = [:]
        let arguments = ["up"] + (dir.map { ["--dir", $0] } ?? [])
        for line in try run("pulse", arguments).split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let eq = assignment.firstIndex(of: "=") else { continue }
            var value = String(assignment[assignment.index(after: eq)...])
            if value.hasPrefix("'") && value.hasSuffix("'") { value = String(value.dropFirst().dropLast()) }
            env[String(assignment[..<eq])] = value
        }
        guard env["PULSE_SERVER"] != nil else { throw Failure(description: "pulse up printed no PULSE_SERVER") }
        return env
    }

    /// Stops the PulseAudio started with `pulseUp(dir:)` (its clients see the server vanish).
    public static func pulseDown(dir: String) throws {
        try run("pulse", ["down", "--dir", dir])
    }

    /// A PulseAudio of this test's own, in a directory no other run uses: `stop()` (in a `defer`)
    /// stops it and removes the directory, so nothing is left running after the test.
    public final class PrivatePulse {
        public let dir: String
        public let environment: [String: String]

        public init(_ tag: String) throws {
            dir = "/tmp/tc-pa-\(getpid())-\(tag)-\(UUID().uuidString.prefix(8))"
            do { environment = try AudioHarness.pulseUp(dir: dir) } catch {
                try? AudioHarness.pulseDown(dir: dir)
                try? FileManager.default.removeItem(atPath: dir)
                throw error
            }
        }

        public func stop() {
            try? AudioHarness.pulseDown(dir: dir)
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    /// A capture running in the background until `stop`.
    public final class Capture {
        public let output: URL
        let process: Process

        init(output: URL, process: Process) {
            self.output = output
            self.process = process
        }

        /// Stops recording (SIGINT) and waits for the WAV and its sidecar.
        public func stop() {
            if process.isRunning { process.interrupt() }
            process.waitUntilExit()
        }
    }

    /// Starts recording the sink's monitor and returns once the capture is steady.
    public static func startCapture(to output: URL, environment: [String: String], maxSeconds: Int = 120) throws -> Capture {
        let ready = output.deletingPathExtension().appendingPathExtension("ready")
        try? FileManager.default.removeItem(at: ready)
        let process = Process()
        process.executableURL = scripts.appendingPathComponent("capture")
        process.arguments = ["-o", output.path, "--ready-file", ready.path, "--max-seconds", "\(maxSeconds)", "-q"]
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: ready.path) {
            guard process.isRunning, Date() < deadline else {
                process.terminate()
                throw Failure(description: "capture did not become ready")
            }
            usleep(20_000)
        }
        return Capture(output: output, process: process)
    }

    /// `analyze SUBCOMMAND FILE ARGS --json`, parsed.
    public static func analyze(_ subcommand: String, _ file: URL, _ arguments: [String] = []) throws -> [String: Any] {
        let text = try run("analyze", [subcommand, file.path] + arguments + ["--json"])
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw Failure(description: "analyze \(subcommand) printed no JSON object: \(text)")
        }
        return object
    }
}
