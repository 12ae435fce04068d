import ConfigFiles
import Outputs
import ArgumentParser
import Courtesy
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
import Synthesis
import TalkingClockCore

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Validate what is configured: the sound pack (every clip decodes, all 1,440 minutes can be said, the chime rings) and the device.",
        discussion: """
            Reads the config file (--config FILE, or $XDG_CONFIG_HOME/talking-clock/config.toml if it exists) for \
            the pack, the device, the chime and the words (phrasing, midnight, lead-in); the options override it. \
            The device is opened when --device is given or a config file is read (the daemon opens the config's \
            device, "default" unless it names one). \
            Prints every problem as a sentence; exits 65 if the pack is broken, 69 if the device cannot be opened. \
            Also warns (exit 0) about voice clips whose loudness is more than 1.5 dB from the pack's median and \
            about clips with clipped samples.
            """
    )

    @Option(help: "Config file (default: $XDG_CONFIG_HOME/talking-clock/config.toml, if it exists).")
    var config: String?

    @Option(help: "Sound pack: a name or a directory containing pack.json (default: the config's, else 'default').")
    var pack: String?

    @Option(help: "Also check that this device opens: ALSA, or snapcast://HOST:PORT (default: the config's device, if a config file is read).")
    var device: String?

    @Option(
        help: "The chime the pack must ring: none, hour, westminster or ships-bells (default: the config's, else hour)."
    )
    var chime: ChimeStyle?

    @Option(help: "Language: \(SpokenLanguages.knownList) (default: the config's, else en-US).", completion: .list(SpokenLanguages.known))
    var language: String?

    @Option(help: "Prove every minute can be said in this phrasing too: \(Support.phrasingHelp) (default: the config's, else the language's).")
    var phrasing: Phrasing?

    @Flag(
        help:
            "Check every shipped language (\(SpokenLanguages.knownList)) with the pack it finds by its name: every phrasing's 1,440 minutes, every date of a leap year, every value in each unit."
    )
    var allLanguages = false

    @Option(
        help: ArgumentHelp(
            "Also write each quarter hour of every phrasing checked to DIR as WAV (PHRASING-HHMM.wav): the 96 phrases a day, to hear them all.",
            valueName: "DIR"))
    var render: String?

    func run() throws {
        try Support.checkLanguage(language)
        if allLanguages {
            guard config == nil, pack == nil, language == nil, phrasing == nil, device == nil, render == nil else {
                throw CLIError(
                    .badInput,
                    "--all-languages checks each language with the pack named after it and reads no config; it cannot be combined with --config, --pack, --language, --phrasing, --device or --render.")
            }
            try Self.checkAllLanguages(chime: chime)
            return
        }
        let overrides = ConfigOverrides(device: device, pack: pack, chime: chime, phrasing: phrasing, language: language)
        let settings: Config
        do { settings = try ConfigFile.loadConfig(path: config, overrides: overrides) } catch {
            throw CLIError(error.status, error.description)
        }
        // The device is part of what is configured only when there is a configuration; a bare
        // `check --pack DIR` checks the pack alone, as before.
        let file = config ?? ConfigFile.defaultConfigPath()
        let readsFile = file.map { FileManager.default.fileExists(atPath: $0) } ?? false
        if readsFile, let file { print("config: \(file)") }
        try Check.perform(
            pack: settings.pack, packOrigin: settings.packOrigin, device: device ?? (readsFile ? settings.device : nil),
            language: settings.language, styles: [settings.announcementStyle.phrase], chime: settings.chime,
            render: render.map { Rendering(directory: $0, style: settings.announcementStyle, volume: settings.volume) })
        // With a configuration: its rhythm and reminders, its courtesy, and what a look finds now (a
        // pack alone is checked alone).
        if readsFile {
            try Self.checkRhythm(settings, configPath: file)
            Self.printCourtesy(settings)
        }
    }

    /// The rhythm, and every reminder's words made as the daemon makes them (rendered by the pack's
    /// engine, into the same cache; recordings decoded): a problem is the daemon's refusal (exit 65).
    static func checkRhythm(_ config: Config, configPath: String?) throws {
        print("ok: speaks \(config.rhythm.description)" + (config.volumeCurve.map { "; volume curve \($0)" } ?? "") + ".")
        guard !config.reminders.isEmpty || config.date != .never else { return }
        let pack: SoundPack
        do { pack = try Support.pack(config.pack, origin: config.packOrigin, scan: false) } catch let error as CLIError {
            throw error
        }
        let audio: ReminderAudio
        do {
            audio = try ReminderAudio.prepare(
                config: config, pack: pack, configDirectory: configPath.map { Format.parentDirectory(of: $0) } ?? ".",
                cache: UserPaths.cacheDirectory(), clipID: { "text:" + $0 })
        } catch {
            print("problem: \(error.description)")
            throw CLIError(
                .packError, config.reminders.isEmpty ? "the date cannot be said (date = \"first\")." : "the reminders or the date cannot be said as configured (the problem above).")
        }
        let texts = audio.texts.count
        let recordings = audio.recordings.count
        var said: [String] = []
        if texts > 0, let synthesizer = audio.synthesizer {
            said.append("\(texts) text\(texts == 1 ? "" : "s") rendered by \(synthesizer.voice) (\(synthesizer.voice.source) names it)")
        }
        if config.voiceOutput == .speechDispatcher {
            let handed = config.reminders.filter { if case .text = $0.content { return true } else { return false } }.count
            if handed > 0 { said.append("\(handed) text\(handed == 1 ? "" : "s") handed to speech-dispatcher at \(handed == 1 ? "its" : "their") instant") }
        }
        if recordings > 0 { said.append("\(recordings) recording\(recordings == 1 ? "" : "s") decode") }
        if config.date == .first { said.append("the date can be said with the first announcement of each day") }
        print("ok: \(config.reminders.count) reminder\(config.reminders.count == 1 ? "" : "s")" + (said.isEmpty ? "." : ": " + said.joined(separator: "; ") + "."))
    }

    /// Loads and checks a pack, printing one line per finding: `problem:` (the pack is broken:
    /// exit 65), `warning:` (loudness or clipping: still exit 0), then `ok:`. `chime`: the chime
    /// the pack must be able to ring (nil: none in particular). Returns how many `note:` lines it
    /// printed (dates or values the pack cannot say).
    @discardableResult
    static func perform(
        pack name: String?, packOrigin: String? = nil, device: String?, language: String = SpokenLanguages.defaultTag,
        styles: [PhraseStyle], chime: ChimeStyle? = nil, render: Rendering? = nil
    ) throws -> Int {
        let loaded: SoundPack
        do { loaded = try Support.pack(name, origin: packOrigin, scan: true, keepingBrokenClips: true) } catch let error as CLIError {
            print("problem: \(error.description)")
            if let device {
                // Still say whether the device opens (in a common format, the pack's being unknown):
                // every problem at once, not one per run.
                do { try OutputRegistry.probe(device, format: StreamFormat(sampleRate: 48_000, channels: 2)) } catch {
                    print("problem: \(error.description)")
                }
            }
            throw CLIError(error.status, "the pack cannot be loaded.")
        }
        let pack = loaded
        do throws(PackError) { try pack.requireLanguage(language) } catch {
            print("problem: \(error.description)")
            throw CLIError(.packError, "sound pack '\(pack.name)' speaks another language.")
        }
        // Every phrasing the pack declares, and the configured one: all 1,440 minutes in each.
        var checked: [PhraseStyle] = []
        for style in styles {
            // A de pack checked for de-AT: only the phrasings the variant has.
            let has = SpokenLanguages.phrasings(of: style.language)
            for phrasing in pack.phrasingsToCheck(configured: style.phrasing) where has.contains(phrasing) {
                var each = style
                each.phrasing = phrasing
                if !checked.contains(each) { checked.append(each) }
            }
        }
        let report = pack.check(styles: checked)
        // A pack of another language, or one that declares its phrasings, is told which were proved
        // (and for which language: a de pack checked for de-AT says so).
        let wanted = SpokenLanguages.canonical(language) ?? language
        let spoken = wanted == pack.manifest.language ? wanted : "\(wanted) with a \(pack.manifest.language) pack"
        let phrasingsNote =
            pack.manifest.language == SpokenLanguages.defaultTag && pack.manifest.phrasings == nil
            ? "" : " (\(spoken): \(checked.map(\.phrasing.rawValue).joined(separator: ", ")))"
        for problem in report.problems { print("problem: \(problem.description)") }
        for warning in pack.loudnessReport().warnings { print("warning: \(warning.description)") }
        // Dates and values: a gap is a note (only `say --date`/`--value` need those words).
        let dated = pack.checkDatesAndValues(language: wanted)
        for gap in dated.gaps { print("note: \(gap)") }
        if let said = dated.summary(language: wanted) { print("ok: \(said)") }
        var deviceProblem: String?
        if let device {
            do { try OutputRegistry.probe(device, format: pack.format) } catch {
                deviceProblem = error.description
                print("problem: \(error.description)")
            }
        }
        if !report.isValid {
            throw CLIError(
                .packError,
                "sound pack '\(pack.name)' has \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s")."
            )
        }
        print(
            "ok: sound pack '\(pack.name)' (\(pack.directory.path)): \(report.clipCount) clips decode (\(pack.format)); all \(report.minutesChecked) minutes can be said\(phrasingsNote)."
        )
        var rings: [String] = []
        var cannot: [String] = []
        for style in ChimeStyle.allCases where style != .none {
            do throws(PackError) {
                _ = try pack.chimePattern(for: style)
                rings.append(style.rawValue)
            } catch {
                if style == chime {
                    // The configured chime: the daemon refuses to start with it.
                    print("problem: \(error.description)")
                    throw CLIError(
                        .packError,
                        "sound pack '\(pack.name)' cannot ring the configured chime = \"\(style.rawValue)\".")
                }
                if pack.manifest.chimes.patterns[style.rawValue] != nil {
                    print("problem: \(error.description)")  // a pattern spelled out in pack.json is broken
                    throw CLIError(
                        .packError, "sound pack '\(pack.name)': its \(style.rawValue) pattern rings a missing bell.")
                }
                cannot.append(style.rawValue)
            }
        }
        print(
            "ok: chimes it can ring: \(rings.isEmpty ? "none" : rings.joined(separator: ", "))"
                + (cannot.isEmpty ? "." : "; not \(cannot.joined(separator: ", ")) (no bells for it in pack.json)."))
        if let deviceProblem {
            throw CLIError(.deviceError, deviceProblem)
        }
        if let device {
            let driver = OutputRegistry.driver(for: device).name
            print("ok: \(driver == "alsa" ? "ALSA device" : "\(driver) output") \"\(device)\" opens for \(pack.format).")
        }
        if let render { try render.write(pack, phrasings: checked) }
        return dated.gaps.count
    }

    /// `check --render DIR`: the quarter hours of each phrasing checked, as `say --at` renders them
    /// (the configured chime, lead-in and volume), one WAV each.
    struct Rendering {
        var directory: String
        var style: AnnouncementStyle
        var volume: Int

        static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

        func write(_ pack: SoundPack, phrasings: [PhraseStyle]) throws {
            do throws(FileOutput.Failure) { try FileOutput.createDirectories(directory) } catch {
                throw CLIError(.cannotWrite, "--render: \(error.description)")
            }
            var written = 0
            for phrase in phrasings {
                var each = style
                each.phrase = phrase
                for hour in 0..<24 {
                    for minute in stride(from: 0, to: 60, by: 15) {
                        let plan: AnnouncementPlan
                        do throws(PackError) { plan = try pack.plan(hour: hour, minute: minute, style: each) } catch {
                            throw CLIError(.packError, error.description)
                        }
                        let timeline = try Support.timeline(plan, pack: pack)
                        let pcm = Mixer.render(timeline, gain: Float(volume) / 100, clips: { try? pack.audio($0).storage })
                        let name = "\(phrase.phrasing.rawValue)-" + Self.twoDigits(hour) + Self.twoDigits(minute) + ".wav"
                        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                        do throws(FileOutput.Failure) { try FileOutput.write(WAV.encode(pcm, format: timeline.format), to: path) } catch {
                            throw CLIError(.cannotWrite, "--render: \(error.description)")
                        }
                        written += 1
                    }
                }
            }
            print("ok: \(written) quarter hours written to \(directory) (PHRASING-HHMM.wav).")
        }
    }

    /// `check --all-languages`: every shipped language with its own pack (a variant with its base's
    /// when it has none), every phrasing, date and value; a line per language, then what was checked.
    /// Exit 65 when any language has a problem (a note about dates or values is not one).
    static func checkAllLanguages(chime: ChimeStyle?) throws {
        var failed: [String] = []
        var noted: [String] = []
        for tag in SpokenLanguages.known {
            print("language: \(tag)")
            let styles = SpokenLanguages.phrasings(of: tag).map { PhraseStyle(language: tag, phrasing: $0) }
            do {
                let notes = try perform(
                    pack: SpokenLanguages.defaultPack(of: tag), device: nil, language: tag, styles: styles, chime: chime)
                if notes > 0 { noted.append(tag) }
            } catch let error as CLIError {
                print("problem: \(tag): \(error.description)")
                failed.append(tag)
            }
        }
        let phrasings = SpokenLanguages.known.map { SpokenLanguages.phrasings(of: $0).count }.reduce(0, +)
        let range = SpokenLanguages.valueRange
        print(
            "checked \(SpokenLanguages.known.count) languages (\(SpokenLanguages.knownList)), each with the pack named "
                + "after it (a variant with its base's when it has none): "
                + "\(phrasings) phrasings × 1440 minutes, 366 dates of a leap year and the values \(range.lowerBound) to "
                + "\(range.upperBound) in each unit per language; "
                + (failed.isEmpty ? "no problems" : "problems in \(failed.joined(separator: ", "))")
                + (noted.isEmpty
                    ? "." : "; notes (dates or values the pack cannot say) for \(noted.joined(separator: ", ")).")
        )
        if !failed.isEmpty {
            throw CLIError(
                .packError,
                "\(failed.count) of \(SpokenLanguages.known.count) languages have problems: \(failed.joined(separator: ", ")).")
        }
    }

    /// The courtesy settings, and what one look now finds and would decide (the daemon looks once
    /// before each boundary; nothing here is remembered).
    static func printCourtesy(_ config: Config) {
        let c = config.courtesy
        let media =
            switch c.media {
            case .duck: "duck to \(c.duckPercent) %"
            case .pause: "pause players"
            case .ignore: "ignore"
            }
        print(
            "ok: courtesy: call \(c.call.rawValue), do-not-disturb \(c.doNotDisturb.rawValue), media \(media), role "
                + "\(c.role ?? "none"); voice through \(config.voiceOutput.rawValue).")
        let findings = CourtesyLook.look(budget: 0.2)
        var seen: [String] = []
        if let call = findings.call { seen.append("a call (\(call.application), \(call.role))") }
        if let dnd = findings.doNotDisturb { seen.append("do-not-disturb (\(dnd.rawValue))") }
        if findings.mediaPlaying { seen.append("media playing (\(findings.playingStreams.count) stream(s), \(findings.playingPlayers.count) player(s))") }
        if !findings.timedOut.isEmpty { seen.append("no answer within 200 ms from \(findings.timedOut.joined(separator: ", "))") }
        print(
            "ok: courtesy now: \(seen.isEmpty ? "nothing found" : seen.joined(separator: "; ")) → a boundary now would "
                + "\(CourtesyPolicy.decide(findings, c).text).")
    }
}
