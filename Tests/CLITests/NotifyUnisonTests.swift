import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// Home Assistant's "Speak in every room" (a notify entity): one message on `<topic>/all/command`,
/// as Home Assistant renders its command template (`speak at <a whole second 3 s ahead> <words>`),
/// to two rooms on a real private broker, each with its own PulseAudio and capture. Each room
/// renders the words with espeak-ng (its pack's engine) and lands the first sample on the instant:
/// the two rooms within 1 ms of each other. A message 3 s ahead opens its stream on the sound
/// server no sooner than a boundary would (the lead, 1 s, before the instant): a stream left
/// running for seconds lets PulseAudio's estimate of its delay wander by milliseconds on a busy
/// machine (`DeviceThread.PlayJob.openAt`).
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
        // The kitchen's sound server says when each stream (sink input) is made.
        let streams = try StreamBirths(environment: pulses[0].environment)
        defer { streams.stop() }

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
        // One stream per message, each made within the lead (1 s) of its instant, not on arrival.
        let births = streams.stop()
        XCTAssertEqual(births.count, 3, "sink inputs made: \(births)")
        for (birth, instant) in zip(births, instants) {
            XCTAssertGreaterThan(birth, instant - 1.1, "a stream made \(instant - birth) s before its instant")
            XCTAssertLessThan(birth, instant, "a stream made after its instant")
        }
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

/// `pactl subscribe` on a private sound server: when each playback stream (sink input) that
/// lived at least half a second was made, by the wall clock (a device check opens and closes one
/// within milliseconds). Its state is behind the lock.
final class StreamBirths: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var made: [String: Double] = [:]
    private var lived: [(made: Double, removed: Double)] = []
    private var buffer = Data()

    init(environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        process.arguments = ["subscribe"]
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [unowned self] handle in
            let chunk = handle.availableData
            let now = Date().timeIntervalSince1970
            lock.lock()
            defer { lock.unlock() }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                // Event 'new' on sink-input #3
                guard let index = line.split(separator: " ").last.map(String.init), line.contains(" on sink-input ") else { continue }
                if line.contains("'new'") {
                    made[index] = now
                } else if line.contains("'remove'"), let birth = made.removeValue(forKey: index) {
                    lived.append((birth, now))
                }
            }
        }
        try process.run()
    }

    /// Ends the subscription; when each stream that lived at least 0.5 s was made.
    @discardableResult
    func stop() -> [Double] {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        lock.lock()
        defer { lock.unlock() }
        return lived.filter { $0.removed - $0.made >= 0.5 }.map(\.made)
    }
}
