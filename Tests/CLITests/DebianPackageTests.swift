import Foundation
import Glibc
import TestSupport
import XCTest

/// The Debian package, built by scripts/build-deb and installed by scripts/test-deb into a clean
/// Debian 12 root (debootstrap, chroot, apt): --version, check, schedule and say --output run
/// there and find the packs in /usr/share. Costs a release build in .build-deb (the suite's own
/// .build is locked while `swift test` runs), ~25 s of debootstrap once a day and a few seconds
/// of apt.
final class DebianPackageTests: XCTestCase {
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

    func testThePackageInstallsAndRunsInACleanDebianRoot() throws {
        try XCTSkipIf(geteuid() != 0, "scripts/test-deb needs root (debootstrap, chroot, mount)")
        try XCTSkipUnless(
            ["/usr/sbin/debootstrap", "/usr/bin/debootstrap"].contains {
                FileManager.default.isExecutableFile(atPath: $0)
            },
            "debootstrap is not installed: run scripts/install-deps --test")

        let root = BinaryRunner.packageRoot
        let process = Process()
        process.executableURL = root.appendingPathComponent("scripts/test-deb")
        process.arguments = ["--scratch-path", root.appendingPathComponent(".build-deb").path]
        process.currentDirectoryURL = root
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("test-deb-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        // Indented: the script's "N passed, N failed" line is not the suite's closing line.
        print(output.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        print("scripts/test-deb took \(Int(Date().timeIntervalSince(started))) s")
        XCTAssertEqual(process.terminationStatus, 0, "scripts/test-deb failed; its output is above")
        XCTAssertTrue(output.contains("\n10 passed, 0 failed\n"), "every check of scripts/test-deb ran and passed")
    }
}
