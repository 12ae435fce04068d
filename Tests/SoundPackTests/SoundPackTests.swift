import Foundation
import Playback
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

final class SoundPackTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = FixturePack.temporaryDirectory("sp") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func expectPackError(_ kind: PackError.Kind, containing fragment: String, scan: Bool = true, check: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let pack = try SoundPack(directory: dir, scan: scan)
            if check {
                let report = pack.check()
                XCTAssertTrue(report.problems.contains { $0.kind == kind && $0.message.contains(fragment) }, "\(report.problems)", file: file, line: line)
            } else {
                XCTFail("loaded a broken pack", file: file, line: line)
            }
        } catch {
            XCTAssertEqual(error.kind, kind, error.message, file: file, line: line)
            XCTAssertTrue(error.message.contains(fragment), error.message, file: file, line: line)
        }
    }

    func testAValidPackDecodesExactlyAndEveryMinuteResolves() throws {
        let clips = try FixturePack.write(to: dir)
        let pack = try SoundPack(directory: dir)
        XCTAssertEqual(pack.format, StreamFormat(sampleRate: 8000, channels: 1))
        let audio = try pack.audio("forty-five")
        XCTAssertEqual(audio.samples.map { Int16(($0 * 32768).rounded()) }, clips["forty-five"])
        let report = pack.check(styles: [PhraseStyle(), PhraseStyle(phrasing: .twentyFourHour)])
        XCTAssertTrue(report.isValid, "\(report.problems)")
        XCTAssertEqual(report.minutesChecked, 2880)
    }

    func testMissingFile() throws {
        try FixturePack.write(to: dir)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("fifteen.wav"))
        expectPackError(.missingFile, containing: "Clip 'fifteen' is missing from sound pack directory")
    }

    func testUndecodableFile() throws {
        try FixturePack.write(to: dir)
        try Data("this is not audio at all, just text".utf8).write(to: dir.appendingPathComponent("three.wav"))
        expectPackError(.undecodable, containing: "Clip 'three'")
    }

    func testTruncatedFileIsCaughtWhenDecoding() throws {
        // libsndfile trusts the data size of a short WAV, but a cut FLAC stream fails to decode.
        try FixturePack.write(to: dir, framesPerClip: { _ in 4000 })
        let path = dir.appendingPathComponent("three.wav")
        try ClipEncoder.write(FixturePack.signal(for: "three", frames: 40000, channels: 1), format: StreamFormat(sampleRate: 8000, channels: 1), to: path.path, as: .flac)
        let data = try Data(contentsOf: path)
        try data.prefix(data.count / 2).write(to: path)  // the STREAMINFO header still claims 40000 frames
        let pack = try SoundPack(directory: dir)
        XCTAssertThrowsError(try pack.audio("three")) { error in
            XCTAssertTrue("\(error)".contains("three"), "\(error)")
        }
    }

    func testEmptyClip() throws {
        try FixturePack.write(to: dir, framesPerClip: { $0 == "pm" ? 0 : 100 })
        expectPackError(.emptyClip, containing: "Clip 'pm'")
    }

    func testClipLongerThan30Seconds() throws {
        try FixturePack.write(to: dir, framesPerClip: { $0 == "chime" ? 8000 * 31 : 100 })
        expectPackError(.tooLong, containing: "Clip 'chime'")
    }

    func testVocabularyThatCannotSaySomeMinute() throws {
        try FixturePack.write(to: dir, ids: FixturePack.fullVocabulary.filter { $0 != "oh" })
        expectPackError(.vocabulary, containing: "cannot say 00:01", check: true)
    }

    func testManifestNamingAPathOutsideThePack() throws {
        try FixturePack.write(to: dir)
        var manifest = try String(contentsOf: dir.appendingPathComponent("pack.json"), encoding: .utf8)
        manifest = manifest.replacingOccurrences(of: "\"one.wav\"", with: "\"../../etc/passwd\"")
        try manifest.write(to: dir.appendingPathComponent("pack.json"), atomically: true, encoding: .utf8)
        expectPackError(.unsafePath, containing: "outside the pack")
    }

    func testSymlinkOutOfThePack() throws {
        try FixturePack.write(to: dir)
        let outside = FixturePack.temporaryDirectory("outside")
        defer { try? FileManager.default.removeItem(at: outside) }
        try FileManager.default.copyItem(at: dir.appendingPathComponent("two.wav"), to: outside.appendingPathComponent("two.wav"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("two.wav"))
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("two.wav"), withDestinationURL: outside.appendingPathComponent("two.wav"))
        expectPackError(.unsafePath, containing: "symbolic link")
    }

    func testBadManifest() throws {
        try FixturePack.write(to: dir)
        try Data("{ \"format\": 1, \"name\": \"x\", \"clips\": { \"one\": 5 } }".utf8).write(to: dir.appendingPathComponent("pack.json"))
        expectPackError(.badManifest, containing: "clips.one\" must be a string")
        try Data("{ not json".utf8).write(to: dir.appendingPathComponent("pack.json"))
        expectPackError(.badManifest, containing: "is not valid JSON")
        try FileManager.default.removeItem(at: dir.appendingPathComponent("pack.json"))
        expectPackError(.missingManifest, containing: "has no readable pack.json")
    }

    func testClipsInAnotherFormatAreConvertedOnceToThePackFormat() throws {
        try FixturePack.write(to: dir, format: StreamFormat(sampleRate: 8000, channels: 1), declareFormat: false)
        // Replace one clip by a stereo 16 kHz sine; it must come out mono 8 kHz with the same pitch and length.
        var stereo: [Int16] = []
        for i in 0..<16000 {
            let v = Int16(10000 * sin(2 * Double.pi * 440 * Double(i) / 16000))
            stereo += [v, v]
        }
        try WAV.encode(stereo, format: StreamFormat(sampleRate: 16000, channels: 2)).write(to: dir.appendingPathComponent("noon.wav"))
        let pack = try SoundPack(directory: dir)
        XCTAssertEqual(pack.format, StreamFormat(sampleRate: 8000, channels: 1), "the majority format wins")
        let noon = try pack.audio("noon")
        XCTAssertEqual(noon.format, pack.format)
        XCTAssertEqual(noon.frames, 8000)
        // Zero crossings of a 440 Hz tone over the middle second-half: 2 per period.
        let mid = Array(noon.samples[2000..<6000])
        let crossings = zip(mid, mid.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        XCTAssertEqual(crossings, 440, accuracy: 2)
        XCTAssertEqual(Double(mid.map { abs($0) }.max()!), 10000.0 / 32768, accuracy: 0.01)
    }

    func testWrongChannelCount() throws {
        try FixturePack.write(to: dir)
        try WAV.encode([Int16](repeating: 1, count: 600), format: StreamFormat(sampleRate: 8000, channels: 6)).write(to: dir.appendingPathComponent("six.wav"))
        try WAV.encode([Int16](repeating: 1, count: 600), format: StreamFormat(sampleRate: 8000, channels: 6)).write(to: dir.appendingPathComponent("one.wav"))
        expectPackError(.badChannels, containing: "6 channels", scan: true)
    }

    // MARK: Chime patterns

    static let bellIds = ["q1", "q2", "q3", "q4", "big"]
    static let bells = #""bells": {"quarter": ["q1", "q2", "q3", "q4"], "hour": "big"},"#

    func testWestminsterIsBuiltFromThePacksBellsAndTiming() throws {
        try FixturePack.write(
            to: dir, ids: FixturePack.fullVocabulary + Self.bellIds, spacing: Spacing(chimeGapMs: 5000),
            extraManifest: Self.bells + #""chimes": {"beat_ms": 100, "hour_after_ms": 400, "strike_interval_ms": 300, "voice_after_ms": 250},"#)
        let pack = try SoundPack(directory: dir)
        let plan = try pack.plan(hour: 14, minute: 0, style: AnnouncementStyle(chime: .westminster))
        // Changes 2-5 over 20 beats, the last note at beat 18 (1.8 s), the first stroke 0.4 s later.
        XCTAssertEqual(plan.anchorOffsetMs, 2200)
        XCTAssertEqual(plan.chime.filter { $0.clip == "big" }.map(\.offsetMs), [2200, 2500])
        XCTAssertEqual(Array(plan.chime.prefix(4).map(\.clip)), ["q3", "q1", "q2", "q4"], "change 2 = E G# F# B")
        let timeline = try pack.timeline(for: plan)
        XCTAssertEqual(timeline.anchorFrame, 2200 * 8)
        XCTAssertEqual(timeline.items.first { $0.role == .voice }?.start, 2750 * 8, "voice 250 ms after the last stroke")
        // Overlapping strikes are added, with headroom: the loudest sample stays below full scale.
        let pcm = Mixer.render(timeline) { (try? pack.audio($0).samples) ?? [] }
        XCTAssertLessThan(pcm.map { abs(Int($0)) }.max()!, 32767)
        XCTAssertEqual(try pack.plan(hour: 14, minute: 30, style: AnnouncementStyle(chime: .shipsBells)).chime.count, 5)
    }

    func testAPackCanSpellOutAPatternAsData() throws {
        try FixturePack.write(
            to: dir, ids: FixturePack.fullVocabulary + Self.bellIds,
            extraManifest: #""chimes": {"patterns": {"hour": {"notes": {"0": [{"bell": "q1", "at_ms": 0}, {"bell": "big", "at_ms": 500, "anchor": true}]}, "voice_after_ms": 100}}},"#)
        let plan = try SoundPack(directory: dir).plan(hour: 9, minute: 0, style: .standard)
        XCTAssertEqual(plan.chime.map(\.clip), ["q1", "big"])
        XCTAssertEqual(plan.anchorOffsetMs, 500)
        XCTAssertEqual(plan.voiceAfterChimeMs, 100)
    }

    func testPatternProblemsAreSentences() throws {
        try FixturePack.write(to: dir, extraManifest: #""chimes": {"patterns": {"cuckoo": {"notes": {}}}},"#)
        expectPackError(.badManifest, containing: "\"chimes.patterns\" names \"cuckoo\", which is not a chime")

        try FixturePack.write(to: dir, extraManifest: #""chimes": {"patterns": {"hour": {"notes": {"75": []}}}},"#)
        expectPackError(.badManifest, containing: "\"75\" is not a minute of the hour")

        try FixturePack.write(to: dir)
        let plain = try SoundPack(directory: dir)
        XCTAssertThrowsError(try plain.plan(hour: 9, minute: 0, style: AnnouncementStyle(chime: .westminster))) { error in
            XCTAssertTrue("\(error)".contains("needs four quarter bells and an hour bell"), "\(error)")
        }

        try FixturePack.write(to: dir, extraManifest: #""bells": {"quarter": ["q1", "q2", "q3", "q9"], "hour": "chime"},"# )
        XCTAssertThrowsError(try SoundPack(directory: dir).plan(hour: 9, minute: 15, style: AnnouncementStyle(chime: .westminster))) { error in
            XCTAssertTrue("\(error)".contains("rings bell 'q1'"), "\(error)")
        }
    }
}
