import JSON
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PhraseGrammar
import TalkingClockCore

/// Something `check` reports without failing the pack: it still says every minute, but a word
/// may stand out (louder or quieter than the others) or crackle (clipped samples).
public struct PackWarning: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case loudness, clipping
    }

    public var kind: Kind
    /// The clip ids concerned (several ids can share one file, e.g. "chime" and "bell-e3").
    public var clips: [String]
    public var message: String

    public var description: String { message }
}

/// The level of one clip file, as `check` measures it.
public struct ClipLevel: Hashable, Sendable {
    public var clips: [String]
    public var path: String
    /// Active-speech level (see `Loudness.activeLevel`), nil for a silent clip.
    public var level: Double?
    public var peak: Double
    public var clippedSamples: Int
    public var isBell: Bool
}

/// Loudness and clipping across a pack's clips.
public struct LoudnessReport: Sendable {
    public var clips: [ClipLevel]
    /// The median active-speech level of the voice clips (not the bells).
    public var medianVoiceLevel: Double?
    public var warnings: [PackWarning]
}

extension SoundPack {
    /// The ids that are bells rather than voice: "chime", every id named anywhere in the
    /// manifest's "bells" object, and any id sharing a file with one of those. Bells are meant
    /// to be louder and longer than words, so they are left out of the loudness comparison.
    public func bellClipIds() -> Set<String> {
        var ids: Set<String> = ["chime"]
        if let data = FileManager.default.contents(
            atPath: directory.appendingPathComponent(PackManifest.fileName).path),
            let object = (try? JSONTree.parse(data)) as? [String: Any], let bells = object["bells"]
        {
            func collect(_ value: Any) {
                if let s = value as? String, manifest.clips[s] != nil { ids.insert(s) }
                if let a = value as? [Any] { a.forEach(collect) }
                if let d = value as? [String: Any] { d.values.forEach(collect) }
            }
            collect(bells)
        }
        let bellFiles = Set(ids.compactMap { manifest.clips[$0] })
        for (id, file) in manifest.clips where bellFiles.contains(file) { ids.insert(id) }
        return ids
    }

    /// Measures every clip file (once per file, at its own format) and reports voice clips more
    /// than 1.5 dB from the median voice level and any clip with samples at full scale. Files
    /// that do not decode are skipped here (`check()` reports them).
    public func loudnessReport(maxDeviationDb: Double = Loudness.maxDeviationDb) -> LoudnessReport {
        let bells = bellClipIds()
        var idsByFile: [String: [String]] = [:]
        for (id, file) in manifest.clips { idsByFile[file, default: []].append(id) }
        var levels: [ClipLevel] = []
        for file in idsByFile.keys.sorted() {
            let ids = idsByFile[file]!.sorted { RecordingScript.order($0) < RecordingScript.order($1) }
            guard let path = try? PackPaths.resolve(file, clip: ids[0], in: directory),
                let audio = try? ClipDecoder.decode(path: path, clip: ids[0])
            else { continue }
            let samples = audio.samples.map { Int16(clamping: Int(($0 * Float(Loudness.fullScale)).rounded())) }
            levels.append(
                ClipLevel(
                    clips: ids, path: path, level: Loudness.activeLevel(samples, format: audio.format),
                    peak: Loudness.peak(samples), clippedSamples: Loudness.clippedSamples(samples),
                    isBell: ids.contains(where: bells.contains)))
        }
        levels.sort { RecordingScript.order($0.clips[0]) < RecordingScript.order($1.clips[0]) }
        let voiceLevels = levels.filter { !$0.isBell }.compactMap(\.level).sorted()
        var median: Double?
        if !voiceLevels.isEmpty {
            let mid = voiceLevels.count / 2
            median = voiceLevels.count % 2 == 1 ? voiceLevels[mid] : (voiceLevels[mid - 1] + voiceLevels[mid]) / 2
        }
        var warnings: [PackWarning] = []
        for clip in levels {
            let names = clip.clips.map { "'\($0)'" }.joined(separator: " and ")
            let noun = clip.clips.count == 1 ? "Clip" : "Clips"
            if let median, !clip.isBell, let level = clip.level, abs(level - median) > maxDeviationDb {
                let difference = level - median
                warnings.append(
                    PackWarning(
                        kind: .loudness, clips: clip.clips,
                        message:
                            "\(noun) \(names) (\(clip.path)) is \(oneDecimal(abs(difference))) dB \(difference > 0 ? "louder" : "quieter") than the pack's other words (active-speech level \(oneDecimal(level)) dBFS, median \(oneDecimal(median)) dBFS; more than \(oneDecimal(maxDeviationDb)) dB stands out): re-record it (talking-clock record-pack \(directory.path) --word \(clip.clips[0])) or re-normalise it to \(oneDecimal(median)) dBFS."
                    ))
            } else if !clip.isBell, clip.level == nil {
                warnings.append(
                    PackWarning(
                        kind: .loudness, clips: clip.clips,
                        message:
                            "\(noun) \(names) (\(clip.path)) is silent (every sample is zero): re-record it (talking-clock record-pack \(directory.path) --word \(clip.clips[0]))."
                    ))
            }
            if clip.clippedSamples > 0 {
                let fix =
                    clip.isBell
                    ? "regenerate the bell with more headroom (scripts/make-pack) or lower its level"
                    : "re-record it with a lower capture gain (talking-clock record-pack \(directory.path) --word \(clip.clips[0]))"
                warnings.append(
                    PackWarning(
                        kind: .clipping, clips: clip.clips,
                        message:
                            "\(noun) \(names) (\(clip.path)) is clipped: \(clip.clippedSamples) sample\(clip.clippedSamples == 1 ? " is" : "s are") at full scale (peak \(oneDecimal(clip.peak)) dBFS), which sounds as a crackle; \(fix)."
                    ))
            }
        }
        return LoudnessReport(clips: levels, medianVoiceLevel: median, warnings: warnings)
    }
}

/// One decimal place, ASCII minus ("-18.0").
func oneDecimal(_ value: Double) -> String { Format.fixed(value, 1) }
