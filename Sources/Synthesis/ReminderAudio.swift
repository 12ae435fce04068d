import FoundationEssentials
import Glibc
import SoundPack
import TalkingClockCore

/// The audio a configuration's reminders need beside the pack's clips, made at start and reload
/// (off the loop): each text rendered by the pack's synthesis engine (or taken from the cache),
/// each recording decoded, all in the pack's stream format, each with the clip id the engine
/// plans it as.
public struct ReminderAudio: Sendable {
    /// Text → clip id (`PackFacts.clipID(forText:)` of the text).
    public var texts: [String: String] = [:]
    /// Recording path as the config gives it → clip id.
    public var recordings: [String: String] = [:]
    /// Clip id → audio.
    public var audio: [String: ClipAudio] = [:]
    /// The engine, when the pack names one (a `speak` renders with it later).
    public var synthesizer: Synthesizer?

    public init() {}

    /// Everything `config`'s reminders say, ready to play with `pack`. `configDirectory`: where a
    /// relative `clip` path is read from. `clipID`: the id a text plays as (the engine's).
    ///
    /// - Throws: a sentence naming the reminder, the problem and the fix: a text nothing can
    ///   render (no engine named, not installed, failing), a recording that is not audio, words
    ///   the pack cannot say.
    public static func prepare(
        config: Config, pack: SoundPack, configDirectory: String, cache: URL?, clipID: (String) -> String
    ) throws(SynthesisError) -> ReminderAudio {
        var result = ReminderAudio()
        let voice = SynthesisVoice.of(pack: pack)
        result.synthesizer = voice.map { Synthesizer(voice: $0, cache: cache) }
        // With voice-output = "speech-dispatcher" the words (texts, the time, the date, a value)
        // are handed over as text at their instant: nothing is rendered, no date words are needed.
        let handsOver = config.voiceOutput == .speechDispatcher
        let problems = handsOver ? [] : config.wordProblems(available: pack.clipIds, pack: pack.name, directory: pack.directory.path)
        if let first = problems.first { throw SynthesisError(first) }
        for reminder in config.reminders {
            switch reminder.content {
            case .clip(let path):
                // A relative path is read from the config file's directory ("" for a config named
                // without one, `--config config.toml`: the working directory, not "/").
                let full = path.hasPrefix("/") ? path : (configDirectory.isEmpty ? "." : configDirectory) + "/" + path
                let id = "recording:" + full
                guard FileManager.default.fileExists(atPath: full) else {
                    throw SynthesisError(
                        "\(reminder.origin): 'clip' in [[reminder]] is \"\(path)\", but there is no file \(full)"
                            + (path.hasPrefix("/") ? "" : " (a relative clip is read from the config file's directory)")
                            + "; give the path of a WAV, FLAC or Ogg recording, or say = \"…\" instead.")
                }
                let decoded: ClipAudio
                do throws(PackError) { decoded = try ClipDecoder.decode(path: full, clip: "the reminder recording") } catch {
                    throw SynthesisError(
                        "\(reminder.origin): 'clip' in [[reminder]] is \"\(path)\", which cannot be played: \(error.description) Give it a WAV, FLAC or Ogg file (e.g. sox in.mp3 out.flac), or say = \"…\" instead.")
                }
                var audio = Conversion.convert(decoded, to: pack.format)
                if case .float(let s) = audio.storage { audio.storage = .compact(s) }
                result.recordings[path] = id
                result.audio[id] = audio
            case .text(let template):
                if handsOver { continue }
                for text in template.texts where result.texts[text] == nil {
                    guard let synthesizer = result.synthesizer else {
                        throw SynthesisError(
                            "\(reminder.origin): the reminder says \"\(text)\", but nothing can render it: sound pack '\(pack.name)' does not name the engine its words were made with (\"synthesis\": {\"engine\": \"espeak-ng\", \"voice\": …} in its pack.json, or a cuts.json). Use a pack that does, or record the words and give the reminder clip = \"path/to/recording.flac\" instead of say.")
                    }
                    if let problem = synthesizer.problem() {
                        throw SynthesisError(
                            "\(reminder.origin): the reminder says \"\(text)\", to be rendered in the voice of sound pack '\(pack.name)' (\(synthesizer.voice), as \(synthesizer.voice.source) says), but \(problem). Install it, or record the words and give the reminder clip = \"path/to/recording.flac\" instead of say.")
                    }
                    let audio: ClipAudio
                    do { audio = try synthesizer.render(text, format: pack.format) } catch {
                        throw SynthesisError(
                            "\(reminder.origin): the reminder's words \"\(text)\" could not be rendered: \(error.description). Fix the engine, or record the words and give the reminder clip = \"path/to/recording.flac\" instead of say.")
                    }
                    let id = clipID(text)
                    result.texts[text] = id
                    result.audio[id] = audio
                }
            }
        }
        return result
    }
}
