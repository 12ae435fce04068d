import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// A hostile or careless pack: timing values that would allocate gigabytes or overflow, a
/// manifest that is not a small file, bells that name no clip, a clip just over the length limit,
/// and clips in another channel count (converted in linear time; scripts/bench-conversion times it).
final class PackAbuseTests: XCTestCase {
    let path = "/packs/p/pack.json"
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("abuse") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func refusal(_ json: String) -> String? {
        do {
            _ = try PackManifest.parse(Data(json.utf8), path: path)
            return nil
        } catch {
            XCTAssertEqual(error.kind, .badManifest)
            return error.message
        }
    }

    func testEveryTimingValueOutsideItsRangeIsRefusedWithTheKeyAndTheRange() {
        let clips = #""clips": {"one": "one.wav"}"#
        let strikes = #""bell": "one", "count": "hour", "minutes": [0]"#
        let cases: [(json: String, message: String)] = [
            (#"{"format": 1, "name": "p", \#(clips), "spacing": {"word_gap_ms": 4000000000}}"#,
             #"\#(path): "spacing.word_gap_ms" is 4000000000; use 0 to 10000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "spacing": {"lead_in_gap_ms": -1}}"#,
             #"\#(path): "spacing.lead_in_gap_ms" is -1; use 0 to 10000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "spacing": {"chime_gap_ms": -9223372036854775808}}"#,
             #"\#(path): "spacing.chime_gap_ms" is -9223372036854775808; use -30000 to 30000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"beat_ms": 9223372036854775807}}"#,
             #"\#(path): "chimes.beat_ms" is 9223372036854775807; use 1 to 10000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"beat_ms": 0}}"#,
             #"\#(path): "chimes.beat_ms" is 0; use 1 to 10000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"hour_after_ms": 60001}}"#,
             #"\#(path): "chimes.hour_after_ms" is 60001; use 0 to 60000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"strike_interval_ms": 10001}}"#,
             #"\#(path): "chimes.strike_interval_ms" is 10001; use 0 to 10000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"ship_strike_ms": -5}}"#,
             #"\#(path): "chimes.ship_strike_ms" is -5; use 0 to 10000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"ship_pair_gap_ms": 99999}}"#,
             #"\#(path): "chimes.ship_pair_gap_ms" is 99999; use 0 to 10000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"voice_after_ms": 100000000}}"#,
             #"\#(path): "chimes.voice_after_ms" is 100000000; use 0 to 60000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"patterns": {"hour": {"notes": {"0": [{"bell": "one", "at_ms": 0}, {"bell": "one", "at_ms": 120001}]}}}}}"#,
             #"\#(path): "chimes.patterns.hour.notes.0[1].at_ms" is 120001; use 0 to 120000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"patterns": {"hour": {"strikes": {\#(strikes), "after_ms": 3000000000, "interval_ms": 10}}}}}"#,
             #"\#(path): "chimes.patterns.hour.strikes.after_ms" is 3000000000; use 0 to 60000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"patterns": {"hour": {"strikes": {\#(strikes), "interval_ms": 4611686018427387904}}}}}"#,
             #"\#(path): "chimes.patterns.hour.strikes.interval_ms" is 4611686018427387904; use 0 to 10000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"patterns": {"ships-bells": {"strikes": {\#(strikes), "interval_ms": 10, "pair_gap_ms": 10001}}}}}"#,
             #"\#(path): "chimes.patterns.ships-bells.strikes.pair_gap_ms" is 10001; use 0 to 10000 (milliseconds)."#),
            (#"{"format": 1, "name": "p", \#(clips), "chimes": {"patterns": {"westminster": {"notes": {}, "voice_after_ms": 60001}}}}"#,
             #"\#(path): "chimes.patterns.westminster.voice_after_ms" is 60001; use 0 to 60000 (milliseconds)."#),
        ]
        for (json, message) in cases {
            XCTAssertEqual(refusal(json), message, json)
        }
        // The ends of every range are accepted.
        XCTAssertNil(refusal(#"""
            {"format": 1, "name": "p", \#(clips),
             "spacing": {"word_gap_ms": 10000, "lead_in_gap_ms": 0, "chime_gap_ms": -30000},
             "chimes": {"beat_ms": 10000, "hour_after_ms": 60000, "strike_interval_ms": 0, "ship_strike_ms": 10000,
                        "ship_pair_gap_ms": 0, "voice_after_ms": 60000,
                        "patterns": {"hour": {"notes": {"0": [{"bell": "one", "at_ms": 120000}]},
                                              "strikes": {\#(strikes), "after_ms": 60000, "interval_ms": 10000, "pair_gap_ms": 10000},
                                              "voice_after_ms": 0}}}}
            """#))
    }

    func testTheShippedPacksAreWithinTheRanges() throws {
        let sounds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sounds").standardized
        let packs = try FileManager.default.contentsOfDirectory(atPath: sounds.path).filter {
            FileManager.default.fileExists(atPath: sounds.appendingPathComponent("\($0)/pack.json").path)
        }
        XCTAssertFalse(packs.isEmpty)
        for pack in packs {
            let file = sounds.appendingPathComponent("\(pack)/pack.json")
            XCTAssertNoThrow(try PackManifest.parse(Data(contentsOf: file), path: file.path), pack)
        }
    }

    func testAManifestLargerThan1MiBOrNotAFileIsRefusedWithoutReadingIt() throws {
        try FixturePack.write(to: dir)
        let manifest = dir.appendingPathComponent("pack.json")
        let valid = try String(contentsOf: manifest, encoding: .utf8)
        // Valid JSON, padded with whitespace past the limit.
        try (valid + String(repeating: " ", count: 1_048_576)).write(to: manifest, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try SoundPack(directory: dir)) { error in
            let message = (error as! PackError).message
            XCTAssertEqual(
                message,
                "\(manifest.path) is \(valid.utf8.count + 1_048_576) bytes; a pack manifest may be at most 1048576 bytes (1 MiB), so this is not one. Check the pack directory.")
        }
        // /dev/zero in its place: refused at once, not read until memory runs out.
        try FileManager.default.removeItem(at: manifest)
        try FileManager.default.createSymbolicLink(atPath: manifest.path, withDestinationPath: "/dev/zero")
        XCTAssertThrowsError(try SoundPack(directory: dir)) { error in
            XCTAssertEqual((error as! PackError).message, "\(manifest.path) is not a regular file; a pack's pack.json must be a JSON text file.")
        }
        // A named pipe: refused at once, not waited on for a writer.
        try FileManager.default.removeItem(at: manifest)
        XCTAssertEqual(mkfifo(manifest.path, 0o600), 0)
        XCTAssertThrowsError(try SoundPack(directory: dir)) { error in
            XCTAssertEqual((error as! PackError).kind, .badManifest)
        }
    }

    func testCheckRefusesABellThatNamesNoClip() throws {
        try FixturePack.write(
            to: dir,
            extraManifest: #""bells": {"quarter": ["one", "two", "three", "bell-gone"], "hour": "chime", "ship": "no-such-bell"},"#)
        let pack = try SoundPack(directory: dir)
        let report = pack.check()
        XCTAssertFalse(report.isValid)
        XCTAssertEqual(
            report.problems.map(\.message),
            [
                "Sound pack 'fixture': \"bells.quarter[3]\" names bell 'bell-gone', which is not in \"clips\" of \(dir.standardized.path)/pack.json; add a clip with that id or fix the bell's id.",
                "Sound pack 'fixture': \"bells.ship\" names bell 'no-such-bell', which is not in \"clips\" of \(dir.standardized.path)/pack.json; add a clip with that id or fix the bell's id.",
            ])
        // And a spelled-out pattern's bell.
        try FileManager.default.removeItem(at: dir)
        try FixturePack.write(
            to: dir,
            extraManifest: #""chimes": {"patterns": {"hour": {"notes": {"0": [{"bell": "gong", "at_ms": 0}]}}}},"#)
        let problems = try SoundPack(directory: dir).check().problems.map(\.message)
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.contains("\"chimes.patterns.hour\" names bell 'gong'") == true, "\(problems)")
    }

    func testAClipJustOverTheLimitSaysByHowMuch() throws {
        // 600 001 frames at 20 kHz: 30.00005 s, which one decimal printed as "30.0 s … at most 30 s".
        try FixturePack.write(
            to: dir, framesPerClip: { $0 == "chime" ? 600_001 : 100 }, format: StreamFormat(sampleRate: 20_000, channels: 1))
        XCTAssertThrowsError(try SoundPack(directory: dir)) { error in
            let message = (error as! PackError).message
            XCTAssertTrue(message.contains(" is 30.00005 s long by its header (600001 frames at 20000 Hz); clips may be at most 30 s (600000 frames)."), message)
        }
        try FileManager.default.removeItem(at: dir)
        try FixturePack.write(
            to: dir, framesPerClip: { $0 == "chime" ? 600_000 : 100 }, format: StreamFormat(sampleRate: 20_000, channels: 1))
        XCTAssertNoThrow(try SoundPack(directory: dir), "exactly 30 s is allowed")
    }

    func testChannelConversionOfSixteenBitClipsIsExact() {
        let mono: [Int16] = [0, 1, -1, 32767, -32768, 1234]
        let monoAudio = ClipAudio(format: StreamFormat(sampleRate: 8000, channels: 1), storage: .pcm16(mono))
        let stereo = Conversion.channels(monoAudio, to: 2)
        XCTAssertEqual(stereo.format, StreamFormat(sampleRate: 8000, channels: 2))
        XCTAssertEqual(stereo.samples, mono.flatMap { [Float($0) / 32768, Float($0) / 32768] })

        let pairs: [Int16] = [100, 300, -32768, 32767, 0, 0, 7, -7]
        let stereoAudio = ClipAudio(format: StreamFormat(sampleRate: 8000, channels: 2), storage: .pcm16(pairs))
        let down = Conversion.channels(stereoAudio, to: 1)
        XCTAssertEqual(down.format.channels, 1)
        XCTAssertEqual(down.samples, [200.0 / 32768, -0.5 / 32768, 0, 0])
        // A 30 s 48 kHz stereo clip converts (this took minutes when each frame re-read the clip).
        let long = ClipAudio(
            format: StreamFormat(sampleRate: 48_000, channels: 2),
            storage: .pcm16((0..<(48_000 * 30 * 2)).map { Int16(truncatingIfNeeded: $0 / 2 * 7) }))
        let mixed = Conversion.channels(long, to: 1)
        XCTAssertEqual(mixed.frames, 48_000 * 30)
        XCTAssertEqual(mixed.samples[12_345], Float(Int16(truncatingIfNeeded: 12_345 * 7)) / 32768)
    }
}
