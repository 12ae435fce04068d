import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// Hints that named the wrong cause or no way out (issue 29, low items and new-user findings).
final class NewUserHintTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("hints")
        try FixturePack.write(to: dir.appendingPathComponent("pack"))
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    var pack: String { dir.appendingPathComponent("pack").path }

    func testNoSoundCardPointsToOutputAndDryRun() throws {
        let r = try BinaryRunner.run(["say", "--local", "--at", "09:05", "--device", "hw:7,0", "--pack", pack])
        XCTAssertEqual(r.status, ExitStatus.deviceError.rawValue, r.stderr)
        XCTAssertTrue(r.stderr.contains("List devices with 'aplay -L' and pass one with --device."), r.stderr)
        XCTAssertTrue(
            r.stderr.hasSuffix(
                " Without a sound card, write the samples to a file with --output FILE.wav, or print the words with --dry-run.\n"),
            r.stderr)
    }

    func testATzTypoGetsDidYouMean() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/tzdata.zi"), "needs tzdata")
        let r = try BinaryRunner.run(["say", "--dry-run", "--at", "09:05", "--tz", "Europe/Londn", "--pack", pack])
        XCTAssertEqual(r.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(
            r.stderr.hasPrefix("talking-clock: --tz 'Europe/Londn' is not a time zone (did you mean 'Europe/London'?): there is no zone file"),
            r.stderr)
        let env = try BinaryRunner.run(["say", "--dry-run", "--at", "09:05", "--pack", pack], environment: ["TZ": "america/new_york"])
        XCTAssertTrue(env.stderr.contains("TZ='america/new_york' is not a time zone (did you mean 'America/New_York'?)"), env.stderr)
    }

    /// `TZ=:/dev/zero` was "there is no zone file /dev/zero": it is there, and a device.
    func testAZoneThatIsADeviceOrADirectorySaysSo() throws {
        let r = try BinaryRunner.run(["say", "--dry-run", "--at", "09:05", "--pack", pack], environment: ["TZ": ":/dev/zero"])
        XCTAssertEqual(r.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(r.stderr.contains("the zone file /dev/zero cannot be read (it is a device, not a file)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("there is no zone file"), r.stderr)
        let d = try BinaryRunner.run(["say", "--dry-run", "--at", "09:05", "--pack", pack, "--tz", dir.path])
        XCTAssertTrue(d.stderr.contains("cannot be read (it is a directory, not a file)"), d.stderr)
    }

    /// A pack "directory" that is a named pipe or a loop of symbolic links "did not exist".
    func testAPackPathThatIsAPipeOrALoopSaysSo() throws {
        let fifo = dir.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let a = dir.appendingPathComponent("loop-a").path
        let b = dir.appendingPathComponent("loop-b").path
        XCTAssertEqual(symlink(b, a), 0)
        XCTAssertEqual(symlink(a, b), 0)
        let file = dir.appendingPathComponent("pack/pack.json").path
        let cases = [
            (fifo, "Sound pack directory \(fifo) is a named pipe, not a directory; pass --pack with a directory that contains pack.json."),
            (a, "Sound pack directory \(a) is a loop of symbolic links; fix the links, or pass --pack with a directory that contains pack.json."),
            (file, "Sound pack directory \(file) is a file, not a directory; pass --pack with the directory that contains pack.json (\(dir.appendingPathComponent("pack").path))."),
        ]
        for (path, sentence) in cases {
            let r = try BinaryRunner.run(["check", "--pack", path])
            XCTAssertEqual(r.status, ExitStatus.packError.rawValue, path)
            XCTAssertTrue(r.stdout.contains("problem: " + sentence), r.stdout)
        }
        let none = try BinaryRunner.run(["check", "--pack", dir.appendingPathComponent("nothing").path])
        XCTAssertTrue(none.stdout.contains("does not exist"), none.stdout)
    }

    /// `--language` completes to the shipped languages and variants (it offered nothing).
    func testLanguageCompletionOffersTheShippedLanguages() throws {
        var bash = ""
        for shell in ["bash", "zsh", "fish"] {
            let r = try BinaryRunner.run(["--generate-completion-script", shell])
            XCTAssertEqual(r.status, 0, r.stderr)
            for tag in ["en-US", "en-GB", "de-AT", "es-419", "ru"] {
                XCTAssertTrue(r.stdout.contains(tag), "\(shell) completion lacks \(tag)")
            }
            if shell == "bash" { bash = r.stdout }
        }
        let words = ["en-US", "en-GB", "de", "de-AT", "fr", "es", "es-419", "it", "nl", "pl", "ru"].map { "'\($0)'" }
        XCTAssertTrue(
            bash.contains("'--language')\n        __talking-clock_add_completions -W " + words.joined(separator: "$'\\n'")),
            "bash offers them as the words of --language")
    }

    func testTriggerExplainsTheWaitItDoesNotTake() throws {
        let r = try BinaryRunner.run(["trigger", "--help"])
        XCTAssertEqual(r.status, 0)
        let help = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(help.contains("more than a trigger waits (60 s)"), help)
        XCTAssertFalse(help.contains("more than --max-wait"), "trigger has no --max-wait: \(help)")
        XCTAssertTrue(help.contains("use 'announce --next --max-wait N'"), help)
    }

    /// A reload decodes the pack before it replies: the CLI waits for it (and says what for)
    /// instead of giving up after 10 s with "may be stopped or hung". The stand-in daemon answers
    /// 11 s after the request.
    func testAReloadThatTakesLongerThanTenSecondsIsWaitedFor() throws {
        let socket = dir.appendingPathComponent("run/control.sock")
        try FileManager.default.createDirectory(
            at: socket.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let peer = try HostilePeer(unixPath: socket.path) { _ in Array("ok reloaded\n".utf8) }
        peer.answerDelay = 11
        defer { peer.stop() }
        let r = try BinaryRunner.run(["reload", "--socket", socket.path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "reloaded\n")
        XCTAssertEqual(
            r.stderr,
            "talking-clock: waiting for the daemon to finish the reload (reading the config and decoding every clip of the pack) (at most 300 s)…\n")
        XCTAssertEqual(peer.firstReads.first.map { String(decoding: $0, as: UTF8.self) }, "reload\n")
    }
}
