import Foundation
import Glibc
import TalkingClockCore
import TestSupport
import XCTest

/// SIGKILL at random moments while the state changes: the state file on disk always parses and is
/// one of the states that were set, never empty, partial or reset.
final class KillTests: XCTestCase {

    enum Request {
        case mute, unmute
        case muteFor(seconds: Int)
        case muteUntil(hour: Int, minute: Int)

        var line: String {
            switch self {
            case .mute: "mute"
            case .unmute: "unmute"
            case .muteFor(let s): "mute for \(s)s"
            case .muteUntil(let h, let m): "mute until \(h < 10 ? "0" : "")\(h):\(m < 10 ? "0" : "")\(m)"
            }
        }

        var cli: [String] {
            switch self {
            case .mute: ["mute"]
            case .unmute: ["unmute"]
            case .muteFor(let s): ["mute", "--for", "\(s)s"]
            case .muteUntil: ["mute", "--until", String(line.dropFirst("mute until ".count))]
            }
        }

        /// The states this request can set if the daemon read the clock between `from` and `to`.
        func candidates(from: Double, to: Double) -> Set<MuteState> {
            let utc = Zone(identifier: "UTC")!
            switch self {
            case .mute: return [.muted]
            case .unmute: return [.unmuted]
            case .muteFor(let s): return Set((Int(from)...Int(to)).map { .mutedUntil($0 + s) })
            case .muteUntil(let h, let m):
                return Set(
                    (Int(from)...Int(to)).map { .mutedUntil(Mute.nextInstant(hour: h, minute: m, after: $0, in: utc)) })
            }
        }
    }

    func testSIGKILLAtRandomMomentsDuring200StateChangesLeavesAStateThatWasSet() throws {
        let dir = FixturePack.temporaryDirectory("kill")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FixturePack.write(to: dir.appendingPathComponent("pack"))
        let stateDir = dir.appendingPathComponent("state")
        let stateFile = stateDir.appendingPathComponent("state.json")
        let socket = dir.appendingPathComponent("run/control.sock").path
        func startDaemon() throws -> DaemonProcess {
            try DaemonProcess(
                [
                    "run", "--driver", "external", "--pack", dir.appendingPathComponent("pack").path, "--device",
                    "null", "--tz", "UTC",
                    "--state-dir", stateDir.path,
                ],
                socket: socket, environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path],
                logURL: dir.appendingPathComponent("daemon.log"))
        }
        func disk() throws -> PersistentState {
            let data = try Data(contentsOf: stateFile)
            XCTAssertFalse(data.isEmpty, "never empty")
            return try JSONDecoder().decode(PersistentState.self, from: data)
        }

        var rng = SeededGenerator(seed: 0x5EED_0F_C1C)
        func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        var daemon = try startDaemon()
        defer { daemon.stop() }
        var current: MuteState = .unmuted  // nothing saved yet: the default
        var kills = 0
        var killedAfterSaving = 0
        var killedBeforeSaving = 0
        var viaCLI = 0

        for i in 0..<200 {
            let request: Request
            switch below(4) {
            case 0: request = .mute
            case 1: request = .unmute
            case 2: request = .muteFor(seconds: 60 * (1 + below(600)))
            default: request = .muteUntil(hour: below(24), minute: below(60))
            }
            let from = Date().timeIntervalSince1970
            if below(5) == 0 {
                // Kill at a random moment between 0 and 3 ms after the request is sent: before,
                // during or after the daemon writes, flushes and renames the state file.
                let fd = try SocketClient.connect(socket)
                SocketClient.send(fd, Array((request.line + "\n").utf8))
                usleep(useconds_t(below(3000)))
                daemon.kill9()
                let to = Date().timeIntervalSince1970
                let reply = SocketClient.receive(fd)
                close(fd)
                kills += 1
                let onDisk = try disk().mute
                if reply.hasPrefix("ok ") {
                    XCTAssertTrue(
                        request.candidates(from: from, to: to).contains(onDisk),
                        "\(i): acknowledged \(request.line), disk \(onDisk)")
                } else {
                    XCTAssertTrue(
                        onDisk == current || request.candidates(from: from, to: to).contains(onDisk),
                        "\(i): \(request.line) in flight: disk \(onDisk) is neither \(current) nor what was asked")
                }
                if onDisk == current && !request.candidates(from: from, to: to).contains(onDisk) {
                    killedBeforeSaving += 1
                } else {
                    killedAfterSaving += 1
                }
                current = onDisk
                daemon = try startDaemon()
                let json = try daemon.request("status json")
                let expected = current.resolved(at: Int(Date().timeIntervalSince1970)).description(
                    in: Zone(identifier: "UTC")!)
                XCTAssertTrue(
                    json.contains("\"mute\":\"\(expected)\""), "\(i): restarted with \(json), disk \(current)")
            } else if i % 10 == 0 {
                viaCLI += 1
                let r = try BinaryRunner.run(request.cli + ["--socket", socket])
                XCTAssertEqual(r.status, 0, r.stderr)
                current = try disk().mute
                XCTAssertTrue(
                    request.candidates(from: from, to: Date().timeIntervalSince1970).contains(current),
                    "\(i): \(request.line) -> \(current)")
            } else {
                let reply = try daemon.request(request.line)
                XCTAssertTrue(reply.hasPrefix("ok "), reply)
                current = try disk().mute
                XCTAssertTrue(
                    request.candidates(from: from, to: Date().timeIntervalSince1970).contains(current),
                    "\(i): \(request.line) -> \(current)")
            }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: stateDir.path).filter { $0 != "state.json" }
        print(
            "KillTests: \(kills) kills (\(killedBeforeSaving) before the new state was on disk, \(killedAfterSaving) after), \(viaCLI) changes through the CLI, files left: \(leftovers)"
        )
        XCTAssertGreaterThanOrEqual(kills, 25)
        XCTAssertTrue(leftovers.isEmpty, "temporary files of killed saves are cleaned up: \(leftovers)")
    }
}
