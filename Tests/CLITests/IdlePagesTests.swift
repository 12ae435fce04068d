import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// The idle daemon hands its code pages back to the page cache after start-up and after each
/// announcement (Daemon/CodePages.swift); `TALKING_CLOCK_KEEP_CODE_PAGES=1` keeps them. Two daemons
/// from the same binary, one of each, both on a fake clock ten minutes from any boundary, on the
/// ALSA `null` device.
final class IdlePagesTests: XCTestCase {
    var dir: URL!
    var daemons: [DaemonProcess] = []

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("idle-pages")
        try FixturePack.write(
            to: dir.appendingPathComponent("pack"), framesPerClip: { _ in 4410 },
            format: StreamFormat(sampleRate: 22050, channels: 1))
    }

    override func tearDown() {
        for d in daemons { d.stop() }
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    private func start(_ name: String, keep: Bool) throws -> DaemonProcess {
        let d = try DaemonProcess(
            [
                "run", "--pack", dir.appendingPathComponent("pack").path, "--device", "null", "--tz", "UTC",
                "--fake-clock", "2026-07-01T12:05:00Z", "--state-dir", dir.appendingPathComponent("\(name)/state").path,
            ],
            socket: dir.appendingPathComponent("\(name)/control.sock").path,
            environment: [
                "XDG_CONFIG_HOME": dir.appendingPathComponent("\(name)/cfg").path,
                "TALKING_CLOCK_KEEP_CODE_PAGES": keep ? "1" : "0",
            ],
            logURL: dir.appendingPathComponent("\(name).log"))
        daemons.append(d)
        return d
    }

    /// Resident kB of the daemon's own executable code (its `r-xp` mappings), from /proc/PID/smaps.
    private func codeKB(_ d: DaemonProcess) throws -> Int {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(d.pid)/exe")
        let smaps = try String(contentsOfFile: "/proc/\(d.pid)/smaps", encoding: .utf8)
        var total = 0
        var inCode = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":"), fields.count >= 6 {
                inCode = fields[1] == "r-xp" && fields[5...].joined(separator: " ") == exe
            } else if inCode, fields.first == "Rss:", fields.count >= 2, let kB = Int(fields[1]) {
                total += kB
            }
        }
        return total
    }

    func testTheIdleDaemonKeepsFarLessOfItsCodeResidentThanOneThatKeepsItsPages() throws {
        let released = try start("released", keep: false)
        let kept = try start("kept", keep: true)
        // Both have started and answered `status` (DaemonProcess waits for it).
        var releasedKB = try codeKB(released)
        var keptKB = try codeKB(kept)
        XCTAssertGreaterThan(keptKB, 1024, "the daemon that keeps its pages has its start-up code resident")
        // What both ran since start-up (`status`, and the kernel's fault-around with it) is resident in
        // both; the start-up code only in the one that keeps its pages: at least 1 MB even in a debug build.
        XCTAssertLessThan(releasedKB + 1024, keptKB, "after start-up: released \(releasedKB) kB, kept \(keptKB) kB")

        // One announcement each, then idle again.
        for d in [released, kept] {
            XCTAssertTrue(try d.request("say").hasPrefix("ok"))
            XCTAssertTrue(d.waitForLog("<6>spoke", timeout: 30), d.log)
            _ = try d.request("status")
        }
        releasedKB = try codeKB(released)
        keptKB = try codeKB(kept)
        XCTAssertLessThan(releasedKB + 1024, keptKB, "after an announcement: released \(releasedKB) kB, kept \(keptKB) kB")
        // Still a working clock.
        XCTAssertTrue(try released.request("status").hasPrefix("ok"))
        XCTAssertEqual(released.logLines(containing: "<6>spoke").count, 1)
    }
}
