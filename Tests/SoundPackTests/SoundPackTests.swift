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
        expectPackError(.vocabulary, containing: "cannot say 216 of 1440 minutes in 12h style; missing words: oh.", check: true)
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

    // MARK: - Hostile files

    /// A canonical 44-byte PCM WAV header with whatever the test wants it to claim.
    private func wavHeader(channels: Int, rate: Int = 8000, dataBytes: UInt32) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
        let blockAlign = 2 * channels
        return Array("RIFF".utf8) + le32(dataBytes &+ 36) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(channels)
            + le32(UInt32(rate)) + le32(UInt32(rate * blockAlign)) + le16(blockAlign) + le16(16) + Array("data".utf8)
            + le32(dataBytes)
    }

    private func pcmBytes(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    /// A WAV whose data chunk claims 2 GB but holds 1,000 frames: libsndfile bounds the claim by
    /// the file's size, so the clip is its 1,000 real frames, decoded exactly (no 2 GB buffer).
    func testAWAVHeaderClaiming2GBIsBoundedByTheFile() throws {
        try FixturePack.write(to: dir)
        let samples = FixturePack.signal(for: "one", frames: 1000, channels: 1)
        let file = wavHeader(channels: 1, dataBytes: 0x7FFF_FFF0) + pcmBytes(samples)
        try Data(file).write(to: dir.appendingPathComponent("one.wav"))
        let pack = try SoundPack(directory: dir)
        let audio = try pack.audio("one")
        XCTAssertEqual(audio.frames, 1000, "the frames that exist, not the 1,073,741,816 the header claims")
        XCTAssertEqual(audio.samples.map { Int16(($0 * 32768).rounded()) }, samples)
    }

    /// A FLAC whose STREAMINFO claims 2^31 samples (74 hours) is refused from its header, before
    /// any sample buffer is allocated.
    func testAFLACHeaderClaiming2GSamplesIsRefusedBeforeDecoding() throws {
        try FixturePack.write(to: dir)
        let path = dir.appendingPathComponent("two.wav")  // libsndfile goes by content, not by name
        try ClipEncoder.write(
            FixturePack.signal(for: "two", frames: 1000, channels: 1), format: StreamFormat(sampleRate: 8000, channels: 1),
            to: path.path, as: .flac)
        var flac = [UInt8](try Data(contentsOf: path))
        // "fLaC", then the STREAMINFO block header (4 bytes); its total-samples field is the low
        // 4 bits of byte 13 and bytes 14-17 of the block.
        XCTAssertEqual(Array(flac[0..<4]), Array("fLaC".utf8))
        let field = 8 + 13
        let claim: UInt64 = 1 << 31
        flac[field] = (flac[field] & 0xF0) | UInt8((claim >> 32) & 0x0F)
        for k in 0..<4 { flac[field + 1 + k] = UInt8(truncatingIfNeeded: claim >> (8 * (3 - k))) }
        try Data(flac).write(to: path)
        // `scan` reads only headers, so the refusal comes before `decode` could size a buffer.
        expectPackError(.tooLong, containing: "Clip 'two' (\(path.path)) is 268435.5 s long by its header")
        XCTAssertThrowsError(try ClipDecoder.decode(path: path.path, clip: "two")) { error in
            XCTAssertEqual((error as? PackError)?.kind, .tooLong)
        }
    }

    func testHeadersClaimingNoOrAbsurdChannelCountsAreRefused() throws {
        try FixturePack.write(to: dir)
        let samples = pcmBytes(FixturePack.signal(for: "x", frames: 600, channels: 1))
        try Data(wavHeader(channels: 0, dataBytes: UInt32(samples.count)) + samples).write(to: dir.appendingPathComponent("one.wav"))
        expectPackError(.undecodable, containing: "Clip 'one' (\(dir.path)/one.wav) cannot be decoded: Channel count is zero. Use WAV")
        try Data(wavHeader(channels: 300, dataBytes: UInt32(samples.count)) + samples).write(to: dir.appendingPathComponent("one.wav"))
        expectPackError(.badChannels, containing: "Clip 'one' (\(dir.path)/one.wav) has 300 channels; pack clips must be mono or stereo")
    }

    func testAManifestDeclaringThreeChannelsIsRefused() throws {
        try FixturePack.write(to: dir, declareFormat: false, extraManifest: "\"sample_rate\": 8000, \"channels\": 3,")
        expectPackError(.badManifest, containing: "\"channels\" is 3; packs are mono (1) or stereo (2).")
    }

    /// A named pipe would block the loader forever (the daemon's reload with it); directories and
    /// devices are not clips either. All are refused by type, before anything opens them.
    func testSpecialFilesAreRefusedWithoutOpeningThem() throws {
        try FixturePack.write(to: dir)
        let clip = dir.appendingPathComponent("nine.wav")
        try FileManager.default.removeItem(at: clip)
        XCTAssertEqual(mkfifo(clip.path, 0o600), 0)
        expectPackError(.unsafePath, containing: "Clip 'nine' (\(clip.path)) is a named pipe or other special file, not a regular file")
        try FileManager.default.removeItem(at: clip)
        try FileManager.default.createDirectory(at: clip, withIntermediateDirectories: false)
        expectPackError(.unsafePath, containing: "Clip 'nine' (\(clip.path)) is a directory, not a regular file")
        try FileManager.default.removeItem(at: clip)
        // A symbolic link inside the pack to a special file in the pack is refused the same way.
        XCTAssertEqual(mkfifo(dir.appendingPathComponent("pipe").path, 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: clip.path, withDestinationPath: "pipe")
        expectPackError(.unsafePath, containing: "is a named pipe or other special file")
        try FileManager.default.removeItem(at: clip)
        if geteuid() == 0 {
            XCTAssertEqual(mknod(clip.path, S_IFCHR | 0o600, dev_t(1 << 8 | 5)), 0)  // /dev/zero's numbers
            expectPackError(.unsafePath, containing: "Clip 'nine' (\(clip.path)) is a device, not a regular file")
        }
    }
}
