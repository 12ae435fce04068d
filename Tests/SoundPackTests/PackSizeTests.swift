import Foundation
import Playback
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// A pack's total audio is bounded (issue 29, item 8): a legal pack of 82 clips of 29.9 s at
/// 192 kHz took 111 s to become ready, past systemd's start time-out. The bound is checked from
/// the headers, before anything is decoded. (scripts/bench-pack-load times the worst packs within it.)
final class PackSizeTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("size") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// `count` clips of `seconds` s of 8 kHz mono (small files) in a pack declared 192 kHz
    /// stereo: each becomes 48 times its samples when decoded.
    func pack(clips count: Int, seconds: Double) throws -> URL {
        let pack = dir.appendingPathComponent("p\(count)")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        var entries: [String] = []
        for i in 0..<count {
            let samples = (0..<Int(seconds * 8000)).map { Int16(truncatingIfNeeded: ($0 * 37) % 4000 - 2000) }
            try WAV.encode(samples, format: StreamFormat(sampleRate: 8000, channels: 1))
                .write(to: pack.appendingPathComponent("c\(i).wav"))
            entries.append("\"c\(i)\": \"c\(i).wav\"")
        }
        try #"{"format": 1, "name": "big", "sample_rate": 192000, "channels": 2, "clips": {\#(entries.joined(separator: ", "))}}"#
            .write(to: pack.appendingPathComponent("pack.json"), atomically: true, encoding: .utf8)
        return pack
    }

    func testAPackOverTheBoundIsRefusedFromItsHeaders() throws {
        // 3 × 30 s → 3 × 11,520,000 samples at 192 kHz stereo: over 2^25 (33,554,432).
        let url = try pack(clips: 3, seconds: 30)
        let start = Date()
        XCTAssertThrowsError(try SoundPack(directory: url, scan: true)) { error in
            let e = error as! PackError
            XCTAssertEqual(e.kind, .tooMuchAudio)
            XCTAssertEqual(
                e.message,
                "Sound pack 'big' (\(url.path)) holds 1.5 minutes of audio at 192000 Hz, 2 channels, 16-bit (34560000 samples); a pack may hold at most 33554432 samples (about 5.8 minutes at 48 kHz stereo, 25 minutes at 22,050 Hz mono), so that it loads in seconds and fits in memory. Use fewer or shorter clips, or a lower sample rate or mono (e.g. 'sox in.flac -r 22050 -c 1 out.flac').")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "nothing was decoded")
        // `check`'s way of loading refuses it too.
        XCTAssertThrowsError(try SoundPack(directory: url, scan: true, keepingBrokenClips: true))
    }

    func testAPackWithinTheBoundLoads() throws {
        // 2 × 30 s → 23,040,000 samples.
        let loaded = try SoundPack(directory: try pack(clips: 2, seconds: 30), scan: true)
        XCTAssertEqual(loaded.format, StreamFormat(sampleRate: 192000, channels: 2))
    }

    /// What decoding costs, per file: its input or its output, whichever is larger.
    func testTheCostOfAClipIsTheLargerOfItsInputAndItsOutput() {
        let down = ClipInfo(frames: 192_000, format: StreamFormat(sampleRate: 192_000, channels: 2))
        XCTAssertEqual(SoundPack.decodingSamples(down, into: StreamFormat(sampleRate: 8000, channels: 1)), 384_000)
        let up = ClipInfo(frames: 8000, format: StreamFormat(sampleRate: 8000, channels: 1))
        XCTAssertEqual(SoundPack.decodingSamples(up, into: StreamFormat(sampleRate: 192_000, channels: 2)), 384_000)
    }
}
