import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// Home Assistant's "Speak in every room" (a notify entity): one message on `<topic>/all/command`,
/// as Home Assistant renders its command template (`speak at <a whole second 3 s ahead> <words>`),
/// to two rooms on a real private broker, each with its own PulseAudio and capture. Each room
/// renders the words with espeak-ng (its pack's engine) and lands the first sample on the instant:
/// the two rooms within 1 ms of each other.
final class NotifyUnisonTests: BrokerTestCase {
    override var scratchName: String { "notify" }

    func testSpeakInEveryRoomIsOneInstant() throws {
        guard AudioHarness.isAvailable else { throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng") else {
            return XCTFail("espeak-ng is not installed: run scripts/install-deps --test (it renders the words)")
        }
        try brokerUp()
        let pack = dir.appendingPathComponent("espeak-pack")
        try FixturePack.write(
            to: pack, framesPerClip: { _ in 2205 }, format: StreamFormat(sampleRate: 22050, channels: 1),
            extraManifest: #""synthesis": {"engine": "espeak-ng", "voice": "en-us"},"#)
        var pulses: [AudioHarness.PrivatePulse] = []
        var captures: [AudioHarness.Capture] = []
        defer {
            for c in captures { c.stop() }
            for p in pulses { p.stop() }
        }
        let rooms = ["kitchen", "hall"]
        var logs: [DaemonProcess] = []
        for (n, room) in rooms.enumerated() {
            let pulse = try AudioHarness.PrivatePulse("notify-\(room)")
            pulses.append(pulse)
            let config = dir.appendingPathComponent("\(room).toml")
            // The external driver arms no boundary: nothing else plays, at whatever hour this runs.
            try """
                driver = "external"
                [mqtt]
                broker = "mqtt://127.0.0.1:\(port)"
                room = "\(room)"
                topic = "tc"
                discovery = false
                """.write(to: config, atomically: true, encoding: .utf8)
            let runDir = dir.appendingPathComponent("run\(n)")
            try FileManager.default.createDirectory(at: runDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var env = pulse.environment
            env["XDG_CACHE_HOME"] = dir.appendingPathComponent("cache\(n)").path
            let d = try DaemonProcess(
                ["run", "--config", config.path, "--pack", pack.path, "--tz", "UTC", "--device", "pulse", "--state-dir",
                 dir.appendingPathComponent("state\(n)").path],
                socket: runDir.appendingPathComponent("control.sock").path, environment: env,
                logURL: dir.appendingPathComponent("\(room).log"))
            daemons.append(d)
            logs.append(d)
            captures.append(try AudioHarness.startCapture(to: dir.appendingPathComponent("\(room).wav"), environment: pulse.environment))
        }
        for d in logs { XCTAssertTrue(d.waitForLog("mqtt connected", timeout: 15), d.log) }

        // Home Assistant's command template, rendered as it renders it: now + 3 s, rounded up.
        let template = try XCTUnwrap(
            ControlCommand.all.compactMap { row -> String? in
                if case .notify(_, _, _, let command, true)? = row.homeAssistant { return command }
                return nil
            }.first)
        XCTAssertTrue(template.hasPrefix("speak at {{ (as_timestamp(now()) + 3) | round(0, 'ceil') | int }}"), template)
        // Three messages, as three presses in Home Assistant (each a whole second 3 s ahead); the
        // rooms' captures say where each first sample landed.
        var instants: [Double] = []
        for round in 1...3 {
            let instant = (Date().timeIntervalSince1970 + ControlRequest.speakEverywhereLead).rounded(.up)
            instants.append(instant)
            try publish("tc/all/command", "speak at \(Int(instant)) Dinner is ready")
            for d in logs {
                XCTAssertTrue(d.waitForLog("<6>spoke ", count: round, timeout: 20), d.log)
            }
        }
        for d in logs {
            XCTAssertEqual(d.logLines(containing: "<6>spoke ").filter { $0.contains(#"text="Dinner is ready""#) }.count, 3, d.log)
            if let debug = ProcessInfo.processInfo.environment["NOTIFY_DEBUG"] { try? d.log.write(toFile: debug + "-\(d.pid).log", atomically: true, encoding: .utf8) }
        }
        for c in captures { c.stop() }
        var spreads: [Double] = []
        for instant in instants {
            var onsets: [Double] = []
            for (room, capture) in zip(rooms, captures) {
                let onset = try AudioHarness.analyze("onset", capture.output, ["--at", "\(instant)", "--after", "\(instant - 1)"])
                let error = try XCTUnwrap(onset["error_ms"] as? Double, "\(room): \(onset)")
                XCTAssertLessThan(abs(error), 5, "\(room): first sample \(error) ms from the instant")
                onsets.append(error)
            }
            spreads.append(abs(onsets[0] - onsets[1]))
            print("notify-unison: onsets \(onsets.map { String(format: "%.3f", $0) }) ms")
        }
        // One room starved of CPU on a busy machine can be a few ms late once (scripts/bench-rooms
        // measures the spread over many instants); the median is the rooms' unison.
        let median = spreads.sorted()[1]
        print("notify-unison: spreads \(spreads.map { String(format: "%.3f", $0) }) ms, median \(String(format: "%.3f", median)) ms")
        XCTAssertLessThan(median, 1.0, "two rooms, one instant: spreads \(spreads) ms")
        XCTAssertLessThan(spreads.max() ?? 0, 5.0, "\(spreads)")
    }
}
