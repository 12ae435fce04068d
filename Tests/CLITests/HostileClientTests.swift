import Foundation
import Glibc
import TalkingClockCore
import TestSupport
import XCTest

/// Hostile clients on the live control socket while an announcement is due: random and oversized
/// byte streams, a client that never reads its replies, a storm of 2,000 connections, clients
/// that send half a line and stall. The daemon keeps answering, its descriptors and memory stay
/// bounded, and the announcement lands on the boundary as measured by the real-time capture.
final class HostileClientTests: XCTestCase {

    var dir: URL!
    var pulse: AudioHarness.PrivatePulse?
    var daemon: DaemonProcess?

    override func setUpWithError() throws {
        guard AudioHarness.isAvailable else {
            throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test")
        }
        dir = FixturePack.temporaryDirectory("hostile")
        try FixturePack.write(
            to: dir.appendingPathComponent("pack"), framesPerClip: { _ in 4410 },
            format: StreamFormat(sampleRate: 22050, channels: 1))
    }

    override func tearDown() {
        daemon?.stop()
        pulse?.stop()
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Starts a private PulseAudio, a capture, and the daemon with its wall clock shifted so that
    /// 12:45 UTC ("twelve forty-five PM", the longest quarter; never the hour the test runs at)
    /// falls `secondsAhead` from now; returns the real instant of it.
    func startAnnouncingIn(_ secondsAhead: Int) throws -> (DaemonProcess, AudioHarness.Capture, Double) {
        pulse = try AudioHarness.PrivatePulse("hostile")
        let env = pulse!.environment
        let capture = try AudioHarness.startCapture(to: dir.appendingPathComponent("cap.wav"), environment: env)
        let clock = ShiftedClock(boundary: ShiftedClock.twelveFortyFive, secondsAhead: Double(secondsAhead))
        let d = try DaemonProcess(
            [
                "run", "--pack", dir.appendingPathComponent("pack").path, "--device", "pulse", "--tz", "UTC",
                "--state-dir", dir.appendingPathComponent("state").path,
            ] + clock.arguments,
            socket: dir.appendingPathComponent("run/control.sock").path,
            environment: env.merging(["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path]) { $1 },
            logURL: dir.appendingPathComponent("daemon.log"))
        daemon = d
        return (d, capture, clock.realInstant)
    }

    /// The boundary's onset in the capture, checked against the same few-ms tolerance as
    /// DaemonRealTimeTests (the tight figure belongs to scripts/bench).
    func assertOnTime(
        _ d: DaemonProcess, _ capture: AudioHarness.Capture, _ realBoundary: Double, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> Double {
        XCTAssertTrue(
            d.waitForLog("<6>spoke boundary=2026-07-01T12:45:00+00:00", timeout: 20), d.log, file: file, line: line)
        capture.stop()
        let onset = try AudioHarness.analyze(
            "onset", capture.output, ["--at", "\(realBoundary)", "--after", "\(realBoundary - 0.5)"])
        let error = try XCTUnwrap(onset["error_ms"] as? Double, "\(onset)", file: file, line: line)
        XCTAssertLessThan(abs(error), 5.0, "onset \(error) ms from the boundary", file: file, line: line)
        return error
    }

    func testRandomAndOversizedStreamsThenStatusAnswersAndTheAnnouncementLandsOnTime() throws {
        let (d, capture, realBoundary) = try startAnnouncingIn(4)
        let socket = d.socket
        let rss0 = d.residentKB
        let until = realBoundary + 1.5
        let tally = Tally()

        let threads: [@Sendable () -> Void] = [
            {  // Random byte strings, up to 64 KiB each, with whatever newlines they happen to hold.
                var rng = SeededGenerator(seed: 0xBAD_B17E5)
                while Date().timeIntervalSince1970 < until {
                    guard let fd = try? SocketClient.connect(socket, receiveTimeout: 0.2) else { continue }
                    let count = Int(rng.next() % 65_536) + 1
                    var bytes = [UInt8](repeating: 0, count: count)
                    for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
                    SocketClient.send(fd, bytes)
                    if rng.next() % 2 == 0 { shutdown(fd, Int32(SHUT_WR)) }  // half the time: close mid-line
                    let reply = SocketClient.receive(fd, lines: 1)
                    close(fd)
                    tally.add("random clients")
                    if reply.hasPrefix("error ") || reply.hasPrefix("ok ") { tally.add("replies") }
                }
            },
            {  // Two 8 MiB streams without a single newline.
                var rng = SeededGenerator(seed: 0xF100D)
                for _ in 0..<2 {
                    guard let fd = try? SocketClient.connect(socket) else { continue }
                    var chunk = [UInt8](repeating: 0, count: 65_536)
                    var sent = 0
                    while sent < 8 << 20 && Date().timeIntervalSince1970 < until {
                        for i in chunk.indices { chunk[i] = UInt8(truncatingIfNeeded: rng.next()) | 0x80 }  // never 0x0A
                        let n = SocketClient.send(fd, chunk)
                        if n < chunk.count { break }
                        sent += n
                    }
                    SocketClient.send(fd, [0x0A])
                    let reply = SocketClient.receive(fd)
                    close(fd)
                    tally.add("flood bytes", sent)
                    if reply.hasPrefix("error usage: request too long") { tally.add("flood errors") }
                }
            },
            {  // A client that sends requests and never reads a reply: dropped once 64 KiB of replies wait.
                guard let fd = try? SocketClient.connect(socket) else { return }
                let burst = [UInt8](String(repeating: "status\n", count: 1000).utf8)
                var total = 0
                while total < 4 << 20 && Date().timeIntervalSince1970 < until {
                    let n = burst.withUnsafeBytes {
                        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                    if n < 0 && errno != EAGAIN {
                        tally.add("non-reader dropped")  // EPIPE / ECONNRESET: the daemon hung up
                        break
                    }
                    if n > 0 { total += n } else { usleep(1000) }
                }
                close(fd)
            },
        ]
        let group = DispatchGroup()
        for body in threads {
            group.enter()
            Thread.detachNewThread {
                body()
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "the hostile clients finished")

        XCTAssertTrue(d.isRunning)
        XCTAssertTrue(try d.request("status").hasPrefix("ok driver timer; "))
        let error = try assertOnTime(d, capture, realBoundary)
        let rss1 = d.residentKB
        print(
            "HostileClientTests: \(tally["random clients"]) random clients (\(tally["replies"]) got a reply line), \(tally["flood bytes"]) bytes of oversized lines, non-reader dropped: \(tally["non-reader dropped"]), onset \(error) ms, RSS \(rss0) -> \(rss1) kB"
        )
        XCTAssertGreaterThan(tally["random clients"], 50)
        XCTAssertGreaterThanOrEqual(tally["flood bytes"], 8 << 20)
        XCTAssertEqual(tally["flood errors"], 2, "one 'request too long' per oversized line")
        XCTAssertEqual(tally["non-reader dropped"], 1, "a client that never reads is disconnected")
        XCTAssertLessThan(rss1 - rss0, 16_000, "memory does not follow the bytes received (kB)")
    }

    func testTwoThousandClientsAndStalledHalfLinesKeepDescriptorsAndMemoryBoundedAndTheAnnouncementOnTime() throws {
        let (d, capture, realBoundary) = try startAnnouncingIn(7)
        let socket = d.socket
        let fd0 = d.openDescriptors
        let rss0 = d.residentKB

        // 64 clients fill every slot with half a request; the 65th is told to come back later.
        var stallers: [Int32] = []
        for _ in 0..<64 {
            let fd = try SocketClient.connect(socket)
            SocketClient.send(fd, Array("mute fo".utf8))
            stallers.append(fd)
        }
        let filled = Date().addingTimeInterval(5)  // well within the 10 s after which stalled clients are dropped
        while d.openDescriptors < fd0 + 64 && Date() < filled { usleep(5000) }
        XCTAssertEqual(try d.request("status"), "error busy: too many clients; try again")
        // 24 hang up; 40 stay stalled for the rest of the test. The storm may start only once the
        // daemon has really let the 24 go: each ends its half of the connection and reads until
        // the daemon closes its own, which it does after freeing the slot (whatever it answers
        // to the half line first).
        for fd in stallers.suffix(24) {
            XCTAssertTrue(SocketClient.waitForClose(fd), "the daemon closes a client that ended its requests")
            close(fd)
        }
        stallers.removeLast(24)
        let stalledAt = Date()

        // The storm: two threads, each a new client every ~2 ms until 1 s after the boundary,
        // asking status and reading the reply, hanging up at once, sending half a line then
        // hanging up, or sending a line and hanging up without reading.
        let until = realBoundary + 1.0
        let beforeWake = realBoundary - 1.3  // the daemon wakes 1 s before the boundary
        let tally = Tally()
        let pid = d.pid
        let group = DispatchGroup()
        for seed in [UInt64(1), 2] {
            group.enter()
            Thread.detachNewThread {
                var rng = SeededGenerator(seed: 0x5708 + seed)
                while Date().timeIntervalSince1970 < until {
                    guard let fd = try? SocketClient.connect(socket, receiveTimeout: 1) else { continue }
                    switch rng.next() % 4 {
                    case 0:
                        SocketClient.send(fd, Array("status\n".utf8))
                        let reply = SocketClient.receive(fd)
                        if reply.hasPrefix("ok driver") { tally.add("answered") }
                        if reply.hasPrefix("error busy: too many clients") { tally.add("refused") }
                    case 1: break
                    case 2: SocketClient.send(fd, Array("skip an".utf8))
                    default: SocketClient.send(fd, Array("help\n".utf8))
                    }
                    close(fd)
                    tally.add("clients")
                    usleep(2000)
                }
                group.leave()
            }
        }
        group.enter()
        Thread.detachNewThread {  // samples the daemon's descriptors and memory every 20 ms
            while Date().timeIntervalSince1970 < until {
                let rss = DaemonProcess.residentKB(pid: pid)
                tally.raise("max fds", to: DaemonProcess.openDescriptors(pid: pid))
                tally.raise("max rss", to: rss)
                if tally["clients"] >= 1000 { tally.setOnce("rss at 1000", rss) }
                if Date().timeIntervalSince1970 >= beforeWake { tally.setOnce("rss before wake", rss) }
                usleep(20_000)
            }
            group.leave()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)

        XCTAssertTrue(try d.request("status").hasPrefix("ok driver timer; "))
        let error = try assertOnTime(d, capture, realBoundary)
        let (clients, maxFDs, maxRSS) = (tally["clients"], tally["max fds"], tally["max rss"])
        let (rssAt1000, rssBeforeWake) = (tally["rss at 1000"], tally["rss before wake"])
        print(
            "HostileClientTests: \(clients) storm clients (\(tally["answered"]) answered, \(tally["refused"]) refused as too many), 40 stalled; descriptors \(fd0) at start, at most \(maxFDs); RSS \(rss0) kB at start, \(rssAt1000) after 1,000 clients, \(rssBeforeWake) before the announcement, at most \(maxRSS); onset \(error) ms"
        )
        XCTAssertGreaterThanOrEqual(clients, 2000)
        XCTAssertEqual(tally["refused"], 0, "40 stalled clients leave room for the storm")
        // 64 client slots, plus what the sound device holds while it plays (PulseAudio's socket,
        // shared memory and event descriptors).
        XCTAssertLessThanOrEqual(maxFDs, fd0 + ControlServerLimits.maxClients + 16)
        XCTAssertGreaterThan(rssAt1000, 0)
        XCTAssertLessThan(
            rssBeforeWake - rssAt1000, 2_000, "no memory per client: thousands more clients, same RSS (kB)")
        XCTAssertLessThan(maxRSS - rss0, 16_000, "kB")

        // The stalled clients are dropped 10 s after their last byte, and their descriptors freed.
        // The daemon may hold the sound device open now and not at the start (it opens it ahead
        // of the boundary, and keeps it between announcements): up to 8 descriptors of
        // PulseAudio's (socket, shared memory, events) allowed, far fewer than the 40 stalled.
        let deadline = stalledAt.addingTimeInterval(20)
        while d.openDescriptors > fd0 + 8 && Date() < deadline { usleep(50_000) }
        XCTAssertLessThanOrEqual(d.openDescriptors, fd0 + 8, "stalled clients dropped")
        // The count above can reach fd0 + 8 while the last few stalled clients are still being
        // dropped (the device's descriptors closed first), so each one waits for its own end of
        // stream, within the same deadline.
        for fd in stallers {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = max(0, Int32(deadline.timeIntervalSinceNow * 1000))
            _ = poll(&pfd, 1, left)
            var byte: UInt8 = 0
            XCTAssertEqual(recv(fd, &byte, 1, Int32(MSG_DONTWAIT)), 0, "the daemon hung up on a stalled client")
            close(fd)
        }
        XCTAssertTrue(d.isRunning)
    }
}

/// The daemon's documented client limits (docs/control-socket.md).
enum ControlServerLimits {
    static let maxClients = 64
}
