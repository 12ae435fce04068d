import Foundation
import Playback
import TalkingClockCore

/// Writes small sound packs to disk for tests: every clip a distinct, recognisable signal.
public enum FixturePack {
    /// Every clip id the default vocabulary uses (12- and 24-hour, lead-ins, chime).
    public static let fullVocabulary: [String] = {
        var ids = (0...59).map(Phrase.number)
        ids += ["oh", "am", "pm", "noon", "midnight", "oclock", "hundred", "its", "the-time-is", "chime"]
        return ids
    }()

    /// A clip's content: a deterministic pseudo-random signal seeded by its id, never silent.
    public static func signal(for id: String, frames: Int, channels: Int) -> [Int16] {
        var state: UInt64 = 1469598103934665603
        for byte in id.utf8 { state = (state ^ UInt64(byte)) &* 1099511628211 }
        var out = [Int16](repeating: 0, count: frames * channels)
        for i in out.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            var v = Int16(truncatingIfNeeded: Int64(bitPattern: state >> 33) % 16000)
            if v == 0 { v = 1 }
            out[i] = v
        }
        return out
    }

    /// Writes `pack.json` and one WAV per clip into `directory`; returns each clip's samples.
    @discardableResult
    public static func write(
        to directory: URL, ids: [String] = fullVocabulary, framesPerClip: (String) -> Int = { 200 + $0.utf8.count * 10 },
        format: StreamFormat = StreamFormat(sampleRate: 8000, channels: 1), spacing: Spacing = Spacing(),
        declareFormat: Bool = true, extraManifest: String = ""
    ) throws -> [String: [Int16]] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var clips: [String: [Int16]] = [:]
        var entries: [String] = []
        for id in ids {
            let samples = signal(for: id, frames: framesPerClip(id), channels: format.channels)
            clips[id] = samples
            try WAV.encode(samples, format: format).write(to: directory.appendingPathComponent("\(id).wav"))
            entries.append("\"\(id)\": \"\(id).wav\"")
        }
        let declared = declareFormat ? "\"sample_rate\": \(format.sampleRate), \"channels\": \(format.channels)," : ""
        let manifest = """
            { "format": 1, "name": "fixture", \(declared) \(extraManifest)
              "spacing": { "word_gap_ms": \(spacing.wordGapMs), "lead_in_gap_ms": \(spacing.leadInGapMs), "chime_gap_ms": \(spacing.chimeGapMs) },
              "clips": { \(entries.joined(separator: ", ")) } }
            """
        try manifest.write(to: directory.appendingPathComponent("pack.json"), atomically: true, encoding: .utf8)
        return clips
    }

    /// A fresh temporary directory, removed by the caller.
    public static func temporaryDirectory(_ label: String = "pack") -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("talking-clock-test-\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
