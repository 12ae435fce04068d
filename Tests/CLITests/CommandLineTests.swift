import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// How the command line reads what users type: negative numbers, unknown commands, `--socket`.
final class CommandLineTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FixturePack.temporaryDirectory("cmdline")
        try FixturePack.write(to: work.appendingPathComponent("pack"))
    }

    override func tearDown() { try? FileManager.default.removeItem(at: work) }

    var pack: String { work.appendingPathComponent("pack").path }

    /// The offset that makes the binary's clock read `target`, 30 s into its minute so that the
    /// time the binary takes to start cannot move it to another minute.
    func offset(to target: String) throws -> Int {
        let instant = try InstantParser.parse(target, in: Zone(identifier: "UTC")!)
        return Int(instant) - Int(Date().timeIntervalSince1970)
    }

    func testANegativeClockOffsetIsAValue() throws {
        let offset = try offset(to: "2020-05-01T10:07:30Z")
        XCTAssertLessThan(offset, 0)
        let r = try BinaryRunner.run([
            "say", "--dry-run", "--tz", "UTC", "--pack", pack, "--clock-offset", String(offset),
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "ten oh seven AM\nclips: ten oh seven am\n")
    }

    /// `--clock-offset -N` on the daemon's commands: `announce --next` on a clock put at :07:30
    /// finds no boundary within `--max-wait 0` and says so (exit 3), instead of "Missing value".
    func testANegativeClockOffsetReachesTheDaemonCommands() throws {
        let offset = try offset(to: "2020-05-01T10:07:30Z")
        let r = try BinaryRunner.run(
            [
                "announce", "--next", "--clock-offset", String(offset), "--max-wait", "0", "--tz", "UTC", "--pack",
                pack,
                "--device", "null", "--state-dir", work.appendingPathComponent("state").path, "--socket",
                work.appendingPathComponent("none.sock").path,
            ])
        XCTAssertEqual(r.status, ExitStatus.stale.rawValue, r.stderr)
        XCTAssertFalse(r.stderr.contains("Missing value"), r.stderr)
    }

    func testOutOfRangeNegativeNumbersAreRefusedWithTheirReason() throws {
        let socket = work.appendingPathComponent("none.sock").path
        let mute = try BinaryRunner.run(["mute", "--for", "-5m", "--socket", socket])
        XCTAssertEqual(mute.status, ExitStatus.badInput.rawValue)
        XCTAssertEqual(mute.stdout, "")
        XCTAssertTrue(
            mute.stderr.hasPrefix("Error: --for must be a positive duration such as 30m, not -5m.\n"), mute.stderr)

        let wait = try BinaryRunner.run(["announce", "--next", "--max-wait", "-1", "--socket", socket])
        XCTAssertEqual(wait.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(wait.stderr.hasPrefix("Error: --max-wait must be 0 or more.\n"), wait.stderr)

        let rate = try BinaryRunner.run([
            "run", "--fake-clock", "2026-01-01T10:00", "--clock-rate", "-2", "--socket", socket,
        ])
        XCTAssertEqual(rate.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(
            rate.stderr.hasPrefix("Error: --clock-rate must be above 0 and at most 3600, not -2.0.\n"), rate.stderr)
    }
}

extension CommandLineTests {
    func testAnUnknownCommandNamesTheCommands() throws {
        let commands =
            "say, schedule, check, record-pack, words, run, announce, status, trigger, mute, unmute, skip, unskip, volume, chime, reload, reminders, away, speak, rooms, outputs, config-example, help"
        let foo = try BinaryRunner.run(["foo"])
        XCTAssertEqual(foo.status, ExitStatus.badInput.rawValue)
        XCTAssertEqual(foo.stdout, "")
        XCTAssertEqual(
            foo.stderr, "talking-clock: unknown command 'foo'; commands: \(commands). See 'talking-clock --help'.\n")
        let typo = try BinaryRunner.run(["stauts", "--json"])
        XCTAssertEqual(typo.status, ExitStatus.badInput.rawValue)
        XCTAssertEqual(
            typo.stderr,
            "talking-clock: unknown command 'stauts'; commands: \(commands). Did you mean 'status'? See 'talking-clock --help'.\n"
        )
        // Options and the parser's own help still reach the parser.
        XCTAssertEqual(try BinaryRunner.run(["help", "say"]).status, 0)
        XCTAssertTrue(try BinaryRunner.run(["--version"]).stdout.hasPrefix("talking-clock 0.1.0 (commit "))
    }
}

// MARK: --socket
extension CommandLineTests {
    /// A daemon on the external driver writing to /dev/null, its socket at `socket` (relative paths
    /// are read in `directory`), its log in the work directory.
    func startDaemon(socket: String, directory: URL, arguments: [String] = ["--device", "file:FILE=/dev/null"]) throws
        -> Process
    {
        let p = Process()
        p.executableURL = BinaryRunner.binary
        p.arguments =
            [
                "run", "--driver", "external", "--pack", pack, "--tz", "UTC", "--state-dir",
                work.appendingPathComponent("state").path,
                "--socket", socket,
            ] + arguments
        p.currentDirectoryURL = directory
        p.environment = ProcessInfo.processInfo.environment.merging([
            "XDG_CONFIG_HOME": "/nonexistent/talking-clock-tests"
        ]) { $1 }
        let log = work.appendingPathComponent("daemon.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        p.standardError = try FileHandle(forWritingTo: log)
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        let deadline = Date().addingTimeInterval(20)
        while try BinaryRunner.run(["status", "--socket", socket], directory: directory).status != 0 {
            let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard p.isRunning else {
                p.waitUntilExit()
                throw DaemonProcess.Failure(description: "the daemon exited with \(p.terminationStatus): \(said)")
            }
            guard Date() < deadline else {
                p.terminate()
                p.waitUntilExit()
                throw DaemonProcess.Failure(description: "the daemon did not answer on \(socket) within 20 s: \(said)")
            }
            usleep(20_000)
        }
        return p
    }

    func testSayHandsAPlainSayToTheDaemonOnItsSocket() throws {
        let runtime = work.appendingPathComponent("run")
        let socket = runtime.appendingPathComponent("control.sock").path
        let daemon = try startDaemon(socket: socket, directory: work)
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        let say = try BinaryRunner.run(["say", "--socket", socket])
        XCTAssertEqual(say.status, 0, say.stderr)
        XCTAssertTrue(
            say.stdout.hasPrefix("speaking "), "the daemon answers; spoken here, say prints nothing: \(say.stdout)")
    }

    /// `run --socket rel.sock` puts the socket in the working directory (it failed with "control
    /// directory  (check that XDG_RUNTIME_DIR exists…)": the directory of a bare name is empty).
    func testARelativeSocketPathIsReadInTheWorkingDirectory() throws {
        let here = work.appendingPathComponent("here")
        try FileManager.default.createDirectory(at: here, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(here.path, 0o700), 0)  // the socket's directory must be private
        let daemon = try startDaemon(socket: "rel.sock", directory: here)
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: here.appendingPathComponent("rel.sock").path))
        let say = try BinaryRunner.run(["say", "--socket", "rel.sock"], directory: here)
        XCTAssertEqual(say.status, 0, say.stderr)
        XCTAssertTrue(say.stdout.hasPrefix("speaking "), say.stdout)
    }
}

extension CommandLineTests {
    /// Run from the repository, the working directory's Sounds/ is also the one above the binary:
    /// the error lists it once.
    func testThePackSearchListInErrorsHasNoDuplicates() throws {
        let r = try BinaryRunner.run(["say", "--dry-run", "--pack", "nosuch"], directory: BinaryRunner.packageRoot)
        XCTAssertEqual(r.status, ExitStatus.packError.rawValue)
        let listed = try XCTUnwrap(r.stderr.range(of: "(looked in ")).upperBound
        let end = try XCTUnwrap(r.stderr.range(of: "); pass --pack")).lowerBound
        let searched = r.stderr[listed..<end].components(separatedBy: ", ")
        XCTAssertEqual(searched.count, Set(searched).count, "\(searched)")
        XCTAssertTrue(
            searched.contains(BinaryRunner.packageRoot.appendingPathComponent("Sounds").standardizedFileURL.path),
            "\(searched)")
    }
}

extension CommandLineTests {
    /// Two missing clips are two problems (the load stopped at the first), then one line of words.
    func testCheckReportsEveryMissingClipAndTheWordsAsOneList() throws {
        try FileManager.default.removeItem(at: work.appendingPathComponent("pack/fifteen.wav"))
        try FileManager.default.removeItem(at: work.appendingPathComponent("pack/pm.wav"))
        let r = try BinaryRunner.run(["check", "--pack", pack])
        XCTAssertEqual(r.status, ExitStatus.packError.rawValue)
        let dir = URL(fileURLWithPath: pack).standardizedFileURL.path
        XCTAssertEqual(
            r.stdout.split(separator: "\n").filter { $0.hasPrefix("problem: ") },
            [
                "problem: Clip 'fifteen' is missing from sound pack directory \(dir) (expected \(dir)/fifteen.wav); add the file or fix its path in pack.json.",
                "problem: Clip 'pm' is missing from sound pack directory \(dir) (expected \(dir)/pm.wav); add the file or fix its path in pack.json.",
                "problem: Sound pack 'fixture' cannot say 731 of 1440 minutes in 12h style; missing words: fifteen, pm. Add a clip with each id to \(dir)/pack.json; 'fifteen', 'pm' are listed but do not load (see above).",
            ])
        XCTAssertEqual(r.stderr, "talking-clock: sound pack 'fixture' has 3 problems.\n")
    }
}

extension CommandLineTests {
    /// A config string holding a newline stays inside its log line (it started a second journal
    /// entry, which could pass for a line the daemon wrote).
    func testAConfigValueWithANewlineStaysOnItsLogLine() throws {
        let config = work.appendingPathComponent("config.toml")
        try #"device = "pulse\n<3>fake: line""#.write(to: config, atomically: true, encoding: .utf8)
        let socket = work.appendingPathComponent("run/control.sock").path
        let daemon = try startDaemon(socket: socket, directory: work, arguments: ["--config", config.path])
        daemon.terminate()
        daemon.waitUntilExit()
        let log = try String(contentsOf: work.appendingPathComponent("daemon.log"), encoding: .utf8)
        let started = log.split(separator: "\n").filter { $0.hasPrefix("<6>started ") }
        XCTAssertEqual(started.count, 1, log)
        XCTAssertTrue(started.first?.contains(#" device="pulse\n<3>fake: line" "#) ?? false, log)
        XCTAssertFalse(log.contains("\n<3>fake"), log)
    }
}

extension CommandLineTests {
    /// A file that cannot be written is named with the system's reason, not Foundation's
    /// "The operation could not be completed. (NSCocoaErrorDomain error 512.)".
    func testAnOutputThatCannotBeWrittenSaysWhyInASentence() throws {
        let file = work.appendingPathComponent("file").path
        FileManager.default.createFile(atPath: file, contents: Data())
        let cases: [(output: String, message: String)] = [
            (work.path, "Could not write \(work.path): Is a directory; give a file name inside it."),
            (
                file + "/x.wav",
                "Could not write \(file)/x.wav: Not a directory; part of the path is a file; choose another path."
            ),
            (
                work.path + "/nodir/x.wav",
                "Could not write \(work.path)/nodir/x.wav: No such file or directory; the directory \(work.path)/nodir does not "
                    + "exist; create it or choose another path."
            ),
        ]
        for c in cases {
            let r = try BinaryRunner.run(["say", "--at", "10:00", "--pack", pack, "--output", c.output])
            XCTAssertEqual(r.status, ExitStatus.cannotWrite.rawValue, c.output)
            XCTAssertEqual(r.stderr, "talking-clock: \(c.message)\n")
        }
    }

    /// `schedule --count -3` is refused for what it is, not as a missing value.
    func testANegativeCountIsRefusedByName() throws {
        let r = try BinaryRunner.run(["schedule", "--tz", "UTC", "--pack", pack, "--count", "-3"])
        XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, r.stderr)
        XCTAssertTrue(r.stderr.contains("--count must be 0 or more, not -3."), r.stderr)
    }

    /// A `pack` in the config that is not found: the error names the config file and its line,
    /// from `say`, `check` and the daemon alike.
    func testAConfiguredPackThatIsNotFoundNamesTheFileAndLine() throws {
        let cfg = work.appendingPathComponent("cfg/talking-clock")
        try FileManager.default.createDirectory(at: cfg, withIntermediateDirectories: true)
        let file = cfg.appendingPathComponent("config.toml")
        try "zone = \"UTC\"\n# mine\npack = \"nosuchpack\"\n".write(to: file, atomically: true, encoding: .utf8)
        let env = ["XDG_CONFIG_HOME": work.appendingPathComponent("cfg").path]
        let expected = "(The pack is set by 'pack' in \(file.path): line 3.)"
        let say = try BinaryRunner.run(["say", "--dry-run"], environment: env)
        XCTAssertEqual(say.status, ExitStatus.packError.rawValue, say.stderr)
        XCTAssertTrue(say.stderr.contains("No sound pack named 'nosuchpack' was found"), say.stderr)
        XCTAssertTrue(say.stderr.contains(expected), say.stderr)
        let check = try BinaryRunner.run(["check"], environment: env)
        XCTAssertTrue(check.stdout.contains(expected), check.stdout)
        let run = try BinaryRunner.run(
            ["run", "--state-dir", work.appendingPathComponent("state").path, "--socket", work.appendingPathComponent("s.sock").path],
            environment: env, timeout: 20)
        XCTAssertEqual(run.status, ExitStatus.packError.rawValue, run.stderr)
        XCTAssertTrue(run.stderr.contains(expected), run.stderr)
        // A --pack on the command line is not blamed on the file.
        let override = try BinaryRunner.run(["say", "--dry-run", "--pack", "/nonexistent/pack"], environment: env)
        XCTAssertFalse(override.stderr.contains("The pack is set by"), override.stderr)
    }

    /// `config-example` shows the defaults: its quiet windows are commented out.
    func testTheExampleConfigEnablesNoQuietWindow() throws {
        let r = try BinaryRunner.run(["config-example"])
        XCTAssertEqual(r.status, 0)
        XCTAssertFalse(r.stdout.split(separator: "\n").contains { $0.hasPrefix("[[quiet]]") }, r.stdout)
        XCTAssertTrue(r.stdout.contains("# [[quiet]]"), r.stdout)
    }
}
