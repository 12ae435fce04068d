import ConfigFiles
import ALSAOutput
import Outputs
import ArgumentParser
import EventLoop
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Playback
import SoundPack
import TalkingClockCore

struct RecordPack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-pack",
        abstract: "Record your own voice pack through a microphone, one word at a time.",
        discussion: """
            Each word is shown inside a whole time phrase, e.g. "three FORTY-FIVE pm" -- say: forty-five. \
            Press Enter, say the word in capitals the way you would say it in that phrase, and stop: \
            recording ends after 0.8 s of silence. The take is trimmed, brought to the common loudness \
            (-18 dBFS active speech, peaks below -1 dBFS) and saved as DIR/voice/WORD.flac; DIR/pack.json \
            is updated. Answers are read from standard input, one line each: Enter = record / keep, \
            r = record again, p = play the take back, s = skip the word, q = quit.

            Without --word it records the words DIR does not have yet (all of them for a new pack, which \
            also gets the default pack's bells); --word re-records only the words named and leaves every \
            other file as it is. --dates and --values add the words of dates and values to those it \
            records (each shown inside a date or a value, e.g. "Saturday, November TWENTY-EIGHTH"). It \
            ends with the checks of 'talking-clock check --pack DIR'.
            """
    )

    @Argument(help: "The pack directory to create or add to, e.g. ~/.local/share/talking-clock/packs/mine.")
    var directory: String

    @Option(help: "ALSA capture device (list them with 'arecord -L').")
    var device = "default"

    @Option(
        name: .customLong("word"),
        help:
            "Record only this word or unit (repeatable), e.g. --word forty-five, --word 'quarter past' (a unit: words of one phrase said together), --word saturday (a date's word); replaces the pack's clip."
    )
    var words: [String] = []

    @Option(help: "Which words the pack needs: a phrasing of the language (default: en-US 12h, the others casual).")
    var phrasing: String?

    @Option(help: "The pack's language: \(SpokenLanguages.knownList) (default: the pack's, else en-US).", completion: .list(SpokenLanguages.known))
    var language: String?

    @Flag(help: "Record every compound minute (twenty-one … fifty-nine) as a whole word instead of composing it.")
    var allCompounds = false

    @Flag(help: "Also record the words of dates (weekdays, the days of the month, months), so that 'say --date' can speak.")
    var dates = false

    @Flag(help: "Also record the words of values (the numbers -99 to 150, minus, degrees, percent), so that 'say --value' can speak.")
    var values = false

    @Option(help: "Sample rate in Hz (default: the pack's own; 22050 for a new pack).")
    var rate: Int?

    @Flag(help: "Do not copy the default pack's bells into a new pack (then set chime = \"none\").")
    var noBells = false

    @Option(help: "Longest take, in seconds.")
    var maxSeconds: Double = 5

    @Option(help: "ALSA playback device for 'p' (play a take back).")
    var playDevice = "default"

    /// Silence after speech that ends a take.
    static let trailingSilence = 0.8
    /// Gap between words in a new pack: these are separate recordings, not cut from one phrase.
    static let wordGapMs = 120
    static let leadInGapMs = 150

    func run() throws {
        try Support.checkLanguage(language)
        let writer = PackWriter(directory: URL(fileURLWithPath: directory))
        let existing: JSONValue?
        do throws(PackError) { existing = try writer.readManifest() } catch {
            throw CLIError(
                .packError, error.description + " record-pack adds to an existing pack only if its pack.json is valid.")
        }
        // An existing pack keeps its language: words of another one would make it say nonsense.
        let packLanguage = existing?["language"]?.stringValue.flatMap(SpokenLanguages.canonical)
        let language = SpokenLanguages.canonical(self.language ?? packLanguage ?? SpokenLanguages.defaultTag)!
        // A regional variant may add its words to a pack of its base language (de-AT's
        // "dreiviertel" to a de pack), which stays a pack of that language.
        if existing != nil, !SpokenLanguages.packSpeaks(packLanguage ?? SpokenLanguages.defaultTag, for: language) {
            throw CLIError(
                .badInput,
                "--language: the pack at \(writer.directory.path) speaks \(packLanguage ?? SpokenLanguages.defaultTag); record \(language) into a new directory.")
        }
        let phrasing = self.phrasing.map(Phrasing.init(rawValue:)) ?? SpokenLanguages.defaultPhrasing(of: language)
        if let problem = SpokenLanguages.problem(language: language, phrasing: phrasing) {
            throw CLIError(.badInput, "--phrasing: \(problem)")
        }
        for word in words {
            if word == "chime" || word.hasPrefix("bell") {
                throw CLIError(
                    .badInput,
                    "--word: '\(word)' is a bell, not a word: record-pack records the voice only (a new pack gets the default pack's bells; to use your own, add the file to pack.json)."
                )
            }
            do throws(RecordingWordError) { try RecordingScript.validate(word, language: language) } catch {
                throw CLIError(.badInput, "--word: \(error.description)")
            }
        }
        guard (1...30).contains(maxSeconds) else {
            throw CLIError(.badInput, "--max-seconds: \(maxSeconds) is out of range; use 1 to 30 seconds.")
        }
        if let rate, !(8000...192_000).contains(rate) {
            throw CLIError(
                .badInput, "--rate: \(rate) Hz is out of range; use 8000-192000 (22050 is plenty for speech).")
        }

        if let channels = existing?["channels"]?.intValue, channels != 1 {
            throw CLIError(
                .badInput,
                "\(writer.manifestURL.path) declares \(channels) channels; record-pack records mono, so record into a new directory."
            )
        }
        let packRate = existing?["sample_rate"]?.intValue
        if let rate, let packRate, rate != packRate {
            throw CLIError(
                .badInput,
                "--rate: the pack at \(writer.directory.path) is \(packRate) Hz; record at the same rate (leave out --rate) so every clip has one format."
            )
        }
        let format = StreamFormat(sampleRate: rate ?? packRate ?? 22050, channels: 1)

        let todo = plan(language: language, phrasing: phrasing, existing: existing, writer: writer)
        if todo.isEmpty {
            let also = dates && values ? ", dates and values" : dates ? " and dates" : values ? " and values" : ""
            print(
                "Sound pack \(writer.directory.path) already has every word for \(phrasing.rawValue) phrasing\(also); to record one again, pass --word WORD."
            )
        } else {
            let capture: ALSACapture
            do throws(SinkError) { capture = try ALSACapture(device: device, format: format) } catch {
                throw CLIError(.deviceError, error.description)
            }
            var session = Session(
                writer: writer, manifest: existing, format: format, capture: capture, language: language,
                phrasing: phrasing, maxSeconds: maxSeconds,
                copyBells: !noBells, playDevice: playDevice)
            defer { capture.close() }
            print(
                "Recording \(todo.count) word\(todo.count == 1 ? "" : "s") into \(writer.directory.path) (\(format.sampleRate) Hz mono) from ALSA device \"\(device)\"."
            )
            print(
                "For each word: press Enter, say the word in capitals the way you would say it in that phrase, then stop; recording ends after \(oneDecimal(Self.trailingSilence)) s of silence."
            )
            var saved = 0
            var skipped: [String] = []
            words: for (i, word) in todo.enumerated() {
                switch try session.record(word, number: i + 1, of: todo.count) {
                case .saved: saved += 1
                case .skipped: skipped.append(word)
                case .quit:
                    skipped += todo[i...]
                    break words
                }
            }
            print(
                "Saved \(saved) of \(todo.count) word\(todo.count == 1 ? "" : "s")."
                    + (skipped.isEmpty
                        ? ""
                        : " Not recorded: \(skipped.joined(separator: ", ")); run the command again to record them."))
        }
        let languageOption = language == SpokenLanguages.defaultTag ? "" : " --language \(language)"
        let phrasingOption = phrasing == SpokenLanguages.defaultPhrasing(of: language) ? "" : " --phrasing \(phrasing)"
        print("Checking the pack (talking-clock check --pack \(writer.directory.path)\(languageOption)\(phrasingOption)):")
        try Check.perform(
            pack: writer.directory.path, device: nil, language: language,
            styles: [PhraseStyle(language: language, phrasing: phrasing)])
    }

    /// The words to record: those named with --word, else those the pack lacks.
    func plan(language: String, phrasing: Phrasing, existing: JSONValue?, writer: PackWriter) -> [String] {
        if !words.isEmpty {
            var seen = Set<String>()
            return words.filter { seen.insert($0).inserted }
        }
        let clips = existing?["clips"]?.objectValue ?? [:]
        let script = RecordingScript.words(
            language: language, phrasing: phrasing, allCompounds: allCompounds, dates: dates, values: values)
        return script.filter { word in
            guard let path = clips[word]?.stringValue else { return true }
            return (try? PackPaths.resolve(path, clip: word, in: writer.directory)) == nil
        }
    }
}

