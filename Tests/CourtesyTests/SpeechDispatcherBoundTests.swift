import Foundation
import SpeechDispatcher
import TestSupport
import XCTest

/// Every SSIP exchange is bounded (issue 29, item 4): a peer that accepts and never replies, a
/// real speech-dispatcher that is stopped (SIGSTOP), one that refuses, one that is not there.
/// Before, libspeechd's blocking read waited for ever and the daemon's speech job with it: every
/// later boundary logged "speech-dispatcher busy".
final class SpeechDispatcherBoundTests: XCTestCase {
    var dir: URL!

    override func setUp() {
        // Short: a Unix socket path is at most 107 bytes.
        dir = URL(fileURLWithPath: "/tmp/tc-spd-\(getpid())-\(UUID().uuidString.prefix(6))")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// Runs `body` on its own thread and waits at most `limit` seconds for it: a call that never
    /// returns fails the test instead of hanging the suite.
    static func bounded<T>(_ limit: Double, _ body: @escaping () -> T) -> (value: T?, seconds: Double) {
        let done = DispatchSemaphore(value: 0)
        let box = Box<T>()
        let start = Date()
        let work = Box<() -> T>()
        work.value = body
        Thread {
            box.value = work.value!()
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + limit) == .success else { return (nil, limit) }
        return (box.value, Date().timeIntervalSince(start))
    }

    final class Box<T>: @unchecked Sendable { var value: T? }

    func testAPeerThatNeverRepliesTimesOutAndIsRetried() throws {
        let path = dir.appendingPathComponent("s.sock").path
        let peer = try HostilePeer(unixPath: path, readTimeout: 1) { _ in nil }
        defer { peer.stop() }
        let speaker = SpeechDispatcher(socketPath: path, autospawn: false, timeout: 0.5)
        let first = Self.bounded(10) { speaker.speak("It is three forty-five PM") }
        let result = try XCTUnwrap(first.value, "speak did not return within 10 s")
        XCTAssertEqual(
            result,
            .timedOut(seconds: 0.5, reason: "speech-dispatcher accepted the connection but did not answer within 0.5 s"))
        XCTAssertGreaterThanOrEqual(first.seconds, 0.5)
        XCTAssertLessThan(first.seconds, 5)
        XCTAssertFalse(speaker.isConnected, "a connection that failed is dropped")
        XCTAssertTrue(result.text.contains("the clock tries a new connection next time"), result.text)
        // The next use opens a new connection (and is bounded again).
        let second = Self.bounded(10) { speaker.speak("It is four PM") }
        XCTAssertEqual(second.value?.isQueued, false)
        XCTAssertEqual(peer.connections, 2)
        XCTAssertTrue(peer.firstReads.allSatisfy { String(decoding: $0, as: UTF8.self).hasPrefix("SET SELF CLIENT_NAME") })
    }

    /// Greets, then answers the priority with an error: the message is refused (not timed out).
    func testAnErrorReplyIsARefusal() throws {
        let path = dir.appendingPathComponent("r.sock").path
        let peer = try HostilePeer(unixPath: path) { _ in
            Array("208 OK CLIENT NAME SET\r\n410 ERR PRIORITY NOT SET\r\n".utf8)
        }
        defer { peer.stop() }
        let speaker = SpeechDispatcher(socketPath: path, autospawn: false, timeout: 2)
        let r = try XCTUnwrap(Self.bounded(10) { speaker.speak("x") }.value)
        XCTAssertEqual(r, .refused(reason: "speech-dispatcher refused the message (spd_say returned -1)"))
        XCTAssertFalse(speaker.isConnected)
    }

    func testNoServerIsNotRunningAndSaysHowToStartIt() throws {
        let path = dir.appendingPathComponent("none.sock").path
        let speaker = SpeechDispatcher(socketPath: path, autospawn: false, timeout: 2)
        let r = try XCTUnwrap(Self.bounded(10) { speaker.speak("x") }.value)
        XCTAssertEqual(
            r,
            .notRunning(reason: "could not connect to speech-dispatcher (Error: Can't connect to unix socket \(path): No such file or directory. Autospawn: Autospawn disabled)"))
        XCTAssertTrue(
            r.text.hasSuffix("; start it ('speech-dispatcher', Debian/Ubuntu package speech-dispatcher) or set voice-output = \"clips\""), r.text)
        // The old throwing surface (courtesy-probe, the daemon's job) says the same.
        XCTAssertThrowsError(try speaker.say("x")) { error in
            XCTAssertEqual((error as? SpeechDispatcher.Failure)?.result, r)
        }
    }
}

extension CourtesyEdgeTests {
    /// A real speech-dispatcher (scripts/harness/desktop): queued; stopped with SIGSTOP mid-use:
    /// timed out within the bound; continued: queued again on a new connection.
    func testAStoppedSpeechDispatcherTimesOutAndIsUsedAgainWhenItContinues() throws {
        let pulse = try AudioHarness.PrivatePulse("spdstop")
        defer { pulse.stop() }
        let desktop = try PrivateDesktop("spdstop")
        defer { desktop.stop() }
        var env = desktop.environment
        env["PULSE_SERVER"] = pulse.environment["PULSE_SERVER"]
        env.merge(try PrivateDesktop.exports(desktop.run("desktop", ["speechd"], extra: env))) { $1 }
        let socket = try XCTUnwrap(env["SPEECHD_ADDRESS"]).replacingOccurrences(of: "unix_socket:", with: "")
        let pidText = try String(contentsOfFile: desktop.dir + "/speechd.real.pid", encoding: .utf8)
        let pid = try XCTUnwrap(Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))

        let speaker = SpeechDispatcher(socketPath: socket, autospawn: false, timeout: 1)
        let first = SpeechDispatcherBoundTests.bounded(15) { speaker.speak("one") }
        XCTAssertEqual(first.value?.isQueued, true, "\(String(describing: first.value))")

        kill(pid, SIGSTOP)
        var continued = false
        defer { if !continued { kill(pid, SIGCONT) } }
        let stopped = SpeechDispatcherBoundTests.bounded(15) { speaker.speak("two") }
        XCTAssertEqual(stopped.value, .timedOut(seconds: 1, reason: "speech-dispatcher did not answer within 1.0 s"))
        XCTAssertLessThan(stopped.seconds, 5)
        // A new connection to the stopped server: accepted by the kernel, never greeted.
        let again = SpeechDispatcherBoundTests.bounded(15) { speaker.speak("three") }
        XCTAssertEqual(
            again.value, .timedOut(seconds: 1, reason: "speech-dispatcher accepted the connection but did not answer within 1.0 s"))

        kill(pid, SIGCONT)
        continued = true
        let back = SpeechDispatcherBoundTests.bounded(15) { speaker.speak("four") }
        XCTAssertEqual(back.value?.isQueued, true, "\(String(describing: back.value))")
    }
}
