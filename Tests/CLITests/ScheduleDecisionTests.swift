import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// `schedule` shows what the daemon will do. The oracle is the daemon's own decision path,
/// `AnnouncementScheduler` driven as `ClockDaemon` drives it (arm the boundary, wake 1 s ahead,
/// decide, record); `schedule --json` from the built binary must list the same boundaries with the
/// same decision, volume and clips, over whole simulated days with quiet windows of every mode.
final class ScheduleDecisionTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("schedule-decisions") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// One boundary, in the terms of `schedule --json`.
    struct Row: Equatable, CustomStringConvertible {
        var at: String
        var decision: String
        /// Only compared for skips (for the others it is an explanation, not a decision).
        var skipReason: String?
        var volume: Int?
        var clips: [String]

        var description: String {
            "\(at) \(decision)\(skipReason.map { " (\($0))" } ?? "")\(volume.map { " \($0)%" } ?? "") \(clips.joined(separator: " "))"
        }
    }

    /// Shared by every scenario: all three modes, windows overlapping each other (the quietest
    /// aspect wins), a weekend-only window and one that crosses midnight. The days simulated are
    /// Friday 2026-03-27 to Tuesday 2026-03-31 in Berlin, across the spring-forward night.
    static let quiet = """
        [[quiet]]
        from = "01:00"
        to = "03:00"
        mode = "silent"

        [[quiet]]
        days = "weekends"
        from = "07:00"
        to = "09:00"
        mode = "chime-only"

        [[quiet]]
        from = "11:00"
        to = "13:00"
        mode = "lower-volume"
        volume = 30

        [[quiet]]
        from = "12:00"
        to = "12:30"
        mode = "chime-only"

        [[quiet]]
        from = "12:15"
        to = "12:45"
        mode = "lower-volume"
        volume = 10

        [[quiet]]
        days = "fri"
        from = "22:00"
        to = "00:30"
        mode = "lower-volume"
        volume = 50
        """

    /// The daemon's decisions: armed as `ClockDaemon` arms (`boundaryToArm`), woken 1 s before each
    /// boundary, decided with `decide`, and recorded as spoken or skipped.
    func daemonRows(config: Config, zone: Zone, from start: Double, count: Int, pack: SoundPack) throws -> [Row] {
        var scheduler = AnnouncementScheduler(config: config, state: PersistentState())
        var rows: [Row] = []
        var handled: Int?
        var now = start
        while rows.count < count {
            let boundary = scheduler.boundaryToArm(after: handled, now: now, in: zone)
            now = Double(boundary) - 1
            let decision = scheduler.decide(boundary: boundary, now: now, in: zone)
            let at = CivilTime.local(boundary, in: zone).rfc3339
            switch decision {
            case .skip(_, _, let reason):
                scheduler.recordSkipped(decision)
                rows.append(Row(at: at, decision: "skip", skipReason: reason.rawValue, volume: nil, clips: []))
            case .speak(_, let local, let style, let gain):
                scheduler.recordSpoken(boundary)
                let plan = try pack.plan(hour: local.hour, minute: local.minute, style: style)
                let kind = plan.voiceClips.isEmpty ? "chime-only" : "speak"
                rows.append(
                    Row(at: at, decision: kind, skipReason: nil, volume: Int((gain * 100).rounded()), clips: plan.clips)
                )
            }
            handled = boundary
            now = Double(boundary)
        }
        return rows
    }

    func scheduleRows(configFile: URL, from: String, count: Int) throws -> [Row] {
        let r = try BinaryRunner.run([
            "schedule", "--config", configFile.path, "--from", from, "--count", "\(count)", "--json",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try r.stdout.split(separator: "\n").map { line in
            let object = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            let decision = object["decision"] as? String ?? "(none)"
            return Row(
                at: object["at"] as? String ?? "", decision: decision,
                skipReason: decision == "skip" ? object["reason"] as? String : nil, volume: object["volume"] as? Int,
                clips: object["clips"] as? [String] ?? [])
        }
    }

    func testScheduleListsExactlyWhatTheDaemonDecides() throws {
        let packPath = BinaryRunner.packageRoot.appendingPathComponent("Sounds/default").path
        let pack = try SoundPack(directory: URL(fileURLWithPath: packPath), scan: false)
        let scenarios: [(why: String, settings: String, count: Int)] = [
            (
                "quarters, Westminster, the voice on the hour and half hour, volume 80",
                "interval = \"quarter\"\nchime = \"westminster\"\nvoice-at = [0, 30]\nvolume = 80", 4 * 96
            ),
            (
                "half hours, one strike on the hour, the voice only on the hour",
                "interval = \"half\"\nchime = \"hour\"\nvoice-at = [0]", 2 * 96
            ),
            ("hours, ship's bells, no voice at all", "interval = \"hour\"\nchime = \"ships-bells\"\nvoice = false", 96),
            (
                "quarters, no chime: chime-only windows have nothing to ring",
                "chime = \"none\"\nvoice-at = [0, 15, 30]", 2 * 96
            ),
        ]
        let zone = Zone(identifier: "Europe/Berlin")!
        // Thursday night, so the first boundary is Friday 00:00; Sunday 29 March springs forward at 02:00.
        let from = "2026-03-26T23:50:00+01:00"
        var seen: Set<String> = []
        for (i, scenario) in scenarios.enumerated() {
            let text = "zone = \"Europe/Berlin\"\npack = \"\(packPath)\"\n\(scenario.settings)\n\n\(Self.quiet)\n"
            let file = dir.appendingPathComponent("config-\(i).toml")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let config = try Config.parse(text, source: file.path, zones: TestZones.lookup)
            let daemon = try daemonRows(
                config: config, zone: zone, from: try InstantParser.parse(from, in: zone), count: scenario.count,
                pack: pack)
            let listed = try scheduleRows(configFile: file, from: from, count: scenario.count)
            XCTAssertEqual(listed.count, scenario.count, scenario.why)
            for (d, s) in zip(daemon, listed).filter({ $0 != $1 }).prefix(5) {
                XCTFail("\(scenario.why): the daemon does \(d), schedule lists \(s)")
            }
            for row in daemon {
                seen.insert(row.decision)
                if let reason = row.skipReason { seen.insert("skip: \(reason)") }
                if let volume = row.volume { seen.insert("\(row.decision) \(volume)%") }
            }
        }
        // The days must exercise what is compared, or the comparison proves little.
        for expected in [
            "speak 80%", "speak 30%", "speak 10%", "speak 50%", "speak 100%", "chime-only 30%", "chime-only 10%",
            "chime-only 100%", "skip: quiet", "skip: nothing-to-play",
        ] {
            XCTAssertTrue(seen.contains(expected), "no boundary was \(expected): \(seen.sorted())")
        }
    }

    /// The issue's lines, as a user reads them: plain spoken lines keep their format, the others
    /// say what happens instead.
    func testTextLinesSayTheDecision() throws {
        let pack = FixturePack.temporaryDirectory("schedule-text-pack")
        defer { try? FileManager.default.removeItem(at: pack) }
        try FixturePack.write(to: pack)
        let file = dir.appendingPathComponent("config.toml")
        try """
        zone = "UTC"
        interval = "quarter"
        voice-at = [0, 30]
        [[quiet]]
        from = "11:00"
        to = "13:00"
        mode = "lower-volume"
        volume = 30
        [[quiet]]
        from = "12:00"
        to = "12:30"
        mode = "chime-only"
        [[quiet]]
        from = "22:00"
        to = "07:00"
        """.write(to: file, atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run([
            "schedule", "--config", file.path, "--pack", pack.path, "--from", "2026-07-01T10:50:00Z", "--count", "10",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            r.stdout,
            """
            2026-07-01T11:00:00+00:00  eleven AM  [chime eleven am]  hour: 1 strike, anchor +0.000 s  (volume 30%: quiet hours)
            2026-07-01T11:15:00+00:00  eleven fifteen AM  skipped: nothing-to-play
            2026-07-01T11:30:00+00:00  eleven thirty AM  [eleven thirty am]  (volume 30%: quiet hours)
            2026-07-01T11:45:00+00:00  eleven forty-five AM  skipped: nothing-to-play
            2026-07-01T12:00:00+00:00  noon  [chime]  hour: 1 strike, anchor +0.000 s  (chime only, volume 30%: quiet hours)
            2026-07-01T12:15:00+00:00  twelve fifteen PM  skipped: quiet
            2026-07-01T12:30:00+00:00  twelve thirty PM  [twelve thirty pm]  (volume 30%: quiet hours)
            2026-07-01T12:45:00+00:00  twelve forty-five PM  skipped: nothing-to-play
            2026-07-01T13:00:00+00:00  one PM  [chime one pm]  hour: 1 strike, anchor +0.000 s
            2026-07-01T13:15:00+00:00  one fifteen PM  skipped: nothing-to-play

            """)
        let night = try BinaryRunner.run([
            "schedule", "--config", file.path, "--pack", pack.path, "--from", "2026-07-01T21:50:00Z", "--count", "1",
            "--json",
        ])
        XCTAssertEqual(
            night.stdout,
            """
            {"anchor_offset_ms":0,"at":"2026-07-01T22:00:00+00:00","chime":"none","clips":[],"decision":"skip","language":"en-US","reason":"quiet","strikes":0,"text":"ten PM","utc":"2026-07-01T22:00:00Z"}

            """)
        // interval = "hour" lists only the hours.
        try "zone = \"UTC\"\ninterval = \"hour\"\n".write(to: file, atomically: true, encoding: .utf8)
        let hourly = try BinaryRunner.run([
            "schedule", "--config", file.path, "--pack", pack.path, "--from", "2026-07-01T10:50:00Z", "--count", "2",
        ])
        XCTAssertEqual(
            hourly.stdout,
            """
            2026-07-01T11:00:00+00:00  eleven AM  [chime eleven am]  hour: 1 strike, anchor +0.000 s
            2026-07-01T12:00:00+00:00  noon  [chime noon]  hour: 1 strike, anchor +0.000 s

            """)
    }

    /// `schedule --count 100000000` grew to 800 MB before printing a line: it must stream, in
    /// constant memory. Read the first 20,000 lines, then look at the process's peak memory.
    func testAHugeCountStreamsInConstantMemory() throws {
        let pack = FixturePack.temporaryDirectory("schedule-stream-pack")
        defer { try? FileManager.default.removeItem(at: pack) }
        try FixturePack.write(to: pack)
        let process = Process()
        process.executableURL = BinaryRunner.binary
        process.arguments = [
            "schedule", "--count", "100000000", "--from", "2026-01-01T00:00:00Z", "--tz", "UTC", "--json", "--pack",
            pack.path,
        ]
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = "/nonexistent/talking-clock-tests"
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let enough = DispatchSemaphore(value: 0)
        let reader = out.fileHandleForReading
        Thread.detachNewThread {
            var lines = 0
            var signalled = false
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                lines += data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                if lines >= 20_000 && !signalled {
                    signalled = true
                    enough.signal()
                }
            }
            if !signalled { enough.signal() }
        }
        // Generous: streaming prints 20,000 lines in well under a second.
        let arrived = enough.wait(timeout: .now() + 120) == .success
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        process.terminate()
        process.waitUntilExit()
        XCTAssertTrue(arrived, "20,000 lines did not arrive within 120 s")
        let peakKB = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
        XCTAssertNotNil(peakKB, status)
        XCTAssertLessThan(peakKB ?? .max, 100_000, "peak resident memory in kB while streaming")
    }
}