/// One word's answer.
enum WordOutcome { case saved, skipped, quit }

/// The interactive part of `record-pack`: prompts on stdout, answers from stdin, takes from the
/// capture device, clips and manifest through `PackWriter`.
struct Session {
    let writer: PackWriter
    var manifest: JSONValue?
    let format: StreamFormat
    let capture: ALSACapture
    /// The pack's language (a known tag).
    let language: String
    let phrasing: Phrasing
    let maxSeconds: Double
    let copyBells: Bool
    let playDevice: String

    init(
        writer: PackWriter, manifest: JSONValue?, format: StreamFormat, capture: ALSACapture, language: String,
        phrasing: Phrasing, maxSeconds: Double,
        copyBells: Bool, playDevice: String
    ) {
        self.writer = writer
        self.manifest = manifest
        self.format = format
        self.capture = capture
        self.language = language
        self.phrasing = phrasing
        self.maxSeconds = maxSeconds
        self.copyBells = copyBells
        self.playDevice = playDevice
    }

    /// Prints without a newline and flushes, so a prompt shows before the program waits.
    func prompt(_ text: String) {
        print(text, terminator: "")
        fflush(nil)
    }

    /// One answer line, lower-cased; nil when the input has ended.
    func answer() -> String? {
        guard let line = readLine(strippingNewline: true) else { return nil }
        // A terminal echoes the Enter; scripted input does not, so end the prompt's line here.
        if isatty(STDIN_FILENO) == 0 { print("") }
        return line.trimmingWhitespace().lowercased()
    }

