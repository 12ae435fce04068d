import Foundation
import Glibc
import Playback
@testable import Synthesis
import TalkingClockCore
import TestSupport
import XCTest

/// The synthesis engines' documented command lines, with stand-in programs on PATH. Piper is not
/// in Debian 12 and its voices come from outside PyPI, so it cannot run here: these tests hold the
/// clock to Piper's documented interface (`piper --model MODEL --output_file FILE`, the text on
/// standard input) and to what the clock does with whatever an engine gives back: a rendering
/// cached by content, and a clear sentence for an engine that fails, hangs or speaks silence.
/// festival and espeak-ng run for real elsewhere (RhythmRealTimeTests, scripts/bench idle --rhythm).
final class SynthesisEngineTests: XCTestCase {
    var dir: URL!
    var savedPath: String?

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("synthesis")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("bin"), withIntermediateDirectories: true)
        savedPath = ProcessInfo.processInfo.environment["PATH"]
        setenv("PATH", dir.appendingPathComponent("bin").path + ":" + (savedPath ?? "/usr/bin:/bin"), 1)
        // A second of a 440 Hz tone with 0.2 s of silence at each end, as an engine writes it.
        let rate = 22050
        var samples = [Int16](repeating: 0, count: rate * 7 / 5)
        for i in (rate / 5)..<(rate * 6 / 5) { samples[i] = Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / Double(rate))) }
        try WAV.encode(samples, format: StreamFormat(sampleRate: rate, channels: 1)).write(to: dir.appendingPathComponent("tone.wav"))
        try WAV.encode([Int16](repeating: 0, count: rate), format: StreamFormat(sampleRate: rate, channels: 1))
            .write(to: dir.appendingPathComponent("silence.wav"))
    }

    override func tearDownWithError() throws {
        if let savedPath { setenv("PATH", savedPath, 1) } else { unsetenv("PATH") }
        try? FileManager.default.removeItem(at: dir)
    }

    /// A stand-in `piper`: records its arguments and standard input, then does `body`.
    func installPiper(_ body: String) throws {
        let script = """
            #!/bin/sh
            printf '%s\\n' "$@" > '\(dir.path)/args'
            cat > '\(dir.path)/stdin'
            echo run >> '\(dir.path)/runs'
            \(body)
            """
        let path = dir.appendingPathComponent("bin/piper").path
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// Copies the tone to the file named after --output_file.
    let writesTone = #"while [ "$1" != "--output_file" ]; do shift; done; cp "$(dirname "$0")/../tone.wav" "$2""#

    func piperVoice() throws -> SynthesisVoice {
        let model = dir.appendingPathComponent("en_GB-alba-medium.onnx").path
        FileManager.default.createFile(atPath: model, contents: Data("model".utf8))
        return SynthesisVoice(engine: .piper, voice: nil, model: model, source: "its pack.json")
    }

    func runs() -> Int {
        ((try? String(contentsOfFile: dir.appendingPathComponent("runs").path, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    func testPiperGetsItsDocumentedCommandLineAndTheRenderingIsTrimmedConvertedAndCached() throws {
        try installPiper(writesTone)
        let synthesizer = Synthesizer(voice: try piperVoice(), cache: dir.appendingPathComponent("cache"))
        XCTAssertNil(synthesizer.problem())
        let format = StreamFormat(sampleRate: 48000, channels: 2)
        let audio = try synthesizer.render("Stand-up meeting, Zoë", format: format)
        let args = try String(contentsOfFile: dir.appendingPathComponent("args").path, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(args.count, 4, "\(args)")
        XCTAssertEqual(Array(args.prefix(2)), ["--model", dir.appendingPathComponent("en_GB-alba-medium.onnx").path])
        XCTAssertEqual(args[2], "--output_file")
        XCTAssertTrue(args[3].hasSuffix(".wav"), args[3])
        XCTAssertEqual(try String(contentsOfFile: dir.appendingPathComponent("stdin").path, encoding: .utf8), "Stand-up meeting, Zoë")
        // The engine's 0.2 s of silence at each end is cut (the first sample lands on its
        // instant), and the rest is in the pack's format: about one second at 48 kHz, stereo.
        XCTAssertEqual(audio.format, format)
        XCTAssertEqual(Double(audio.frames) / 48000, 1.0, accuracy: 0.01)
        // Again, the same words: from the cache, the engine not run again; other words run it.
        let again = try synthesizer.render("Stand-up meeting, Zoë", format: format)
        XCTAssertEqual(again.frames, audio.frames)
        XCTAssertEqual(runs(), 1)
        _ = try synthesizer.render("Feed the cat", format: format)
        XCTAssertEqual(runs(), 2)
        // A cache that another user's text hashed into (a changed key file) is not trusted.
        let cache = dir.appendingPathComponent("cache/speech")
        for key in try FileManager.default.contentsOfDirectory(atPath: cache.path) where key.hasSuffix(".key") {
            try "talking-clock speech 1\nsomething else".write(to: cache.appendingPathComponent(key), atomically: true, encoding: .utf8)
        }
        _ = try synthesizer.render("Feed the cat", format: format)
        XCTAssertEqual(runs(), 3)
    }

    func testAPiperWithoutItsModelOrProgramIsAProblemWithTheFix() throws {
        let missing = SynthesisVoice(engine: .piper, voice: nil, model: dir.appendingPathComponent("gone.onnx").path, source: "its pack.json")
        try installPiper(writesTone)
        XCTAssertEqual(Synthesizer(voice: missing, cache: nil).problem(), "the Piper model \(dir.appendingPathComponent("gone.onnx").path) is missing")
        let unnamed = SynthesisVoice(engine: .piper, voice: nil, model: nil, source: "its pack.json")
        XCTAssertEqual(Synthesizer(voice: unnamed, cache: nil).problem(), "the pack names no Piper model (\"synthesis\": {\"model\": …} in pack.json)")
        try FileManager.default.removeItem(at: dir.appendingPathComponent("bin/piper"))
        setenv("PATH", dir.appendingPathComponent("bin").path, 1)
        XCTAssertEqual(Synthesizer(voice: try piperVoice(), cache: nil).problem(), "piper is not installed (pip install piper-tts)")
    }

    func testAnEngineThatFailsHangsOrSpeaksSilenceIsNamedWithTheReason() throws {
        let voice = try piperVoice()
        var synthesizer = Synthesizer(voice: voice, cache: dir.appendingPathComponent("cache"))
        let format = StreamFormat(sampleRate: 22050, channels: 1)
        func refusal(_ text: String) -> String? {
            do {
                _ = try synthesizer.render(text, format: format)
                return nil
            } catch {
                return error.description
            }
        }
        try installPiper("exit 3")
        XCTAssertEqual(refusal("one"), "\(voice) failed on \"one\" (piper exited with 3)")
        try installPiper(#"while [ "$1" != "--output_file" ]; do shift; done; cp "$(dirname "$0")/../silence.wav" "$2""#)
        XCTAssertEqual(refusal("two"), "\(voice) rendered \"two\" as silence; check the voice (the words may be in another language)")
        try installPiper(#"while [ "$1" != "--output_file" ]; do shift; done; echo 'not a wav' > "$2""#)
        XCTAssertTrue(refusal("three")?.hasPrefix("\(voice) made no audio that can be read for \"three\"") ?? false, refusal("three") ?? "rendered")
        try installPiper("exec sleep 30")
        synthesizer.timeout = 0.5
        let started = Date()
        XCTAssertEqual(refusal("four"), "\(voice) did not finish \"four\" within 0.5 s and was stopped")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "stopped at its time-out, not when the engine gave up")
        // Nothing half-made is left in the cache.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("cache/speech").path)) ?? []
        XCTAssertEqual(left.filter { $0.hasSuffix(".wav") || $0.hasSuffix(".txt") }, [], "\(left)")
    }

    /// The cache keeps what is used: the least recently used renderings go first when it is over
    /// its bound, a rendering read from it counts as used, and the newest always stays.
    func testTheCacheLetsGoOfWhatIsNotUsed() throws {
        try installPiper(writesTone)
        let cacheRoot = dir.appendingPathComponent("cache")
        let synthesizer = Synthesizer(voice: try piperVoice(), cache: cacheRoot)
        let cache = cacheRoot.appendingPathComponent("speech")
        let format = StreamFormat(sampleRate: 22050, channels: 1)
        for text in ["alpha", "bravo", "charlie", "delta"] { _ = try synthesizer.render(text, format: format) }
        XCTAssertEqual(runs(), 4)
        usleep(20_000)
        _ = try synthesizer.render("alpha", format: format)  // from the cache: used again
        XCTAssertEqual(runs(), 4)
        Synthesizer.prune(cache, limit: (entries: 3, bytes: 1 << 30))
        let wavs = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".wav") }
        XCTAssertEqual(wavs.count, 3)
        for text in ["alpha", "charlie", "delta"] { _ = try synthesizer.render(text, format: format) }
        XCTAssertEqual(runs(), 4, "the three used most recently stayed")
        _ = try synthesizer.render("bravo", format: format)
        XCTAssertEqual(runs(), 5, "the least recently used was let go, and is rendered again")
        // By size: a bound smaller than one rendering keeps only the newest.
        Synthesizer.prune(cache, limit: (entries: 100, bytes: 1))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".wav") }.count, 1)
        _ = try synthesizer.render("bravo", format: format)
        XCTAssertEqual(runs(), 5, "the newest stayed")
        XCTAssertEqual(Synthesizer.cacheLimit.entries, 256)
    }
}
