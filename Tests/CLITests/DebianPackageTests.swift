import Foundation
import Glibc
import TestSupport
import XCTest

/// The Debian package, built by scripts/build-deb and installed by scripts/test-deb into a clean
/// Debian 12 root (debootstrap, chroot, apt): --version, check, schedule and say --output run
/// there and find the packs in /usr/share. Costs a release build (the suite's own .build is locked
/// while `swift test` runs), ~25 s of debootstrap once a day and a few seconds of apt. The release
/// build is kept beside test-deb's debootstrap cache in /var/tmp, one per checkout, never in the
/// checkout itself (it is 219 MB); SwiftPM's lock files go to a private TMPDIR removed afterwards.
/// Named to run last among the CLI's suites: the package check it waits for runs beside them.
final class TheDebianPackageTests: XCTestCase {
    /// The scripts' usage texts, and a bad option refused with exit 64 (no root needed).
    func testHelpIsAUsageText() throws {
        for script in ["build-deb", "test-deb"] {
            for (arguments, status) in [(["--help"], Int32(0)), (["--bogus"], 64)] {
                let process = Process()
                process.executableURL = BinaryRunner.packageRoot.appendingPathComponent("scripts/\(script)")
                process.arguments = arguments
                let out = Pipe()
                let err = Pipe()
                process.standardOutput = out
                process.standardError = err
                try process.run()
                let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                XCTAssertEqual(process.terminationStatus, status, "\(script) \(arguments): \(stderr)")
                if status == 0 {
                    XCTAssertTrue(stdout.hasPrefix("Usage: scripts/\(script) ["), stdout)
                    XCTAssertTrue(stdout.contains("\n  -h, --help "), stdout)
                } else {
                    XCTAssertEqual(stderr, "\(script): unknown option '--bogus' (see scripts/\(script) --help)\n")
                }
            }
        }
    }

    /// Issue 22, item 10: the README's one-line .deb install failed for root without sudo (a root
    /// shell on a fresh Debian often has none). Every documented command line that builds the
    /// package must work as root and as a user: no `sudo` of its own (build-deb --install decides),
    /// and only options scripts/build-deb accepts.
    func testTheDocumentedPackageLinesNeedNoSudoAndUseRealOptions() throws {
        let help = try String(
            decoding: {
                let process = Process()
                process.executableURL = BinaryRunner.packageRoot.appendingPathComponent("scripts/build-deb")
                process.arguments = ["--help"]
                let out = Pipe()
                process.standardOutput = out
                try process.run()
                defer { process.waitUntilExit() }
                return out.fileHandleForReading.readDataToEndOfFile()
            }(), as: UTF8.self)
        var lines: [String] = []
        for file in ["README.md", "docs/install.md"] {
            let text = try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent(file), encoding: .utf8)
            lines += text.split(separator: "\n").map(String.init).filter { $0.contains("scripts/build-deb ") && $0.contains("&&") }
        }
        XCTAssertFalse(lines.isEmpty, "the README shows how to build and install the package")
        for line in lines {
            XCTAssertFalse(line.split(separator: " ").contains("sudo"), "fails for root without sudo: \(line)")
            let command = line.components(separatedBy: "scripts/build-deb ")[1].components(separatedBy: "&&")[0]
            for word in command.split(separator: " ") where word.hasPrefix("--") {
                let option = word.prefix { $0.isLetter || $0 == "-" }
                XCTAssertTrue(help.contains("\n  \(option) "), "\(option) is not an option of scripts/build-deb: \(line)")
            }
        }
    }

    func testThePackageInstallsAndRunsInACleanDebianRoot() throws {
        try XCTSkipIf(geteuid() != 0, "scripts/test-deb needs root (debootstrap, chroot, mount)")
        try XCTSkipUnless(
            ["/usr/sbin/debootstrap", "/usr/bin/debootstrap"].contains {
                FileManager.default.isExecutableFile(atPath: $0)
            },
            "debootstrap is not installed: run scripts/install-deps --test")

        let root = BinaryRunner.packageRoot
        let output: String
        let status: Int32
        if let log = ProcessInfo.processInfo.environment["TALKING_CLOCK_PACKAGE_CHECK"] {
            // Started with the suite, beside the other tests (TestEnvironment): wait for its end.
            (output, status) = try Self.waitForBackgroundCheck(log: log)
            print("scripts/test-deb ran beside the other tests, started with the suite")
        } else {
            let started = Date()
            (output, status) = try Self.runCheck(root: root)
            print("scripts/test-deb took \(Int(Date().timeIntervalSince(started))) s")
        }
        // Indented: the script's "N passed, N failed" line is not the suite's closing line.
        print(output.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        XCTAssertEqual(status, 0, "scripts/test-deb failed; its output is above")
        // Every check ran and passed: 13 on a machine with no sound card (the default-device
        // checks are skipped, and say so, where a card is present).
        let summary = output.split(separator: "\n").last { $0.hasSuffix(" passed, 0 failed") }
        let passed = summary.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        XCTAssertTrue(passed >= 10 && (passed == 13 || output.contains("sound card")), "every check of scripts/test-deb ran and passed")
        let scratch = Self.scratchPath(checkout: root.path)
        XCTAssertFalse(scratch.hasPrefix(root.path + "/"), scratch)
        XCTAssertTrue(
            FileManager.default.isExecutableFile(atPath: scratch + "/release/talking-clock"),
            "the package's release build is in \(scratch), outside the checkout")
    }

    /// Waits for the check the test process started in the background (its log and, once it ended,
    /// LOG.status); half an hour at most.
    static func waitForBackgroundCheck(log: String) throws -> (String, Int32) {
        let statusFile = log + ".status"
        let deadline = Date().addingTimeInterval(1800)
        while !FileManager.default.fileExists(atPath: statusFile) {
            guard Date() < deadline else {
                return ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "", -1)
            }
            usleep(200_000)
        }
        let status = Int32((try String(contentsOfFile: statusFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        return ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "", status)
    }

    /// Runs scripts/test-deb now and returns its output and exit status.
    static func runCheck(root: URL) throws -> (String, Int32) {
        let process = Process()
        process.executableURL = root.appendingPathComponent("scripts/test-deb")
        process.arguments = ["--scratch-path", Self.scratchPath(checkout: root.path)]
        process.currentDirectoryURL = root
        let tmp = FixturePack.temporaryDirectory("test-deb-tmp")
        defer { try? FileManager.default.removeItem(at: tmp) }
        var env = ProcessInfo.processInfo.environment
        // swift build needs the user's own SwiftPM cache (the dependencies without the network).
        if let home = PrivateEnvironment.userHome { env["HOME"] = home }
        env["TMPDIR"] = tmp.path
        process.environment = env
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("test-deb-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return ((try? String(contentsOf: log, encoding: .utf8)) ?? "", process.terminationStatus)
    }

    /// Where the test's release build lives: /var/tmp/talking-clock-test-deb/build_<checkout path, / as _>,
    /// beside scripts/test-deb's debootstrap cache, so a second run is incremental and the checkout
    /// stays clean.
    static func scratchPath(checkout: String) -> String {
        let name = checkout.map { $0.isLetter || $0.isNumber || $0 == "-" ? String($0) : "_" }.joined()
        return "/var/tmp/talking-clock-test-deb/build" + name
    }
}