    mutating func record(_ word: String, number: Int, of total: Int) throws -> WordOutcome {
        let shown: String
        let say: String
        if word.contains(" ") {
            // A unit: its words said together, as in the phrase ("QUARTER PAST three").
            shown =
                RecordingScript.carrier(forUnit: word, language: language, phrasing: phrasing).map {
                    RecordingScript.prompt($0.phrase, marking: $0.range)
                } ?? "\"\(word.uppercased())\""
            say = word.split(separator: " ").map { RecordingScript.spoken(String($0), language: language) }
                .joined(separator: " ") + " (together, as one)"
        } else {
            shown =
                RecordingScript.carrier(for: word, language: language, phrasing: phrasing).map {
                    RecordingScript.prompt($0.phrase, marking: $0.index)
                }
                ?? "\"\(word.uppercased())\""
            say = RecordingScript.spoken(word, language: language)
        }
        print("")
        print("[\(number)/\(total)] \(shown) -- say: \(say)")
        while true {
            prompt("Press Enter to record (s = skip, q = quit): ")
            guard let start = answer() else {
                print("\nInput ended: stopping.")
                return .quit
            }
            switch start {
            case "": break
            case "s": return .skipped
            case "q": return .quit
            default:
                print("  Answer with Enter (record), s (skip) or q (quit).")
                continue
            }
            print("  recording... (speak now)")
            fflush(nil)
            let overrunsBefore = capture.overruns
            let (take, ended) = try captureTake()
            if take.isEmpty {
                throw CLIError(
                    .deviceError,
                    "ALSA capture device \"\(capture.deviceName)\" delivered no audio (for a 'file' device: its infile has ended). Check the device with 'arecord -L' and 'arecord -D \(capture.deviceName) -d 3 /tmp/test.wav'."
                )
            }
            let clip: TakeProcessor.Clip
            switch TakeProcessor.process(take, format: format) {
            case .failure(.clipped(let samples)):
                print(
                    "  The take is clipped: \(samples) sample\(samples == 1 ? "" : "s") hit full scale, which sounds as a crackle. Lower the capture gain (alsamixer, F4 for the capture controls) or move back from the microphone, then record it again."
                )
                continue
            case .failure(.noSpeech(let loudest, let room)):
                print(
                    "  No speech heard: the loudest moment was \(oneDecimal(loudest)) dBFS with the room at \(oneDecimal(room)) dBFS; speech needs about \(oneDecimal(SpeechEndpointDetector.minimumSpeechLevel)) dBFS or louder. Move closer or raise the capture gain (alsamixer, F4), check the device ('arecord -L'), then record it again."
                )
                continue
            case .success(let processed):
                clip = processed
            }
            print(
                "  heard \(oneDecimal(clip.speechSeconds)) s of speech (loudest \(oneDecimal(clip.loudestLevel)) dBFS, room \(oneDecimal(clip.roomLevel)) dBFS); kept \(Format.fixed(Double(clip.samples.count) / Double(format.sampleRate), 2)) s at \(oneDecimal(clip.level)) dBFS (gain \(clip.gainDb >= 0 ? "+" : "")\(oneDecimal(clip.gainDb)) dB)."
            )
            if clip.limitedByPeak && clip.level < Loudness.targetLevel - 0.5 {
                print(
                    "  note: a sharp peak holds this take at \(oneDecimal(clip.level)) dBFS, \(oneDecimal(Loudness.targetLevel - clip.level)) dB under the other words; if it sounds quieter, record it again a little further from the microphone."
                )
            }
            if clip.reachesEnd {
                print(
                    "  note: the sound was still going when the take ended (\(ended ? "end of input" : "\(oneDecimal(maxSeconds)) s limit")); say only the word, or record it again."
                )
            }
            if capture.overruns > overrunsBefore {
                print("  note: audio was lost while recording (the system was busy); record it again if it sounds cut.")
            }
            while true {
                prompt("  Enter = keep, r = record again, p = play back, s = skip, q = quit: ")
                guard let decision = answer() else {
                    print("\nInput ended: stopping without keeping this take.")
                    return .quit
                }
                switch decision {
                case "":
                    try save(word, clip.samples)
                    return .saved
                case "r": break
                case "p":
                    play(clip.samples)
                    continue
                case "s": return .skipped
                case "q": return .quit
                default:
                    print("  Answer with Enter (keep), r (record again), p (play back), s (skip) or q (quit).")
                    continue
                }
                break
            }
        }
    }

