import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// The CLI as users meet it: the built binary, exact stdout and exit codes.
final class CLITests: XCTestCase {
    var pack: URL!

    override func setUpWithError() throws {
        pack = FixturePack.temporaryDirectory("cli")
        try FixturePack.write(to: pack, ids: FixturePack.fullVocabulary.filter { $0 != "forty-five" })
    }

    override func tearDown() { try? FileManager.default.removeItem(at: pack) }

    func run(_ args: [String]) throws -> BinaryRunner.Outcome { try BinaryRunner.run(args) }

    func testScheduleJSONAcrossFallBack() throws {
        let r = try run(["schedule", "--from", "2026-11-01T01:30", "--count", "4", "--tz", "America/New_York", "--json", "--pack", pack.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.stdout,
            """
            {"anchor_offset_ms":0,"at":"2026-11-01T01:45:00-04:00","chime":"none","clips":["one","forty","five","am"],"decision":"speak","language":"en-US","strikes":0,"text":"one forty-five AM","utc":"2026-11-01T05:45:00Z","volume":100}
            {"anchor_offset_ms":0,"at":"2026-11-01T01:00:00-05:00","chime":"hour","clips":["chime","one","am"],"decision":"speak","language":"en-US","strikes":1,"text":"one AM","utc":"2026-11-01T06:00:00Z","volume":100}
            {"anchor_offset_ms":0,"at":"2026-11-01T01:15:00-05:00","chime":"none","clips":["one","fifteen","am"],"decision":"speak","language":"en-US","strikes":0,"text":"one fifteen AM","utc":"2026-11-01T06:15:00Z","volume":100}
            {"anchor_offset_ms":0,"at":"2026-11-01T01:30:00-05:00","chime":"none","clips":["one","thirty","am"],"decision":"speak","language":"en-US","strikes":0,"text":"one thirty AM","utc":"2026-11-01T06:30:00Z","volume":100}

            """)
    }

    func testScheduleText() throws {
        let r = try run(["schedule", "--from", "2026-06-01T23:50:00+05:45", "--count", "2", "--tz", "Asia/Kathmandu", "--pack", pack.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "2026-06-02T00:00:00+05:45  midnight  [chime midnight]  hour: 1 strike, anchor +0.000 s\n2026-06-02T00:15:00+05:45  twelve fifteen AM  [twelve fifteen am]\n")
    }

    func testSayDryRun() throws {
        let r = try run(["say", "--at", "15:45", "--dry-run", "--pack", pack.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "three forty-five PM\nclips: three forty five pm\n")
        let noon = try run(["say", "--at", "12:00", "--dry-run", "--pack", pack.path])
        XCTAssertEqual(noon.stdout, "noon\nclips: chime noon\nchime: hour, 1 strike, anchor +0.000 s\n")
    }

    func testSayOutputWritesTheExactSamples() throws {
        let out = pack.appendingPathComponent("say.wav")
        let r = try run(["say", "--at", "09:05", "--output", out.path, "--pack", pack.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let data = try Data(contentsOf: out)
        let expected = ["nine", "oh", "five", "am"].flatMap { FixturePack.signal(for: $0, frames: 200 + $0.utf8.count * 10, channels: 1) }
        let samples = stride(from: 44, to: data.count, by: 2).map { Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8) }
        XCTAssertEqual(samples, expected)
    }

    func testErrorsHaveDistinctCodesAndSentences() throws {
        let badTime = try run(["say", "--at", "25:00", "--dry-run", "--pack", pack.path])
        XCTAssertEqual(badTime.status, ExitStatus.badInput.rawValue)
        XCTAssertEqual(badTime.stderr, "talking-clock: --at: \"25:00\" is not a time of day: use 24-hour HH:MM, such as 07:30 or 15:45.\n")
        XCTAssertEqual(badTime.stdout, "")

        let badZone = try run(["schedule", "--tz", "Mars/Olympus", "--pack", pack.path])
        XCTAssertEqual(badZone.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(badZone.stderr.contains("--tz 'Mars/Olympus' is not a time zone"), badZone.stderr)

        let noPack = try run(["say", "--dry-run", "--pack", "/nonexistent/pack"])
        XCTAssertEqual(noPack.status, ExitStatus.packError.rawValue)
        XCTAssertEqual(noPack.stderr, "talking-clock: Sound pack directory /nonexistent/pack does not exist; pass --pack with a directory that contains pack.json.\n")

        let noDevice = try run(["say", "--at", "10:10", "--device", "hw:CARD=NoSuchCard", "--pack", pack.path])
        XCTAssertEqual(noDevice.status, ExitStatus.deviceError.rawValue)
        XCTAssertTrue(noDevice.stderr.hasPrefix("talking-clock: Could not open ALSA device \"hw:CARD=NoSuchCard\""), noDevice.stderr)

        // The device is opened while the pack loads: a bad pack is still the error reported (and
        // the half-opened device is closed without a crash).
        let both = try run(["say", "--at", "10:10", "--device", "hw:CARD=NoSuchCard", "--pack", "/nonexistent/pack"])
        XCTAssertEqual(both.status, ExitStatus.packError.rawValue)
        XCTAssertEqual(both.stderr, noPack.stderr)
        let badPackGoodDevice = try run(["say", "--at", "10:10", "--device", "file:FILE=/dev/null", "--pack", "/nonexistent/pack"])
        XCTAssertEqual(badPackGoodDevice.status, ExitStatus.packError.rawValue)

        let unknownOption = try run(["schedule", "--bogus"])
        XCTAssertEqual(unknownOption.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(unknownOption.stderr.contains("--bogus"), unknownOption.stderr)

        let badCount = try run(["schedule", "--count", "-3", "--pack", pack.path])
        XCTAssertEqual(badCount.status, ExitStatus.badInput.rawValue)
    }

    func testCheckReportsEveryProblemAndFails() throws {
        try FileManager.default.removeItem(at: pack.appendingPathComponent("oh.wav"))
        try Data("garbage".utf8).write(to: pack.appendingPathComponent("pm.wav"))
        let r = try run(["check", "--pack", pack.path])
        XCTAssertEqual(r.status, ExitStatus.packError.rawValue)
        XCTAssertTrue(r.stdout.contains("problem: Clip 'oh' is missing from sound pack directory"), r.stdout)
        let ok = FixturePack.temporaryDirectory("cli-ok")
        defer { try? FileManager.default.removeItem(at: ok) }
        try FixturePack.write(to: ok)
        let good = try run(["check", "--pack", ok.path, "--device", "file:FILE=/dev/null"])
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
        XCTAssertTrue(good.stdout.contains("all 1440 minutes can be said"), good.stdout)
        let badDevice = try run(["check", "--pack", ok.path, "--device", "hw:CARD=NoSuchCard"])
        XCTAssertEqual(badDevice.status, ExitStatus.deviceError.rawValue)
    }

    /// libsndfile is loaded when a clip is first decoded, not at start: without it, commands that
    /// need no audio still work, and those that do say what to install.
    func testMissingLibsndfileIsASentenceAndOnlyAudioCommandsNeedIt() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            throw XCTSkip("needs root and unshare(1) to hide libsndfile in a private mount namespace")
        }
        let library = URL(fileURLWithPath: "/lib/x86_64-linux-gnu/libsndfile.so.1").resolvingSymlinksInPath().path
        guard FileManager.default.fileExists(atPath: library) else { throw XCTSkip("libsndfile.so.1 is not at \(library)") }
        let wrapper = pack.appendingPathComponent("hide-libsndfile.sh")
        try "#!/bin/sh\nmount --bind /dev/null \"$1\" || exit 99\nshift\nexec \"$@\"\n".write(to: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper.path, 0o755)
        func hidden(_ args: [String]) throws -> BinaryRunner.Outcome {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            p.arguments = ["-m", wrapper.path, library, BinaryRunner.binary.path] + args
            let out = Pipe()
            let err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            let o = out.fileHandleForReading.readDataToEndOfFile()
            let e = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return .init(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
        }
        let schedule = try hidden(["schedule", "--from", "2026-06-01T10:00:00Z", "--count", "1", "--tz", "UTC", "--pack", pack.path])
        if schedule.status == 99 { throw XCTSkip("cannot bind-mount in a mount namespace here") }
        XCTAssertEqual(schedule.status, 0, schedule.stderr)
        XCTAssertEqual(schedule.stdout, "2026-06-01T10:15:00+00:00  ten fifteen AM  [ten fifteen am]\n")
        let say = try hidden(["say", "--at", "10:15", "--output", pack.appendingPathComponent("x.wav").path, "--pack", pack.path])
        XCTAssertEqual(say.status, ExitStatus.packError.rawValue, say.stderr)
        XCTAssertTrue(say.stderr.hasPrefix("talking-clock: libsndfile could not be loaded ("), say.stderr)
        XCTAssertTrue(say.stderr.hasSuffix("install it (Debian/Ubuntu: apt install libsndfile1).\n"), say.stderr)
        let check = try hidden(["check", "--pack", pack.path])
        XCTAssertEqual(check.status, ExitStatus.packError.rawValue)
        XCTAssertTrue((check.stdout + check.stderr).contains("apt install libsndfile1"), check.stdout + check.stderr)
    }

    func testHelpListsExitCodes() throws {
        let r = try run(["--help"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.contains("69\tsound device missing, busy or failed"), r.stdout)
        XCTAssertTrue(r.stdout.contains("64\tbad option, argument, zone or configuration"), r.stdout)
    }
}
