import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// `talking-clock record-pack` as a person meets it, with prepared recordings instead of a
/// microphone: ALSA's `file` PCM reads them from its `infile` as a capture device (defined in an
/// asoundrc under a private XDG_CONFIG_HOME), and the answers come from a script on stdin.
final class RecordPackTests: XCTestCase {
    var work: URL!
    let rate = 22050
    typealias S = SyntheticAudio

    override func setUp() { work = FixturePack.temporaryDirectory("record") }
    override func tearDown() { try? FileManager.default.removeItem(at: work) }

    var defaultPack: URL { BinaryRunner.packageRoot.appendingPathComponent("Sounds/default") }

    /// A copy of the default pack without the words of dates and values (scripts/make-pack makes
    /// them for the default pack): a pack as people had before, which says only the time.
    func copyOfDefaultPackSayingOnlyTheTime(to pack: URL) throws {
        try FileManager.default.copyItem(at: defaultPack, to: pack)
        let writer = try PackWriter(directory: pack)
        var manifest = try XCTUnwrap(try writer.readManifest())
        var clips = try XCTUnwrap(manifest["clips"]?.objectValue)
        let time = Set(SpokenLanguages.phrasings(of: "en-US").flatMap { SpokenLanguages.vocabulary(of: "en-US", phrasing: $0) })
        let dateAndValue = Set(
            SpokenLanguages.dateWords(of: "en-US") + SpokenLanguages.valueWords(of: "en-US", unit: "degrees")
                + SpokenLanguages.valueWords(of: "en-US", unit: "percent"))
        for id in dateAndValue.subtracting(time) {
            XCTAssertNotNil(clips.removeValue(forKey: id), "the default pack says '\(id)'")
            try FileManager.default.removeItem(at: pack.appendingPathComponent("voice/\(id).flac"))
        }
        manifest["clips"] = .object(clips)
        try writer.writeManifest(manifest)
    }

    /// A word of the default pack (trimmed there to 20 ms before and 40 ms after the speech).
    func spoken(_ word: String) throws -> [Double] {
        try ClipDecoder.decode(path: defaultPack.appendingPathComponent("voice/\(word).flac").path, clip: word).samples
            .map(Double.init)
    }

    func decode(_ url: URL) throws -> [Int16] {
        try ClipDecoder.decode(path: url.path, clip: url.lastPathComponent).samples.map {
            Int16(clamping: Int(($0 * 32768).rounded()))
        }
    }

    /// Lays the takes out one after another, each with `lead` seconds of room before it and
    /// 1.2 s after it, under room noise at −66 dBFS, and makes that file the input of a capture
    /// device. Returns the environment that defines the device.
    func microphone(_ takes: [(lead: Double, audio: [Double])]) throws -> [String: String] {
        var signal: [Double] = []
        for take in takes {
            signal += S.silence(take.lead, rate: rate) + take.audio + S.silence(1.2, rate: rate)
        }
        signal = zip(signal, S.noise(Double(signal.count) / Double(rate) + 1, level: -66, rate: rate, seed: 42)).map {
            $0 + $1
        }
        let input = work.appendingPathComponent("microphone.raw")
        try S.rawBytes(S.int16(signal)).write(to: input)
        let config = work.appendingPathComponent("xdg/alsa")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try """
        pcm.testmic {
            type file
            slave.pcm null
            file "/dev/null"
            infile "\(input.path)"
            format raw
        }

        """.write(to: config.appendingPathComponent("asoundrc"), atomically: true, encoding: .utf8)
        return ["XDG_CONFIG_HOME": work.appendingPathComponent("xdg").path]
    }

    /// Index of the first sample above a tenth of the clip's peak: the same point of the same
    /// word in two recordings, whatever their gain.
    func attack(_ x: [Double]) -> Int {
        let peak = x.map(abs).max() ?? 0
        return x.firstIndex { abs($0) > peak / 10 } ?? 0
    }

