import FoundationEssentials
import Glibc
import SoundPack
import TalkingClockCore

/// The synthesis engine a pack's words were made with, and its voice: what renders a reminder's
/// text in the pack's own voice (festival, espeak-ng or Piper, run as a program).
public struct SynthesisVoice: Hashable, Sendable, CustomStringConvertible {
    public enum Engine: String, Hashable, Sendable, CaseIterable {
        case festival
        case espeakNG = "espeak-ng"
        case piper

        /// The program run, found on PATH.
        public var program: String {
            switch self {
            case .festival: "text2wave"
            case .espeakNG: "espeak-ng"
            case .piper: "piper"
            }
        }

        /// What to install when the program is missing (Debian 12).
        public var install: String {
            switch self {
            case .festival: "apt install festival"
            case .espeakNG: "apt install espeak-ng"
            case .piper: "pip install piper-tts"
            }
        }
    }

    public var engine: Engine
    /// The festival voice function ("voice_cmu_us_slt_arctic_hts"), the espeak-ng voice ("de",
    /// "en-us") or nil for Piper (its model is the voice).
    public var voice: String?
    /// Piper's model file (.onnx).
    public var model: String?
    /// Where the pack says so, for messages: "pack.json", "cuts.json", "its description".
    public var source: String

    public init(engine: Engine, voice: String?, model: String? = nil, source: String) {
        self.engine = engine
        self.voice = voice
        self.model = model
        self.source = source
    }

    /// "espeak-ng with the voice 'de'".
    public var description: String {
        switch engine {
        case .piper: "piper with the model \(model ?? "?")"
        default: "\(engine.rawValue) with the voice '\(voice ?? "?")'"
        }
    }

    /// The festival voice of each language, as `scripts/pack/festival_engine.py` makes the packs.
    static let festivalVoices: [String: String] = [
        "en-US": "voice_cmu_us_slt_arctic_hts", "en-GB": "voice_cmu_us_slt_arctic_hts", "ru": "voice_msu_ru_nsh_clunits",
        "it": "voice_lp_diphone",
    ]
    /// The espeak-ng voice of each language, as `scripts/pack/espeak_engine.py` makes the packs.
    static let espeakVoices: [String: String] = [
        "de": "de", "de-AT": "de", "fr": "fr", "es": "es", "es-419": "es-419", "nl": "nl", "pl": "pl", "it": "it", "ru": "ru",
        "en-GB": "en-GB-x-rp", "en-US": "en-us",
    ]

    /// The engine of `pack`: its manifest's `"synthesis"`, else the `engine` and `voice` its
    /// `cuts.json` records (the shipped packs), else the engine its description names, with the
    /// voice the pack generator uses for its language. Nil when none says.
    public static func of(pack: SoundPack) -> SynthesisVoice? {
        let language = pack.manifest.language
        if let s = pack.manifest.synthesis, let engine = Engine(rawValue: s.engine.lowercased()) {
            var model = s.model
            if let m = model, !m.hasPrefix("/") { model = pack.directory.appendingPathComponent(m).path }
            return SynthesisVoice(
                engine: engine, voice: s.voice ?? defaultVoice(engine, language), model: model, source: "its pack.json")
        }
        if let cuts = try? readPrefix(pack.directory.appendingPathComponent("cuts.json").path, bytes: 4096),
            let name = jsonString("engine", in: cuts), let engine = Engine(rawValue: name)
        {
            return SynthesisVoice(
                engine: engine, voice: jsonString("voice", in: cuts) ?? defaultVoice(engine, language), source: "its cuts.json")
        }
        let text = (pack.manifest.description ?? "").lowercased()
        for engine in [Engine.espeakNG, .festival, .piper] where text.contains(engine.rawValue) {
            guard engine != .piper else { return nil }  // Piper needs its model named
            return SynthesisVoice(engine: engine, voice: defaultVoice(engine, language), source: "its description")
        }
        return nil
    }

    static func defaultVoice(_ engine: Engine, _ language: String) -> String? {
        switch engine {
        case .festival: festivalVoices[language]
        case .espeakNG: espeakVoices[language]
        case .piper: nil
        }
    }

