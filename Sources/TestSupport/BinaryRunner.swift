import Foundation

/// Runs the built `talking-clock` binary as a user would (or one of the project's scripts),
/// capturing stdout, stderr and the exit code.
public enum BinaryRunner {
    public struct Outcome {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// The child was still running after `timeout` and was killed (SIGKILL).
        public var timedOut: Bool

        public init(status: Int32, stdout: String, stderr: String, timedOut: Bool = false) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
            self.timedOut = timedOut
        }
    }

    /// The executable beside the test bundle (`swift build --build-tests` builds both).
    public static var binary: URL {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, here.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("talking-clock")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return here.appendingPathComponent("talking-clock")
    }

    /// The package root (for the bundled packs).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// - Parameters:
    ///   - timeout: the child is killed (SIGKILL) if it still runs after this many seconds, so a
    ///     command that hangs fails its test instead of holding the whole suite.
    ///   - stopAfter: send SIGTERM after this many seconds (for the daemon).
    ///   - input: written to the child's standard input, which is then closed (nil: inherit ours).
    ///   - directory: the child's working directory (nil: ours).
    ///   - executable: what to run (nil: the `talking-clock` binary), e.g. `scripts/loudness`.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Double = 60, stopAfter: Double? = nil, input: String? = nil,
        directory: URL? = nil, executable: URL? = nil
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = executable ?? binary
        if let directory { process.currentDirectoryURL = directory }
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        // The developer's own ~/.config/talking-clock must not change what tests see.
        env["XDG_CONFIG_HOME"] = "/nonexistent/talking-clock-tests"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        // stderr goes to a file so a chatty child can never block on a full second pipe.
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("talking-clock-stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let errHandle = try FileHandle(forWritingTo: errURL)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errHandle
        let inPipe = input.map { _ in Pipe() }
        if let inPipe { process.standardInput = inPipe }
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let timedOut = Tally()
        let watchedPID = process.processIdentifier
        Thread.detachNewThread {
            if exited.wait(timeout: .now() + timeout) == .timedOut {
                timedOut.add("killed")
                kill(watchedPID, SIGKILL)
            }
        }
        if let inPipe, let input {
            // Small scripted answers fit in the pipe's buffer: write them all, then end the input.
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try inPipe.fileHandleForWriting.close()
        }
        if let stopAfter {
            let pid = process.processIdentifier
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: max(0, stopAfter))
                kill(pid, SIGTERM)
            }
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errHandle.close()
        let errData = (try? Data(contentsOf: errURL)) ?? Data()
        let killed = timedOut["killed"] > 0
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self) + (killed ? "\n[BinaryRunner: killed after \(timeout) s]" : ""),
            timedOut: killed)
    }
}