    /// `--values` adds the words of values to a pack that says the time: each is shown inside a
    /// value, and `check` then proves every value in both units (the dates stay a note).
    func testRecordsTheWordsOfValuesIntoAPack() throws {
        let pack = work.appendingPathComponent("mine")
        try copyOfDefaultPackSayingOnlyTheTime(to: pack)
        let has = Set(try XCTUnwrap(try PackWriter(directory: pack).readManifest()?["clips"]?.objectValue).keys)
        let todo = RecordingScript.words(language: "en-US", phrasing: .twelveHour, dates: false, values: true)
            .filter { !has.contains($0) }
        XCTAssertEqual(todo, ["degrees", "degree", "sixty", "seventy", "eighty", "ninety", "minus", "percent"])
        let env = try microphone(todo.map { _ in (lead: 0.3, audio: try spoken("seven")) })
        let r = try BinaryRunner.run(
            ["record-pack", pack.path, "--device", "testmic", "--values"], environment: env,
            input: String(repeating: "\n\n", count: todo.count))
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("[1/8] \"zero DEGREES\" -- say: degrees\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("[3/8] \"SIXTY degrees\" -- say: sixty\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("[7/8] \"MINUS one degree\" -- say: minus\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("[8/8] \"zero PERCENT\" -- say: percent\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Saved 8 of 8 words.\n"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains("ok: all 250 values (-99 to 150) in degrees and in percent can be said (en-US).\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("note: Sound pack 'default' cannot say 366 of 366 dates of a leap year (en-US)"), r.stdout)
        let said = try BinaryRunner.run(["say", "--dry-run", "--value", "-61", "--unit", "degrees", "--pack", pack.path])
        XCTAssertEqual(said.stdout, "minus sixty-one degrees\nclips: minus sixty one degrees\n", said.stderr)
    }

    /// `--language de`: every German word of the casual phrasing, each shown inside a German
    /// sentence; the pack declares its language and phrasing, and `check` proves them.
    func testRecordsAPackOfAnotherLanguage() throws {
        let words = RecordingScript.words(language: "de", phrasing: .casual)
        let voices = try ["one", "three", "seven", "twelve", "forty", "noon"].map(spoken)
        let env = try microphone(words.indices.map { (lead: 0.3, audio: voices[$0 % voices.count]) })
        let pack = work.appendingPathComponent("meins")
        let r = try BinaryRunner.run(
            ["record-pack", pack.path, "--device", "testmic", "--language", "de"], environment: env,
            input: String(repeating: "\n\n", count: words.count))
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let n = words.count
        XCTAssertTrue(r.stdout.contains("[1/\(n)] \"VIERTEL nach eins\" -- say: Viertel\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("] \"HALB zwei\" -- say: halb\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Saved \(n) of \(n) words.\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Checking the pack (talking-clock check --pack \(pack.path) --language de):"), r.stdout)
        XCTAssertTrue(r.stdout.contains("all 1440 minutes can be said (de: casual).\n"), r.stdout)
        let manifest = try XCTUnwrap(try PackWriter(directory: pack).readManifest())
        XCTAssertEqual(manifest["language"], .string("de"))
        XCTAssertEqual(manifest["phrasings"], .array([.string("casual")]))
        XCTAssertEqual(manifest["clips"]?["halb"], .string("voice/halb.flac"))

        // Austrian German adds one word to it, and it stays a German pack that speaks both.
        let austrian = try BinaryRunner.run(
            ["record-pack", pack.path, "--device", "testmic", "--language", "de-AT"], environment: env, input: "\n\n")
        XCTAssertEqual(austrian.status, 0, austrian.stdout + austrian.stderr)
        XCTAssertTrue(austrian.stdout.contains("Recording 1 word into"), austrian.stdout)
        XCTAssertTrue(austrian.stdout.contains("[1/1] \"DREIVIERTEL zwei\" -- say: dreiviertel\n"), austrian.stdout)
        XCTAssertTrue(austrian.stdout.contains("all 1440 minutes can be said (de-AT with a de pack: casual).\n"), austrian.stdout)
        let after = try XCTUnwrap(try PackWriter(directory: pack).readManifest())
        XCTAssertEqual(after["language"], .string("de"))
        XCTAssertEqual(after["phrasings"], .array([.string("casual")]))
        XCTAssertEqual(after["clips"]?["dreiviertel"], .string("voice/dreiviertel.flac"))
        let german = try BinaryRunner.run(["check", "--pack", pack.path, "--language", "de", "--chime", "none"])
        XCTAssertEqual(german.status, 0, german.stdout + german.stderr)

        // An English recording into it is refused: the pack speaks German.
        let english = try BinaryRunner.run(["record-pack", pack.path, "--language", "en-US"], environment: env, input: "")
        XCTAssertEqual(english.status, ExitStatus.badInput.rawValue)
        XCTAssertEqual(
            english.stderr, "talking-clock: --language: the pack at \(pack.path) speaks de; record en-US into a new directory.\n")
    }

    func testRecordsAWholePackTrimmedAndEvenFromTakesAtDifferentLevels() throws {
        let words = RecordingScript.words(for: .twelveHour)
        var inputLevels: [Double] = []
        var takes: [(lead: Double, audio: [Double])] = []
        for (i, word) in words.enumerated() {
            let gain = -12 + Double((i * 5) % 13)  // -12 … 0 dB: a speaker who moves about
            let audio = try spoken(word).map { $0 * S.gain(gain) }
            inputLevels.append(
                Loudness.activeLevel(S.int16(audio), format: StreamFormat(sampleRate: rate, channels: 1))!)
            takes.append((lead: 0.3 + 0.1 * Double(i % 5), audio: audio))
        }
        let env = try microphone(takes)
        let pack = work.appendingPathComponent("mine")
        let r = try BinaryRunner.run(
            ["record-pack", pack.path, "--device", "testmic"], environment: env,
            input: String(repeating: "\n\n", count: words.count))
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("[1/29] \"ONE fifteen pm\" -- say: one\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("[23/29] \"one FORTY-FIVE pm\" -- say: forty-five\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Saved 29 of 29 words.\n"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("all 1440 minutes can be said.\nok: chimes it can ring: hour, westminster, ships-bells.\n"), r.stdout)
        XCTAssertFalse(r.stdout.contains("warning:"), r.stdout)

        var levels: [Double] = []
        let format = StreamFormat(sampleRate: rate, channels: 1)
        for (i, word) in words.enumerated() {
            let clip = try decode(pack.appendingPathComponent("voice/\(word).flac"))
            let original = takes[i].audio
            // The clip, aligned with the placed word on its attack, keeps 20 ms before the word's
            // onset and 40 ms after its end, and no more of the room around it. "The word" is
            // measured on the placed recording, in 5 ms frames, against the room at -66 dBFS:
            // what stands 6 dB above the room must be kept with its margins; what is 4 dB under
            // it may go, but more than the margins beyond that is room left in.
            let start = attack(original) - attack(S.double(clip))
            let end = start + clip.count
            let frames = Loudness.frameLevels(S.int16(original), frameLength: 110)
            func span(above level: Double) -> (Int, Int) {
                let loud = frames.indices.filter { frames[$0] > level }
                return (loud.first! * 110, (loud.last! + 1) * 110)
            }
            let (audibleStart, audibleEnd) = span(above: -60)
            let (anyStart, anyEnd) = span(above: -70)
            let ms = { (frames: Int) in Double(frames) * 1000 / Double(self.rate) }
            XCTAssertGreaterThanOrEqual(ms(audibleStart - start), 15, "\(word): onset cut")
            XCTAssertGreaterThanOrEqual(ms(end - audibleEnd), 35, "\(word): end cut")
            XCTAssertLessThanOrEqual(ms(anyStart - start), 25, "\(word): room left before")
            XCTAssertLessThanOrEqual(ms(end - anyEnd), 45, "\(word): room left after")
            levels.append(try XCTUnwrap(Loudness.activeLevel(clip, format: format)))
        }
        XCTAssertGreaterThan(inputLevels.max()! - inputLevels.min()!, 10, "the takes differ by more than 10 dB")
        XCTAssertLessThanOrEqual(levels.max()! - levels.min()!, Loudness.maxDeviationDb, "\(levels)")
        XCTAssertEqual(levels.reduce(0, +) / Double(levels.count), Loudness.targetLevel, accuracy: 0.2)

        // A new pack gets the default pack's bells; the voice is the person's.
        let manifest = try XCTUnwrap(try PackWriter(directory: pack).readManifest())
        XCTAssertEqual(manifest["clips"]?["chime"], .string("bells/bell-e3.flac"))
        XCTAssertEqual(manifest["sample_rate"], .int(22050))
        XCTAssertEqual(manifest["spacing"]?["word_gap_ms"], .int(120))

        let check = try BinaryRunner.run(["check", "--pack", pack.path])
        XCTAssertEqual(check.status, 0, check.stdout)
        // Recorded without --dates/--values: a note each for the dates and the two units, no problem.
        let notes = check.stdout.split(separator: "\n").filter { $0.hasPrefix("note: Sound pack 'mine' cannot say ") }
        XCTAssertEqual(notes.count, 3, check.stdout)
        XCTAssertEqual(
            check.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("note: ") }
                .joined(separator: "\n"),
            "ok: sound pack 'mine' (\(pack.path)): 35 clips decode (22050 Hz, 1 channel, 16-bit); all 1440 minutes can be said.\n"
                + "ok: chimes it can ring: hour, westminster, ships-bells.\n"
        )
        let defaults = try XCTUnwrap(try PackWriter(directory: BinaryRunner.packageRoot.appendingPathComponent("Sounds/default")).readManifest())
        XCTAssertNotNil(defaults["chimes"])
        XCTAssertEqual(manifest["chimes"], defaults["chimes"], "the default pack's chime tempo comes with its bells")
    }