    /// The first `bytes` bytes of a file.
    static func readPrefix(_ path: String, bytes: Int) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw SynthesisError("cannot open \(path)") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: bytes)
        let n = read(fd, &buffer, bytes)
        guard n > 0 else { throw SynthesisError("cannot read \(path)") }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }

    /// The string value of the first `"key": "value"` in a JSON text (a prefix of it is enough).
    static func jsonString(_ key: String, in text: String) -> String? {
        let chars = Array(text.unicodeScalars)
        let needle = Array("\"\(key)\"".unicodeScalars)
        func blank(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\n" || c == "\t" || c == "\r" }
        guard chars.count >= needle.count else { return nil }
        for start in 0...(chars.count - needle.count) where Array(chars[start..<(start + needle.count)]) == needle {
            var i = start + needle.count
            while i < chars.count && blank(chars[i]) { i += 1 }
            guard i < chars.count, chars[i] == ":" else { continue }
            i += 1
            while i < chars.count && blank(chars[i]) { i += 1 }
            guard i < chars.count, chars[i] == "\"" else { return nil }
            i += 1
            var value = String.UnicodeScalarView()
            while i < chars.count, chars[i] != "\"" {
                value.append(chars[i])
                i += 1
            }
            return i < chars.count ? String(value) : nil
        }
        return nil
    }
}

/// Why a text could not be rendered: a sentence with the fix.
public struct SynthesisError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Renders texts with a pack's synthesis engine, ahead of time and off the daemon's loop, keeping
/// each rendering in a cache by its content (engine, voice, model, text): the same text is
/// rendered once, ever. A rendering is trimmed of the engine's leading and trailing silence (its
/// first sample lands on its instant) and converted to the pack's stream format.
public struct Synthesizer: Sendable {
    public let voice: SynthesisVoice
    /// `$XDG_CACHE_HOME/talking-clock/speech`, or nil to keep nothing.
    public let cache: URL?
    /// The longest one rendering may take before the engine is stopped.
    public var timeout: Double = 30

    public init(voice: SynthesisVoice, cache: URL?) {
        self.voice = voice
        self.cache = cache?.appendingPathComponent("speech")
    }

    /// Samples below this (about -55 dBFS) at either end of a rendering are silence and cut.
    static let silence: Float = 0.0018