    /// Records until the speaker has finished (see `SpeechEndpointDetector`), the time limit, or
    /// the end of the device's input. Audio captured before this call is discarded.
    func captureTake() throws -> (samples: [Int16], inputEnded: Bool) {
        do throws(SinkError) {
            try capture.restart()
            var detector = SpeechEndpointDetector(
                format: format, trailingSilence: RecordPack.trailingSilence, maxSeconds: maxSeconds)
            var buffer = [Int16](repeating: 0, count: max(1, format.sampleRate / 50))
            var take: [Int16] = []
            while true {
                let n = try capture.read(into: &buffer)
                if n == 0 { return (take, true) }
                take += buffer[0..<n]
                if detector.feed(buffer[0..<n]) { return (take, false) }
            }
        } catch {
            throw CLIError(.deviceError, error.description)
        }
    }

    func play(_ samples: [Int16]) {
        let sink: any AudioSink
        do throws(SinkError) { sink = try OutputRegistry.open(playDevice, format: format) } catch {
            print("  Cannot play it back: \(error.description) Choose a playback device with --play-device.")
            return
        }
        let timeline = Timeline(
            items: [TimelineItem(clip: "take", start: 0, frames: samples.count / format.channels, role: .voice)],
            anchorFrame: 0,
            format: format)
        let session = PlaybackSession(sink: sink, timeline: timeline, pcm: samples, clock: WallClock.now)
        PlaybackRunner.run(session, sink: sink)
        sink.close()
        if let failure = session.failure { print("  Playback failed: \(failure.description)") }
    }

