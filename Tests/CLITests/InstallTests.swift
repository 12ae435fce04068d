import Foundation
import TestSupport
import XCTest

/// scripts/install and the systemd unit it installs, on a fresh home directory: what the unit
/// assumes (directories that exist, a state directory it may write) must be true after install.
final class InstallTests: XCTestCase {
    var home: URL!
    var runtime: URL { home.appendingPathComponent("run") }

    override func setUpWithError() throws {
        home = FixturePack.temporaryDirectory("home")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    override func tearDown() { try? FileManager.default.removeItem(at: home) }

    /// Runs a script of the repository (or another program) with `home` as HOME, a private runtime
    /// directory and no session bus, so nothing can reach the real user's files or systemd.
    func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> BinaryRunner.Outcome
    {
        let process = Process()
        process.executableURL =
            executable.hasPrefix("/")
            ? URL(fileURLWithPath: executable) : BinaryRunner.packageRoot.appendingPathComponent(executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "DBUS_SESSION_BUS_ADDRESS"] {
            env.removeValue(forKey: key)
        }
        env["HOME"] = home.path
        env["XDG_RUNTIME_DIR"] = runtime.path
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        let err = FixturePack.temporaryDirectory("install-stderr").appendingPathComponent("stderr")
        defer { try? FileManager.default.removeItem(at: err.deletingLastPathComponent()) }
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return BinaryRunner.Outcome(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// The `[Service]` settings of a unit file: key → values in order (keys may repeat).
    func serviceSettings(_ unit: String) -> [String: [String]] {
        var settings: [String: [String]] = [:]
        var inService = false
        for raw in unit.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                inService = line == "[Service]"
                continue
            }
            guard inService, !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<eq]), default: []].append(String(line[line.index(after: eq)...]))
        }
        return settings
    }

    /// %h and %t as a user manager expands them here; any other specifier fails the test: %S and
    /// StateDirectory= mean ~/.config in user units before systemd 254, so the unit must not need them.
    func expand(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        let expanded = path.replacingOccurrences(of: "%h", with: home.path).replacingOccurrences(
            of: "%t", with: runtime.path)
        if expanded.contains("%") { XCTFail("\(path): the test only knows %h and %t", file: file, line: line) }
        return expanded
    }

    func testAFreshInstallCreatesEveryDirectoryTheUnitNames() throws {
        let install = try run("scripts/install", ["--binary", BinaryRunner.binary.path, "--no-enable"])
        XCTAssertEqual(install.status, 0, install.stdout + install.stderr)
        let unitURL = home.appendingPathComponent(".config/systemd/user/talking-clock.service")
        let unit = try String(contentsOf: unitURL, encoding: .utf8)
        let service = serviceSettings(unit)
        XCTAssertNil(service["StateDirectory"], "StateDirectory= is ~/.config/talking-clock before systemd 254")

        let writable = (service["ReadWritePaths"] ?? []).flatMap { $0.split(separator: " ").map(String.init) }
        XCTAssertFalse(writable.isEmpty)
        let created = (service["ExecStartPre"] ?? []).filter { $0.hasPrefix("+") && $0.contains("/mkdir -p") }.joined(
            separator: " ")
        for entry in writable where !entry.hasPrefix("-") {  // "-": may be missing
            var isDirectory: ObjCBool = false
            let path = expand(entry)
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue,
                "ReadWritePaths=\(entry): \(path) does not exist after install, and systemd refuses to start the unit")
            if entry != "%t" {
                XCTAssertTrue(
                    created.split(separator: " ").contains(Substring(entry)),
                    "the unit does not create \(entry) if it goes missing")
            }
        }

        // The daemon's state directory is one it may write in the sandbox (ProtectSystem=strict).
        let start = try XCTUnwrap(service["ExecStart"]?.first).split(separator: " ").map(String.init)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: start[0]), "\(start[0]) is installed")
        let stateDirectory = try XCTUnwrap(start.firstIndex(of: "--state-dir").map { expand(start[$0 + 1]) })
        XCTAssertTrue(
            writable.map { expand($0.hasPrefix("-") ? String($0.dropFirst()) : $0) }.contains {
                stateDirectory == $0 || stateDirectory.hasPrefix($0 + "/")
            }, "the state directory \(stateDirectory) is not in ReadWritePaths=\(writable)")

        // systemd's own check of the installed unit, where a user manager can be asked.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let verify = try run("/usr/bin/systemd-analyze", ["verify", "--user", unitURL.path])
            if verify.stderr.contains("Failed to initialize manager") {
                print("systemd-analyze cannot run here: \(verify.stderr)")
            } else {
                XCTAssertEqual(verify.status, 0, verify.stderr)
                XCTAssertEqual(verify.stderr, "")
            }
        }

        let uninstall = try run("scripts/uninstall", [])
        XCTAssertEqual(uninstall.status, 0, uninstall.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: unitURL.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: start[0]))
        XCTAssertTrue(FileManager.default.fileExists(atPath: stateDirectory), "the state stays without --purge")
        XCTAssertEqual(try run("scripts/uninstall", ["--purge"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stateDirectory))
    }

    func testHelpIsAUsageText() throws {
        for script in ["install", "uninstall"] {
            let help = try run("scripts/\(script)", ["--help"])
            XCTAssertEqual(help.status, 0, help.stderr)
            XCTAssertTrue(help.stdout.hasPrefix("Usage: scripts/\(script) ["), help.stdout)
            XCTAssertTrue(help.stdout.contains("\n  -h, --help       show this text\n"), help.stdout)
            XCTAssertFalse(
                help.stdout.split(separator: "\n").contains { $0.hasPrefix("#") || $0.contains("set -") }, help.stdout)
            let bad = try run("scripts/\(script)", ["--bogus"])
            XCTAssertEqual(bad.status, 64)
            XCTAssertEqual(bad.stderr, "\(script): unknown option '--bogus' (see scripts/\(script) --help)\n")
        }
    }

    /// Issue 22, item 10: scripts/install installs the man page and the bash, zsh and fish
    /// completions (it installed neither), and scripts/uninstall removes them. The completions are
    /// the installed binary's own; the man page comes from swift-argument-parser's generate-manual,
    /// which the test cannot build while `swift test` holds .build, so a stand-in records how it is
    /// called (the real tool runs in scripts/build-deb, and test-deb checks the packaged page).
    func testInstallsTheManPageAndTheCompletionsAndUninstallRemovesThem() throws {
        let tool = home.appendingPathComponent("generate-manual")
        try Data(
            """
            #!/bin/sh
            # generate-manual TOOL --output-directory DIR --date D
            [ "$2" = --output-directory ] || exit 9
            printf '.Dd %s\\n.Dt TALKING-CLOCK 1\\n.Sh NAME\\n.Nm talking-clock\\n%s\\n' "$4" "$1" > "$3/talking-clock.1"
            """.utf8
        ).write(to: tool)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        let install = try run(
            "scripts/install", ["--binary", BinaryRunner.binary.path, "--no-enable"], environment: ["GENERATE_MANUAL": tool.path])
        XCTAssertEqual(install.status, 0, install.stdout + install.stderr)
        let share = home.appendingPathComponent(".local/share")
        let page = try String(contentsOf: share.appendingPathComponent("man/man1/talking-clock.1"), encoding: .utf8)
        XCTAssertTrue(page.hasPrefix(".Dd "), page)
        XCTAssertTrue(page.hasSuffix("\n" + home.path + "/.local/bin/talking-clock\n"), "made from the installed binary: \(page)")

        let completions = [
            ("bash", "bash-completion/completions/talking-clock"), ("zsh", "zsh/site-functions/_talking-clock"),
            ("fish", "fish/vendor_completions.d/talking-clock.fish"),
        ]
        for (shell, path) in completions {
            let installed = try String(contentsOf: share.appendingPathComponent(path), encoding: .utf8)
            let expected = try BinaryRunner.run(["--generate-completion-script", shell])
            XCTAssertEqual(expected.status, 0, expected.stderr)
            XCTAssertFalse(installed.isEmpty, shell)
            XCTAssertEqual(installed, expected.stdout, "\(path) is the binary's own \(shell) completion script")
            XCTAssertTrue(installed.contains("announce"), "\(shell) completes the subcommands")
        }
        XCTAssertTrue(install.stdout.contains("man page in \(share.path)/man/man1"), install.stdout)

        let uninstall = try run("scripts/uninstall", [])
        XCTAssertEqual(uninstall.status, 0, uninstall.stderr)
        for path in ["man/man1/talking-clock.1"] + completions.map(\.1) {
            XCTAssertFalse(FileManager.default.fileExists(atPath: share.appendingPathComponent(path).path), path)
        }
    }
}