    /// Why nothing can render with this voice now (the program is missing, the voice is not
    /// installed), with the fix; nil when it can. A cheap look for `check` and before a reload.
    public func problem() -> String? {
        guard let path = Self.find(voice.engine.program) else {
            return "\(voice.engine.program) is not installed (\(voice.engine.install))"
        }
        switch voice.engine {
        case .festival:
            guard let name = voice.voice, name.hasPrefix("voice_") else { return "no festival voice is named" }
            let folder = String(name.dropFirst("voice_".count))
            let roots = ["/usr/share/festival/voices", "/usr/local/share/festival/voices"]
            for root in roots {
                for language in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
                    if FileManager.default.fileExists(atPath: "\(root)/\(language)/\(folder)") { return nil }
                }
            }
            return "the festival voice \(name) is not installed (\(path) is; Debian: apt install festvox-us-slt-hts for voice_cmu_us_slt_arctic_hts, festvox-ru for voice_msu_ru_nsh_clunits, festvox-italp16k for voice_lp_diphone)"
        case .espeakNG:
            return voice.voice == nil ? "no espeak-ng voice is named" : nil
        case .piper:
            guard let model = voice.model else { return "the pack names no Piper model (\"synthesis\": {\"model\": …} in pack.json)" }
            return FileManager.default.fileExists(atPath: model) ? nil : "the Piper model \(model) is missing"
        }
    }

    /// The rendering of `text` in `format`, from the cache or made now (seconds for festival).
    public func render(_ text: String, format: StreamFormat) throws(SynthesisError) -> ClipAudio {
        let key = Self.key(voice: voice, text: text)
        if let cache, let cached = Self.cached(cache, key: key, voice: voice, text: text) {
            return Self.prepare(cached, format: format)
        }
        let directory = cache ?? URL(fileURLWithPath: ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SynthesisError("cannot make the speech cache \(directory.path) (\(error)); check its permissions")
        }
        let name = "\(key.hex)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let wav = directory.appendingPathComponent("\(name).part.wav").path
        let input = directory.appendingPathComponent("\(name).txt").path
        defer {
            unlink(input)
            unlink(wav)
        }
        try run(text: text, input: input, output: wav)
        let audio: ClipAudio
        do throws(PackError) { audio = try ClipDecoder.decode(path: wav, clip: "the rendering of \"\(text)\"") } catch {
            throw SynthesisError("\(voice) made no audio that can be read for \"\(text)\" (\(error.description))")
        }
        guard audio.storage.floats.contains(where: { abs($0) > Self.silence }) else {
            throw SynthesisError("\(voice) rendered \"\(text)\" as silence; check the voice (the words may be in another language)")
        }
        if let cache {
            let final = cache.appendingPathComponent("\(key.hex).wav").path
            let label = cache.appendingPathComponent("\(key.hex).key").path
            if rename(wav, final) == 0 {
                try? key.text.write(toFile: label, atomically: true, encoding: .utf8)
                Self.prune(cache)
            }
        }
        return Self.prepare(audio, format: format)
    }

    /// A cache entry: the hex name and the text it stands for (kept beside it: a name that collides
    /// with another text is not taken for it).
    struct Key {
        var hex: String
        var text: String
    }

    static func key(voice: SynthesisVoice, text: String) -> Key {
        let full = "talking-clock speech 1\n\(voice.engine.rawValue)\n\(voice.voice ?? "")\n\(voice.model ?? "")\n\(text)"
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in full.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b &+ UInt64(byte)) &* 0x9E37_79B9_7F4A_7C15
            b ^= b >> 29
        }
        func hex(_ v: UInt64) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
        return Key(hex: hex(a) + hex(b), text: full)
    }

    static func cached(_ cache: URL, key: Key, voice: SynthesisVoice, text: String) -> ClipAudio? {
        let label = cache.appendingPathComponent("\(key.hex).key").path
        guard let stored = try? String(contentsOfFile: label, encoding: .utf8), stored == key.text else { return nil }
        let wav = cache.appendingPathComponent("\(key.hex).wav").path
        guard let audio = try? ClipDecoder.decode(path: wav, clip: "cached speech") else { return nil }
        // Used now: the pruning below keeps what is used and lets go of what is not.
        _ = utimensat(AT_FDCWD, wav, nil, 0)
        return audio
    }

    /// The most the speech cache keeps: renderings beyond it, least recently used first, are
    /// deleted after each new one. Reminders are read at every start and reload, so they stay;
    /// one-off `speak` texts (a Home Assistant notification each day) do not pile up on an SD card.
    public static let cacheLimit = (entries: 256, bytes: 64 << 20)

    /// Deletes the least recently used renderings until the cache is within `limit`. Errors (a file
    /// gone meanwhile, another daemon pruning too) only mean less is deleted.
    static func prune(_ cache: URL, limit: (entries: Int, bytes: Int) = cacheLimit) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: cache.path) else { return }
        var entries: [(hex: String, used: Int, bytes: Int)] = []
        for name in names where name.hasSuffix(".wav") && !name.hasSuffix(".part.wav") {
            var st = stat()
            guard stat(cache.appendingPathComponent(name).path, &st) == 0 else { continue }
            entries.append((String(name.dropLast(4)), st.st_mtim.tv_sec * 1_000_000_000 + st.st_mtim.tv_nsec, Int(st.st_size)))
        }
        entries.sort { $0.used > $1.used }  // newest first
        var count = 0
        var total = 0
        for entry in entries {
            count += 1
            total += entry.bytes
            // The newest one always stays, whatever its size.
            guard count > 1, count > limit.entries || total > limit.bytes else { continue }
            unlink(cache.appendingPathComponent(entry.hex + ".wav").path)
            unlink(cache.appendingPathComponent(entry.hex + ".key").path)
        }
    }

    /// Trimmed of silence at both ends and converted to `format`.
    static func prepare(_ audio: ClipAudio, format: StreamFormat) -> ClipAudio {
        let channels = audio.format.channels
        let samples = audio.storage.floats
        let frames = audio.frames
        func loud(_ frame: Int) -> Bool {
            (0..<channels).contains { abs(samples[frame * channels + $0]) > silence }
        }
        var first = 0
        while first < frames && !loud(first) { first += 1 }
        var last = frames
        while last > first && !loud(last - 1) { last -= 1 }
        let trimmed = ClipAudio(format: audio.format, samples: Array(samples[(first * channels)..<(last * channels)]))
        var converted = Conversion.convert(trimmed, to: format)
        if case .float(let s) = converted.storage { converted.storage = .compact(s) }
        return converted
    }

    /// Runs the engine: the text from a file, the WAV to `output`, within `timeout`.
    func run(text: String, input: String, output: String) throws(SynthesisError) {
        // festival's Italian voice reads Latin-1; every other engine and voice reads UTF-8.
        let latin1 = voice.voice == "voice_lp_diphone"
        let bytes: [UInt8] =
            latin1 ? text.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : UInt8(ascii: "?") } : Array(text.utf8)
        guard FileManager.default.createFile(atPath: input, contents: Data(bytes)) else {
            throw SynthesisError("cannot write \(input) for the synthesis engine; check the cache directory's permissions")
        }
        let arguments: [String]
        var stdin: String? = nil
        switch voice.engine {
        case .festival:
            arguments = ["text2wave", "-o", output, "-eval", "(\(voice.voice ?? "voice_cmu_us_slt_arctic_hts"))", input]
        case .espeakNG:
            arguments = ["espeak-ng", "-b", "1", "-v", voice.voice ?? "en", "-w", output, "-f", input]
        case .piper:
            arguments = ["piper", "--model", voice.model ?? "", "--output_file", output]
            stdin = input
        }
        guard let program = Self.find(arguments[0]) else {
            throw SynthesisError("\(arguments[0]) is not installed (\(voice.engine.install))")
        }
        let result = Self.spawn(program, arguments, stdin: stdin, timeout: timeout)
        switch result {
        case .exited(0): break
        case .exited(let code):
            throw SynthesisError("\(voice) failed on \"\(text)\" (\(arguments[0]) exited with \(code))")
        case .signalled(let signal):
            throw SynthesisError("\(voice) was killed by signal \(signal) while rendering \"\(text)\"")
        case .timedOut:
            throw SynthesisError(
                "\(voice) did not finish \"\(text)\" within \(Format.fixed(timeout, timeout == timeout.rounded() ? 0 : 1)) s and was stopped")
        case .failed(let why):
            throw SynthesisError("\(arguments[0]) could not be started (\(why))")
        }
    }

    /// A program on PATH (or the default path), or nil.
    static func find(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where dir.hasPrefix("/") {
            let candidate = "\(dir)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
        case failed(String)
    }

    /// posix_spawn with stdin from a file (or /dev/null) and stdout, stderr to /dev/null; waits at
    /// most `timeout` seconds, then kills it.
    static func spawn(_ program: String, _ arguments: [String], stdin: String?, timeout: Double) -> Ending {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The daemon blocks its signals for signalfd; the engine must not inherit that mask.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGQUIT] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, &attributes, &argv, environ)
        guard status == 0 else { return .failed(String(cString: strerror(status))) }
        let deadline = WallClockReading.monotonic() + timeout
        var wait: Int32 = 0
        while true {
            let r = waitpid(pid, &wait, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { return .failed("waitpid: \(String(cString: strerror(errno)))") }
            if WallClockReading.monotonic() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &wait, 0)
                return .timedOut
            }
            usleep(5000)
        }
        if wait & 0x7f == 0 { return .exited((wait >> 8) & 0xff) }
        return .signalled(wait & 0x7f)
    }
}

/// CLOCK_MONOTONIC in seconds.
enum WallClockReading {
    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