    /// Writes the clip, then the manifest that names it (so pack.json never names a missing file).
    /// A new pack gets its manifest, and the default pack's bells, with its first clip.
    mutating func save(_ word: String, _ samples: [Int16]) throws {
        // A unit's file has underscores for its spaces ("voice/une_heure.flac"); its id keeps them.
        let relative = "voice/\(word.split(separator: " ").joined(separator: "_")).flac"
        do throws(PackWriteError) {
            try writer.writeClip(samples, format: format, relativePath: relative)
            var document: JSONValue
            if let manifest { document = manifest } else { document = try newManifest() }
            var clips = document["clips"]?.objectValue ?? [:]
            clips[word] = .string(relative)
            document["clips"] = .object(clips)
            // A pack of another language than US English says so, and which phrasings it was
            // recorded for (`check` proves each); an English pack is written as before.
            // A base-language pack recorded into for a variant keeps its language and phrasings
            // (the variant's phrasings have the base's names, and `check --language de-AT` proves them).
            if language != SpokenLanguages.defaultTag, document["language"] == nil || document["language"] == .string(language) {
                document["language"] = .string(language)
                var phrasings = document["phrasings"]?.arrayValue?.compactMap(\.stringValue) ?? []
                if !phrasings.contains(phrasing.rawValue) { phrasings.append(phrasing.rawValue) }
                document["phrasings"] = .array(phrasings.map(JSONValue.string))
            }
            if document != manifest {
                try writer.writeManifest(document)
                manifest = document
            }
        } catch {
            throw CLIError(.cannotWrite, error.description)
        }
        print("  saved \(writer.directory.appendingPathComponent(relative).path)")
    }

    /// The manifest of a new pack (written with its first clip): the recording format, a gap
    /// between words, and the default pack's bells unless --no-bells.
    func newManifest() throws(PackWriteError) -> JSONValue {
        var clips: [String: JSONValue] = [:]
        var spacing: [String: JSONValue] = [
            "word_gap_ms": .int(RecordPack.wordGapMs), "lead_in_gap_ms": .int(RecordPack.leadInGapMs),
            "chime_gap_ms": .int(0),
        ]
        var bells: JSONValue?
        var chimes: JSONValue?
        if copyBells {
            if let (defaultDirectory, defaults) = defaultPack(), let defaultBells = defaults["bells"] {
                let defaultClips = defaults["clips"]?.objectValue ?? [:]
                for id in Set(defaultBells.allStrings + ["chime"]).sorted() {
                    guard let relative = defaultClips[id]?.stringValue,
                        let source = try? PackPaths.resolve(relative, clip: id, in: defaultDirectory)
                    else { continue }
                    if !FileManager.default.fileExists(atPath: writer.directory.appendingPathComponent(relative).path) {
                        try writer.copyFile(from: URL(fileURLWithPath: source), to: relative)
                    }
                    clips[id] = .string(relative)
                }
                bells = defaultBells
                chimes = defaults["chimes"]  // the tempo of the chimes those bells ring
                if let gap = defaults["spacing"]?["chime_gap_ms"] { spacing["chime_gap_ms"] = gap }
            } else {
                print(
                    "  note: no default pack found to copy bells from; this pack has no chime (set chime = \"none\" in config.toml)."
                )
            }
        }
        var object: [String: JSONValue] = [
            "format": .int(PackManifest.supportedFormat),
            "name": .string(writer.directory.lastPathComponent),
            "description": .string(
                "Voice recorded with talking-clock record-pack" + (bells == nil ? "" : "; bells from the default pack")),
            "license": .string(
                "voice: recorded by the pack's owner"
                    + (bells == nil ? "" : "; bells: synthesised by talking-clock's scripts/make-pack, CC0")),
            "sample_rate": .int(format.sampleRate), "channels": .int(format.channels),
            "spacing": .object(spacing), "clips": .object(clips),
        ]
        if let bells { object["bells"] = bells }
        if let chimes { object["chimes"] = chimes }
        return .object(object)
    }

    /// The bundled default pack's directory and manifest, if it can be found.
    func defaultPack() -> (URL, JSONValue)? {
        guard case .success(let url) = PackLocator.locate("default"),
            url.standardizedFileURL.path != writer.directory.path,
            let data = FileManager.default.contents(atPath: url.appendingPathComponent(PackManifest.fileName).path),
            let document = JSONValue(parsing: data)
        else { return nil }
        return (url.standardizedFileURL, document)
    }
}

/// One decimal place ("-18.0").
private func oneDecimal(_ value: Double) -> String { Format.fixed(value, 1) }
