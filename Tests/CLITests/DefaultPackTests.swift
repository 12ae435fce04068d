import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// The bundled pack, as the README's first command uses it.
final class DefaultPackTests: XCTestCase {
    var pack: String { BinaryRunner.packageRoot.appendingPathComponent("Sounds/default").path }

    func testTheDefaultPackPassesCheck() throws {
        let r = try BinaryRunner.run(["check", "--pack", pack])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        // Every phrasing of en-US: the pack declares them all, so check proves each one's 1,440 minutes.
        XCTAssertTrue(r.stdout.contains("all 4320 minutes can be said (en-US: 12h, casual, 24h)."), r.stdout)
        XCTAssertFalse(r.stdout.contains("warning:"), r.stdout)
    }

    /// `check --render DIR`: 96 quarter hours per phrasing, each the samples `say --at --output` writes.
    func testCheckRendersEveryQuarterHourAsSayWouldAndNamesAnUnwritableDirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tc-render-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try BinaryRunner.run(["check", "--pack", pack, "--chime", "none", "--render", dir.path + "/day"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("ok: 288 quarter hours written to \(dir.path)/day (PHRASING-HHMM.wav)."), r.stdout)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/day")
        XCTAssertEqual(files.count, 288)
        XCTAssertEqual(Set(files.map { String($0.prefix(while: { $0 != "-" })) }), ["12h", "casual", "24h"])
        for (phrasing, at) in [("12h", "15:00"), ("24h", "07:45"), ("casual", "23:30")] {
            let out = dir.appendingPathComponent("say-\(phrasing).wav")
            let said = try BinaryRunner.run([
                "say", "--at", at, "--chime", "none", "--phrasing", phrasing, "--pack", pack, "--output", out.path,
            ])
            XCTAssertEqual(said.status, 0, said.stderr)
            let name = "\(phrasing)-\(at.replacingOccurrences(of: ":", with: "")).wav"
            let rendered = try Data(contentsOf: dir.appendingPathComponent("day/\(name)"))
            XCTAssertGreaterThan(rendered.count, 44 + 22050, name)
            XCTAssertEqual(rendered, try Data(contentsOf: out), "\(name) is what say --at \(at) writes")
        }
        // A path that cannot be a directory: the option, the path and the reason.
        let file = dir.appendingPathComponent("a-file")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: Data()))
        let bad = try BinaryRunner.run(["check", "--pack", pack, "--render", file.path + "/day"])
        XCTAssertEqual(bad.status, 73, bad.stdout + bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--render: Could not create the directory \(file.path)/day: Not a directory"), bad.stderr)
    }

    func testTheDefaultPackIsFoundByNameFromTheBuildDirectory() throws {
        let r = try BinaryRunner.run(["say", "--at", "00:00", "--dry-run"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "midnight\nclips: chime midnight\nchime: hour, 1 strike, anchor +0.000 s\n")
    }

    func testTopOfTheHourStrikesOnTheFirstSampleThenSpeaksWithoutClipping() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("tc-default-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try BinaryRunner.run(["say", "--at", "15:00", "--output", out.path, "--pack", pack])
        XCTAssertEqual(r.status, 0, r.stderr)
        let data = try Data(contentsOf: out)
        let samples = stride(from: 44, to: data.count - 1, by: 2).map { Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8) }
        XCTAssertGreaterThan(samples.count, 22050 * 5, "the bell rings on for seconds")
        XCTAssertNotEqual(samples[0], 0, "the strike is the first sample (the anchor)")
        XCTAssertLessThan(samples.map { abs(Int($0)) }.max()!, 32768, "never clipped")
    }

    func testWestminsterHourRendersEveryStrikeWhereThePatternPutsIt() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("tc-westminster-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try BinaryRunner.run(["say", "--at", "03:00", "--chime", "westminster", "--output", out.path, "--pack", pack])
        XCTAssertEqual(r.status, 0, r.stderr)
        let dry = try BinaryRunner.run(["say", "--at", "03:00", "--chime", "westminster", "--dry-run", "--pack", pack])
        XCTAssertTrue(dry.stdout.contains("chime: westminster, 19 strikes, anchor +16.500 s"), dry.stdout)
        let data = try Data(contentsOf: out)
        let rate = 22050.0
        let samples = stride(from: 44, to: data.count - 1, by: 2).map { Double(Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)) }
        XCTAssertLessThan(samples.map(abs).max()!, 32767, "overlapping bells are mixed with headroom, never clipped")
        func energy(_ from: Double, _ to: Double) -> Double {
            let a = max(0, Int(from * rate)), b = min(samples.count, Int(to * rate))
            return samples[a..<b].reduce(0) { $0 + $1 * $1 } / Double(max(1, b - a))
        }
        // The default pack's tempo: beat 0.75 s, a change = 5 beats; four changes, then the hour
        // bell 3 s after the last quarter note, strokes 2.5 s apart.
        var onsets = (0..<4).flatMap { change in (0..<4).map { Double(change * 5 + $0) * 0.75 } }
        onsets += [16.5, 19.0, 21.5]
        for t in onsets.dropFirst() {
            let before = energy(t - 0.06, t - 0.01), after = energy(t + 0.005, t + 0.055)
            XCTAssertGreaterThan(after, before * 1.4, "a strike starts at \(t) s")
        }
        // And no strike where there is none: midway between the hour strokes the sound decays.
        XCTAssertLessThan(energy(17.75, 17.8), energy(16.5, 16.55))
        XCTAssertGreaterThan(Double(samples.count) / rate, 21.5 + 2.0, "the voice follows the last stroke")
    }
}
