import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// `check`'s loudness and clipping findings, and writing packs.
final class PackLoudnessTests: XCTestCase {
    var dir: URL!
    let format = StreamFormat(sampleRate: 16000, channels: 1)
    typealias S = SyntheticAudio

    override func setUp() { dir = FixturePack.temporaryDirectory("loud") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A pack whose clips are vowels at the given levels (dBFS); `hot` clips are overdriven.
    func writePack(_ levels: [String: Double], hot: Set<String> = [], bells: String = "") throws {
        var entries: [String] = []
        for (id, level) in levels.sorted(by: { $0.key < $1.key }) {
            var x =
                S.silence(0.02, rate: 16000) + S.vowel(0.3, level: level, rate: 16000) + S.silence(0.04, rate: 16000)
            if hot.contains(id) { x = x.map { $0 * 8 } }
            try ClipEncoder.write(S.int16(x), format: format, to: dir.appendingPathComponent("\(id).flac").path)
            entries.append("\"\(id)\": \"\(id).flac\"")
        }
        let manifest = """
            { "format": 1, "name": "loud", "clips": { \(entries.joined(separator: ", ")) } \(bells) }
            """
        try manifest.write(to: dir.appendingPathComponent("pack.json"), atomically: true, encoding: .utf8)
    }

    func testAWordThatStandsOutIsReportedButBellsAreNotComparedWithTheVoice() throws {
        try writePack(
            ["one": -18, "two": -18.2, "three": -17.5, "four": -21, "five": -16.9, "bell-a": -9, "chime": -8],
            bells: #", "bells": { "quarter": ["bell-a"], "hour": "chime" }"#)
        let pack = try SoundPack(directory: dir)
        XCTAssertEqual(pack.bellClipIds(), ["bell-a", "chime"])
        let report = pack.loudnessReport()
        XCTAssertEqual(try XCTUnwrap(report.medianVoiceLevel), -18, accuracy: 0.1)
        XCTAssertEqual(report.warnings.map(\.clips), [["four"]], "\(report.warnings)")
        let message = report.warnings[0].message
        XCTAssertTrue(
            message.hasPrefix("Clip 'four' (\(dir.path)/four.flac) is 3.0 dB quieter than the pack's other words"),
            message)
        XCTAssertTrue(message.contains("active-speech level -21.0 dBFS, median -18.0 dBFS"), message)
        XCTAssertTrue(
            message.contains("re-record it (talking-clock record-pack \(dir.path) --word four) or re-normalise it"),
            message)
    }

    func testClippedSamplesAreReportedForVoiceAndBells() throws {
        try writePack(["one": -18, "two": -18, "three": -18, "chime": -8], hot: ["two", "chime"])
        let warnings = try SoundPack(directory: dir).loudnessReport().warnings.filter { $0.kind == .clipping }
        XCTAssertEqual(warnings.map(\.clips), [["two"], ["chime"]])
        XCTAssertTrue(warnings[0].message.contains("is clipped: "), warnings[0].message)
        XCTAssertTrue(warnings[0].message.contains("samples are at full scale (peak 0.0 dBFS)"), warnings[0].message)
        XCTAssertTrue(warnings[0].message.contains("re-record it with a lower capture gain"), warnings[0].message)
        XCTAssertTrue(warnings[1].message.contains("regenerate the bell"), warnings[1].message)
    }

    func testTheDefaultPackIsEvenAndUnclipped() throws {
        let pack = try SoundPack(directory: BinaryRunner.packageRoot.appendingPathComponent("Sounds/default"))
        XCTAssertEqual(pack.bellClipIds(), ["chime", "bell-gs4", "bell-fs4", "bell-e4", "bell-b3", "bell-e3"])
        let report = pack.loudnessReport()
        XCTAssertEqual(report.warnings, [])
        let voice = report.clips.filter { !$0.isBell }.compactMap(\.level)
        // 69 words of 12h and 24h, the 7 of casual (quarter, after, half, past, to, minute, minutes),
        // and 94 of dates and values: 7 weekdays, 12 months, 31 ordinals, 60-99, minus, degree(s), percent.
        XCTAssertEqual(voice.count, 76 + 94)
        XCTAssertLessThanOrEqual(voice.max()! - voice.min()!, 2 * Loudness.maxDeviationDb)
        XCTAssertEqual(try XCTUnwrap(report.medianVoiceLevel), Loudness.targetLevel, accuracy: 0.5)
    }

    func testManifestEditsKeepKeysTheyDoNotEditAndWriteAtomically() throws {
        // pack.json is strict (an unknown key is refused), so what record-pack does not model is
        // a known key it leaves alone: a pattern spelled out with nested arrays and a bool.
        let pattern: JSONValue = .object([
            "notes": .object(["0": .array([.object(["bell": .string("one"), "at_ms": .int(0), "anchor": .bool(true)])])])
        ])
        try FixturePack.write(
            to: dir, ids: ["one"], extraManifest: #""chimes": {"patterns": {"hour": {"notes": {"0": [{"bell": "one", "at_ms": 0, "anchor": true}]}}}},"#)
        let writer = PackWriter(directory: dir)
        var manifest = try XCTUnwrap(try writer.readManifest())
        var clips = try XCTUnwrap(manifest["clips"]?.objectValue)
        clips["two"] = .string("voice/two.flac")
        manifest["clips"] = .object(clips)
        try writer.writeClip(
            [1, 2, 3, -4], format: StreamFormat(sampleRate: 8000, channels: 1), relativePath: "voice/two.flac")
        try writer.writeManifest(manifest)

        let reread = try XCTUnwrap(try writer.readManifest())
        XCTAssertEqual(reread, manifest)
        XCTAssertEqual(reread["chimes"], .object(["patterns": .object(["hour": pattern])]))
        let values: JSONValue = .array([.int(1), .double(2.5), .bool(true), .null])
        XCTAssertEqual(
            try JSONDecoder().decode(JSONValue.self, from: Data(values.rendered(keyOrder: PackWriter.keyOrder).utf8)), values)
        let text = try String(contentsOf: writer.manifestURL, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("{\n  \"format\": 1,\n  \"name\": \"fixture\",\n"), text)
        XCTAssertLessThan(
            try XCTUnwrap(text.range(of: "\"one\"")).lowerBound, try XCTUnwrap(text.range(of: "\"two\"")).lowerBound)
        let pack = try SoundPack(directory: dir)
        XCTAssertEqual(try pack.audio("two").samples.map { Int16(($0 * 32768).rounded()) }, [1, 2, 3, -4])
        let leftovers =
            try FileManager.default.contentsOfDirectory(atPath: dir.path)
            + FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("voice").path)
        XCTAssertEqual(leftovers.filter { $0.contains(".tmp-") }, [], "no temporary files remain")
    }

    func testWritingIntoAnUnwritableDirectoryNamesTheFile() throws {
        let writer = PackWriter(directory: URL(fileURLWithPath: "/proc/talking-clock-cannot-exist"))
        XCTAssertThrowsError(try writer.writeClip([1], format: format, relativePath: "voice/one.flac")) { error in
            XCTAssertEqual(
                "\(error)",
                "Could not create the directory /proc/talking-clock-cannot-exist: No such file or directory; choose a directory "
                    + "you can write to.")
        }
    }
}
