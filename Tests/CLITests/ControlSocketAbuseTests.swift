import Foundation
import Glibc
import TalkingClockCore
import TestSupport
import XCTest

/// The control socket against clients that pipeline many requests or trickle bytes (issue 22).
final class ControlSocketAbuseTests: XCTestCase {
    var dir: URL!
    var daemon: DaemonProcess!

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("ctl-abuse")
        try FixturePack.write(to: dir.appendingPathComponent("pack"))
        daemon = try DaemonProcess(
            [
                "run", "--driver", "external", "--pack", dir.appendingPathComponent("pack").path, "--device",
                "file:FILE=/dev/null", "--state-dir", dir.appendingPathComponent("state").path, "--tz", "UTC",
            ] + ShiftedClock(boundary: ShiftedClock.betweenQuarters, secondsAhead: 0).arguments,
            socket: dir.appendingPathComponent("run/control.sock").path,
            environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path],
            logURL: dir.appendingPathComponent("daemon.log"))
    }

    override func tearDown() {
        if let daemon, daemon.isRunning { daemon.kill9() }
        try? FileManager.default.removeItem(at: dir)
    }

    /// 300 requests in one write: each gets its reply, in order (more than 64 at once were all
    /// dropped unanswered).
    func testThreeHundredPipelinedRequestsAreAllAnswered() throws {
        let fd = try SocketClient.connect(daemon.socket)
        defer { close(fd) }
        var batch = ""
        for i in 0..<300 { batch += i % 2 == 0 ? "status\n" : "bogus-\(i)\n" }
        XCTAssertEqual(SocketClient.send(fd, Array(batch.utf8)), batch.utf8.count)
        let replies = SocketClient.receive(fd, lines: 300).split(separator: "\n").map(String.init)
        XCTAssertEqual(replies.count, 300)
        for (i, reply) in replies.enumerated() {
            if i % 2 == 0 {
                XCTAssertTrue(reply.hasPrefix("ok driver external;"), "\(i): \(reply)")
            } else {
                XCTAssertTrue(reply.hasPrefix("error usage: unknown command 'bogus-\(i)'"), "\(i): \(reply)")
            }
        }
        XCTAssertTrue(daemon.isRunning)
    }

    /// The replies name `unskip`: the CLI has it.
    func testSkipThenUnskipFromTheCommandLine() throws {
        let skip = try BinaryRunner.run(["skip", "--socket", daemon.socket])
        XCTAssertEqual(skip.stdout, "the next announcement will be left out ('unskip' takes it back)\n", skip.stderr)
        let unskip = try BinaryRunner.run(["unskip", "--socket", daemon.socket])
        XCTAssertEqual(unskip.status, 0, unskip.stderr)
        XCTAssertEqual(unskip.stdout, "the next announcement will be spoken\n")
        XCTAssertEqual(try BinaryRunner.run(["unskip", "--socket", daemon.socket]).stdout, "no skip was pending\n")
    }

    /// A fullwidth digit is named, not "non-text bytes".
    func testAFullwidthDigitIsNamed() throws {
        let r = try BinaryRunner.run(["mute", "--for", "５m", "--socket", daemon.socket])
        XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "talking-clock: the request contains '５' (U+FF15), but commands are plain ASCII; write numbers with the digits 0-9, e.g. \"mute for 5m\".\n")
    }

    /// A client that sends one byte every 2 s never finishes a request: it is dropped about 10 s
    /// (the idle limit) after it connected, not kept for as long as it trickles.
    func testAClientTricklingOneByteAtATimeIsDropped() throws {
        let fd = try SocketClient.connect(daemon.socket, receiveTimeout: 0.1)
        defer { close(fd) }
        let start = Date()
        var closedAfter: Double?
        for byte in Array("mute for 30m".utf8) + Array(repeating: UInt8(ascii: " "), count: 20) {
            if SocketClient.send(fd, [byte]) != 1 {
                closedAfter = Date().timeIntervalSince(start)
                break
            }
            // Wait 2 s for the daemon to hang up, reading what it says (nothing, or a close).
            let until = Date().addingTimeInterval(2)
            var buffer = [UInt8](repeating: 0, count: 64)
            while Date() < until, closedAfter == nil {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    closedAfter = Date().timeIntervalSince(start)
                }
            }
            if closedAfter != nil { break }
        }
        let after = try XCTUnwrap(closedAfter, "the trickling client was never dropped")
        XCTAssertGreaterThanOrEqual(after, 9.5)
        XCTAssertLessThan(after, 25)
        XCTAssertTrue(try daemon.request("status json").contains(#""muted":false"#), "the half request ran nothing")
    }
}
