import Foundation
import XCTest

import SoundServer
import TestSupport

/// libpulse introspection and ducking against a real, private PulseAudio (scripts/harness/pulse):
/// a `paplay --property=media.role=phone` stream is the call; `paplay --volume` streams are music.
final class SoundServerTests: XCTestCase {
    private var pulse: AudioHarness.PrivatePulse!
    private var players: [Process] = []

    override func setUpWithError() throws {
        try XCTSkipUnless(AudioHarness.isAvailable, "needs scripts/install-deps --test (pulseaudio, paplay)")
        pulse = try AudioHarness.PrivatePulse("courtesy")
    }

    override func tearDown() {
        for p in players where p.isRunning {
            p.terminate()
            p.waitUntilExit()
        }
        pulse?.stop()
    }

    private var server: String { pulse.environment["PULSE_SERVER"]! }

    /// Starts `paplay` playing silence forever with these properties and waits until the server
    /// lists it; returns its sink input.
    @discardableResult
    private func play(_ properties: [String: String], volume: Int? = nil) throws -> SoundServer.Stream {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/paplay")
        process.arguments =
            ["--raw", "--server=\(server)"] + properties.sorted { $0.key < $1.key }.map { "--property=\($0.key)=\($0.value)" }
            + (volume.map { ["--volume=\($0)"] } ?? []) + ["/dev/zero"]
        process.environment = ProcessInfo.processInfo.environment.merging(pulse.environment) { $1 }
        try process.run()
        players.append(process)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let stream = try SoundServer.streams(server: server, timeout: 2).first(where: { $0.pid == UInt32(process.processIdentifier) }) {
                return stream
            }
            usleep(10_000)
        }
        throw ProbeFailure.streamNeverAppeared
    }

    /// The volumes as `pactl` (an independent client) reports them, by sink input index.
    private func pactlVolumes() throws -> [UInt32: [UInt32]] {
        let text = try run("/usr/bin/pactl", ["--server=\(server)", "list", "sink-inputs"])
        var result: [UInt32: [UInt32]] = [:]
        var current: UInt32?
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Sink Input #") { current = UInt32(trimmed.dropFirst("Sink Input #".count)) }
            if trimmed.hasPrefix("Volume:"), let current {
                // "Volume: front-left: 65536 / 100% / 0.00 dB,   front-right: ..."
                result[current] = trimmed.split(separator: ",").compactMap { part in
                    part.split(separator: ":").last?.split(separator: "/").first
                        .flatMap { UInt32($0.trimmingCharacters(in: .whitespaces)) }
                }
            }
        }
        return result
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func testACallStreamIsSeenWithItsRole() throws {
        try play(["media.role": "music", "application.name": "Rhythmbox"])
        XCTAssertFalse(try SoundServer.streams(server: server, timeout: 2).contains(where: \.isCall), "music is no call")
        try play(["media.role": "phone", "application.name": "FakeCall"])
        let calls = try SoundServer.streams(server: server, timeout: 2).filter(\.isCall)
        XCTAssertEqual(calls.map(\.application), ["FakeCall"])
        XCTAssertEqual(calls.first?.role, "phone")
        XCTAssertEqual(calls.first?.corked, false)
    }

    func testNoServerFailsFastWithASentence() {
        let start = Date()
        XCTAssertThrowsError(try SoundServer.streams(server: "unix:/nonexistent/tc/native", timeout: 0.2)) { error in
            XCTAssertTrue("\(error)".hasPrefix("no sound server to connect to ("), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.2)
        XCTAssertFalse(SoundServer.mightBeRunning(environment: ["XDG_RUNTIME_DIR": "/nonexistent"]))
        XCTAssertFalse(SoundServer.mightBeRunning(environment: [:]))
        XCTAssertTrue(SoundServer.mightBeRunning(environment: ["PULSE_SERVER": server]))
    }

    func testDuckLowersEveryOtherStreamAndRestoresItExactly() throws {
        let loud = try play(["application.name": "Music"])
        let quiet = try play(["application.name": "Video"], volume: 40_000)
        let state = URL(fileURLWithPath: pulse.dir).appendingPathComponent("ducked.json")
        let ducker = Ducker(stateFile: state, server: server, timeout: 2)
        let record = try ducker.duck(streams: nil, percent: 30)
        XCTAssertEqual(Set(record.entries.map(\.index)), [loud.index, quiet.index])
        XCTAssertTrue(FileManager.default.fileExists(atPath: state.path), "the record is written before the volumes move")
        let ducked = try pactlVolumes()
        XCTAssertEqual(ducked[loud.index], [19_660, 19_660], "65536 × 30 %")
        XCTAssertEqual(ducked[quiet.index], [12_000, 12_000], "40000 × 30 %")
        XCTAssertEqual(try ducker.restore(), 2)
        let restored = try pactlVolumes()
        XCTAssertEqual(restored[loud.index], loud.volume)
        XCTAssertEqual(restored[quiet.index], [40_000, 40_000])
        XCTAssertFalse(FileManager.default.fileExists(atPath: state.path), "the record is gone once restored")
        XCTAssertEqual(try ducker.restore(), 0, "restoring twice changes nothing")
    }

    /// A stream whose slider the user moved while the clock spoke keeps the user's volume.
    func testRestoreLeavesAVolumeTheUserChanged() throws {
        let music = try play(["application.name": "Music"])
        let state = URL(fileURLWithPath: pulse.dir).appendingPathComponent("ducked.json")
        let ducker = Ducker(stateFile: state, server: server, timeout: 2)
        try ducker.duck(streams: [music.index], percent: 50)
        _ = try run("/usr/bin/pactl", ["--server=\(server)", "set-sink-input-volume", "\(music.index)", "10000"])
        XCTAssertEqual(try ducker.restore(), 0)
        XCTAssertEqual(try pactlVolumes()[music.index], [10_000, 10_000])
    }

    /// The clock is killed (SIGKILL) while the music is ducked: the next start's repair puts it back.
    func testAKilledDuckerIsRepairedAtTheNextStart() throws {
        let music = try play(["application.name": "Music"], volume: 50_000)
        let state = URL(fileURLWithPath: pulse.dir).appendingPathComponent("ducked.json")
        let probe = Process()
        probe.executableURL = BinaryRunner.binary.deletingLastPathComponent().appendingPathComponent("courtesy-probe")
        probe.arguments = ["duck", "--percent", "20", "--state", state.path, "--hold"]
        probe.environment = ProcessInfo.processInfo.environment.merging(pulse.environment) { $1 }
        let out = Pipe()
        probe.standardOutput = out
        try probe.run()
        let line = String(decoding: out.fileHandleForReading.availableDataLine(), as: UTF8.self)
        XCTAssertEqual(line, "ducked 1")
        XCTAssertEqual(try pactlVolumes()[music.index], [10_000, 10_000])
        kill(probe.processIdentifier, SIGKILL)
        probe.waitUntilExit()
        XCTAssertEqual(try pactlVolumes()[music.index], [10_000, 10_000], "nothing restores it on its own")
        XCTAssertEqual(try Ducker.repair(stateFile: state, timeout: 2), 1)
        XCTAssertEqual(try pactlVolumes()[music.index], [50_000, 50_000])
        XCTAssertFalse(FileManager.default.fileExists(atPath: state.path))
    }
}

enum ProbeFailure: Error { case streamNeverAppeared }

extension FileHandle {
    /// Reads up to the first newline (blocking), without it.
    func availableDataLine() -> Data {
        var line = Data()
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { return line }
            line.append(byte)
        }
    }
}