    func testReRecordingOneWordRefusesSilentAndClippedTakesAndChangesOnlyThatWord() throws {
        let pack = work.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: defaultPack, to: pack)
        let five = try spoken("five")
        let env = try microphone([
            (lead: 5.5, audio: []),  // nothing said before the 5 s limit
            (lead: 0.5, audio: five.map { $0 * 8 }),  // far too much gain: clipped
            (lead: 0.5, audio: five.map { $0 * S.gain(-5) }),
        ])
        let play = work.appendingPathComponent("played.wav")
        let r = try BinaryRunner.run(
            [
                "record-pack", pack.path, "--word", "five", "--device", "testmic", "--play-device",
                "file:FILE=\(play.path),FORMAT=wav",
            ],
            environment: env, input: "\n\n\np\n\n")
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("[1/1] \"FIVE fifteen pm\" -- say: five\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  No speech heard: the loudest moment was -"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Move closer or raise the capture gain"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  The take is clipped: "), r.stdout)
        XCTAssertTrue(r.stdout.contains("Lower the capture gain"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  saved \(pack.path)/voice/five.flac\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("ok: sound pack 'default'"), r.stdout)

        // Every other file, the manifest included, is byte for byte the default pack's.
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: defaultPack.path))
        var compared = 0
        for file in files where !file.hasSuffix("/") {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(
                atPath: defaultPack.appendingPathComponent(file).path, isDirectory: &isDirectory)
            if isDirectory.boolValue { continue }
            let before = try Data(contentsOf: defaultPack.appendingPathComponent(file))
            let after = try Data(contentsOf: pack.appendingPathComponent(file))
            if file == "voice/five.flac" {
                XCTAssertNotEqual(before, after, "five was re-recorded")
            } else {
                XCTAssertEqual(before, after, file)
                compared += 1
            }
        }
        XCTAssertEqual(compared, files.count - 3, "all but five.flac and the two directories")
        XCTAssertEqual(
            try FileManager.default.subpathsOfDirectory(atPath: pack.path).count, files.count, "no stray files")

        // 'p' played exactly the take that was then kept.
        let kept = try decode(pack.appendingPathComponent("voice/five.flac"))
        let played = try decode(play)
        XCTAssertEqual(played, kept)
        XCTAssertEqual(
            Loudness.activeLevel(kept, format: StreamFormat(sampleRate: rate, channels: 1))!, Loudness.targetLevel,
            accuracy: 0.1)
    }

    func testRecordsAUnitShownInItsPhraseAndTheRendererUsesIt() throws {
        let pack = work.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: defaultPack, to: pack)
        let env = try microphone([(lead: 0.5, audio: try spoken("three") + (try spoken("fifteen")))])
        let r = try BinaryRunner.run(
            ["record-pack", pack.path, "--word", "three fifteen", "--device", "testmic"], environment: env, input: "\n\n")
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("[1/1] \"THREE FIFTEEN pm\" -- say: three fifteen (together, as one)\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  saved \(pack.path)/voice/three_fifteen.flac\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("ok: sound pack 'default'"), r.stdout)
        let manifest = try XCTUnwrap(try PackWriter(directory: pack).readManifest())
        XCTAssertEqual(manifest["clips"]?["three fifteen"], .string("voice/three_fifteen.flac"))
        XCTAssertEqual(manifest["clips"]?["three"], .string("voice/three.flac"), "the words stay")

        // 15:15 is one unit and a word; 16:15 and 03:05 fall back to words.
        func clips(_ at: String) throws -> String {
            let dry = try BinaryRunner.run(
                ["say", "--dry-run", "--pack", pack.path, "--chime", "none", "--at", at], environment: env)
            XCTAssertEqual(dry.status, 0, dry.stderr)
            return dry.stdout.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        }
        XCTAssertEqual(try clips("15:15"), "clips: \"three fifteen\" pm")
        XCTAssertEqual(try clips("03:15"), "clips: \"three fifteen\" am")
        XCTAssertEqual(try clips("16:15"), "clips: four fifteen pm")
        XCTAssertEqual(try clips("15:05"), "clips: three oh five pm")
        let schedule = try BinaryRunner.run(
            ["schedule", "--pack", pack.path, "--from", "2026-01-01T15:10", "--tz", "UTC", "--count", "1", "--chime", "none"],
            environment: env)
        XCTAssertEqual(schedule.stdout, "2026-01-01T15:15:00+00:00  three fifteen PM  [\"three fifteen\" pm]\n", schedule.stderr)

        // Words that no phrase says side by side are not a unit.
        let bad = try BinaryRunner.run(["record-pack", pack.path, "--word", "fifteen three"], input: "")
        XCTAssertEqual(bad.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(
            bad.stderr.contains(
                "--word: 'fifteen three' is not a unit talking-clock says in en-US: no phrase of any phrasing has these words side by side."
            ), bad.stderr)
        let spaced = try BinaryRunner.run(["record-pack", pack.path, "--word", "three  fifteen"], input: "")
        XCTAssertEqual(spaced.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(spaced.stderr.contains("Did you mean 'three fifteen'?"), spaced.stderr)
    }

    func testSkippingAndQuittingKeepWhatWasSavedAndCheckSaysWhatIsMissing() throws {
        let env = try microphone([(lead: 0.4, audio: try spoken("one").map { $0 * S.gain(-6) })])
        let pack = work.appendingPathComponent("partial")
        let r = try BinaryRunner.run(
            [
                "record-pack", pack.path, "--device", "testmic", "--no-bells", "--word", "one", "--word", "two",
                "--word", "three",
            ],
            environment: env, input: "\n\ns\nq\n")
        XCTAssertEqual(r.status, 65, r.stdout + r.stderr)
        XCTAssertTrue(
            r.stdout.contains("Saved 1 of 3 words. Not recorded: two, three; run the command again to record them.\n"),
            r.stdout)
        XCTAssertTrue(r.stdout.contains("problem: Sound pack 'partial' cannot say 1440 of 1440 minutes in 12h style; missing words: midnight, twelve, oh, am, two, three, four,"), r.stdout)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: pack.appendingPathComponent("voice").path), ["one.flac"]
        )
        let manifest = try XCTUnwrap(try PackWriter(directory: pack).readManifest())
        XCTAssertEqual(manifest["clips"], .object(["one": .string("voice/one.flac")]))
        XCTAssertNil(manifest["bells"])

        // Run again without --word: it asks only for what is missing, starting with "two".
        let again = try BinaryRunner.run(
            ["record-pack", pack.path, "--device", "testmic"], environment: env, input: "q\n")
        XCTAssertTrue(again.stdout.contains("Recording 28 words into"), again.stdout)
        XCTAssertTrue(again.stdout.contains("[1/28] \"TWO fifteen pm\" -- say: two\n"), again.stdout)
    }

    func testCheckWarnsAboutAWordThatStandsOutAndAboutClippingButPasses() throws {
        let pack = work.appendingPathComponent("uneven")
        try FileManager.default.copyItem(at: defaultPack, to: pack)
        let format = StreamFormat(sampleRate: rate, channels: 1)
        try ClipEncoder.write(
            S.int16(try spoken("five").map { $0 * S.gain(-4) }), format: format,
            to: pack.appendingPathComponent("voice/five.flac").path)
        try ClipEncoder.write(
            S.int16(try spoken("two").map { $0 * 4 }), format: format,
            to: pack.appendingPathComponent("voice/two.flac").path)
        let r = try BinaryRunner.run(["check", "--pack", pack.path])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("warning: ") }.count, 3, r.stdout)
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("warning: Clip 'two' (\(pack.path)/voice/two.flac) is ") && $0.contains("dB louder than")
            }, r.stdout)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("warning: Clip 'two' (\(pack.path)/voice/two.flac) is clipped: ") }, r.stdout)
        XCTAssertTrue(
            lines.contains {
                // 4 dB under its own level, which is 0.1 dB over the median.
                $0.hasPrefix(
                    "warning: Clip 'five' (\(pack.path)/voice/five.flac) is 3.9 dB quieter than the pack's other words")
            },
            r.stdout)
        XCTAssertTrue(lines.dropLast().last!.hasPrefix("ok: sound pack 'default'"), r.stdout)
        XCTAssertEqual(lines.last, "ok: chimes it can ring: hour, westminster, ships-bells.")
    }

    func testBadInputAndAMissingDeviceAreRefusedWithTheFix() throws {
        let pack = work.appendingPathComponent("never")
        let device = try BinaryRunner.run(["record-pack", pack.path, "--device", "hw:CARD=NoSuchCard"], input: "")
        XCTAssertEqual(device.status, ExitStatus.deviceError.rawValue)
        XCTAssertTrue(
            device.stderr.hasPrefix("talking-clock: Could not open ALSA capture device \"hw:CARD=NoSuchCard\""),
            device.stderr)
        XCTAssertTrue(device.stderr.contains("'arecord -L'"), device.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pack.path), "nothing is written before the device opens")

        let typo = try BinaryRunner.run(["record-pack", pack.path, "--word", "fourty-five"], input: "")
        XCTAssertEqual(typo.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(
            typo.stderr.contains("--word: 'fourty-five' is not a word talking-clock says. Did you mean 'forty-five'?"),
            typo.stderr)

        let bell = try BinaryRunner.run(["record-pack", pack.path, "--word", "chime"], input: "")
        XCTAssertEqual(bell.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(bell.stderr.contains("'chime' is a bell, not a word"), bell.stderr)

        let phrasing = try BinaryRunner.run(["record-pack", pack.path, "--phrasing", "13h"], input: "")
        XCTAssertEqual(phrasing.status, ExitStatus.badInput.rawValue)
        // The phrasings are the language's (record-pack --language): English also has casual.
        XCTAssertTrue(phrasing.stderr.contains("language en-US has no phrasing \"13h\"; it has: 12h, 24h, casual."), phrasing.stderr)

        let copy = work.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: defaultPack, to: copy)
        let rate = try BinaryRunner.run(["record-pack", copy.path, "--word", "five", "--rate", "44100"], input: "")
        XCTAssertEqual(rate.status, ExitStatus.badInput.rawValue)
        XCTAssertTrue(rate.stderr.contains("is 22050 Hz; record at the same rate"), rate.stderr)
    }
}
