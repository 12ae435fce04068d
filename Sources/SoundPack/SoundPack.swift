import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// A loaded sound pack: its manifest, and its clips decoded on first use and converted to one
/// stream format (that of the majority of its clips' headers) so playback is one continuous stream.
///
/// Not thread-safe: one owner (the CLI command or the daemon's loop) uses it.
public final class SoundPack {
    public let directory: URL
    public let manifest: PackManifest
    /// The format every clip is converted to.
    public let format: StreamFormat
    private var cache: [String: ClipAudio] = [:]
    private var cacheByFile: [String: ClipAudio] = [:]
    /// The length in frames of each clip `preload(keeping:)` decoded and did not keep.
    private var droppedFrames: [String: Int] = [:]
    /// What decoding the clips so far handled (`decodingSamples`, each file once).
    public private(set) var decodedSamples = 0

    public var name: String { manifest.name }
    public var clipIds: Set<String> { Set(manifest.clips.keys) }
    public var spacing: Spacing { manifest.spacing }

    /// Loads `pack.json` from `directory`. With `scan` (the default) it also opens every clip's
    /// header (not its audio), so that path and format problems show up at load and `reload` can
    /// refuse a damaged pack; a one-shot `say` skips that when the manifest declares its format.
    /// With `keepingBrokenClips` a clip that is missing or unreadable does not stop the load (its
    /// use fails): `check` loads this way to report every broken clip, not only the first.
    public init(directory: URL, scan: Bool = true, keepingBrokenClips: Bool = false) throws(PackError) {
        let dir = directory.standardizedFileURL
        if let why = Self.notADirectory(dir.path) {
            throw PackError(.notADirectory, "Sound pack directory \(dir.path) \(why).")
        }
        let manifestURL = dir.appendingPathComponent(PackManifest.fileName)
        let data = try Self.readManifest(manifestURL.path, pack: dir.path)
        let manifest = try PackManifest.parse(data, path: manifestURL.path)
        self.directory = dir
        self.manifest = manifest
        var declared: StreamFormat?
        if let rate = manifest.sampleRate, let channels = manifest.channels {
            declared = StreamFormat(sampleRate: rate, channels: channels)
        }
        var formats: [StreamFormat: Int] = [:]
        var headers: [String: ClipInfo] = [:]
        if scan || declared == nil {
            for id in manifest.clips.keys.sorted() {
                do throws(PackError) {
                    let path = try PackPaths.resolve(manifest.clips[id]!, clip: id, in: dir)
                    let info = try ClipDecoder.info(path: path, clip: id)
                    formats[info.format, default: 0] += 1
                    headers[path] = info
                } catch {
                    if !keepingBrokenClips { throw error }
                }
            }
        }
        // A declared format wins; otherwise the most common one (ties: the higher rate), so most
        // clips need no conversion. (No readable clip at all happens only with keepingBrokenClips.)
        self.format =
            declared ?? formats.max { a, b in
                a.value != b.value ? a.value < b.value : a.key.sampleRate < b.key.sampleRate
            }?.key ?? StreamFormat(sampleRate: 22050, channels: 1)
        // From the headers, before anything is decoded: a pack too big to load in seconds is
        // refused in milliseconds.
        let total = headers.values.reduce(0) { $0 + Self.decodingSamples($1, into: format) }
        if total > Self.maximumSamples { throw tooMuchAudio(total) }
    }

    /// Most samples a pack may hold once decoded (all its clips, each file once): 2^25, about
    /// 5.8 minutes of 48 kHz stereo or 25 minutes of 22,050 Hz mono, at most 128 MiB in memory
    /// (64 MiB for 16-bit sources). The shipped packs hold about 1.7 million. A legal pack of 82
    /// clips of 29.9 s at 192 kHz (184 MB) held 470 million and took 111 s to become ready, past
    /// systemd's start time-out; `scripts/bench-pack-load` measures the worst pack this allows.
    public static let maximumSamples = 1 << 25

    /// The samples decoding a clip handles: the larger of what the file holds and what it becomes
    /// in the pack's format (a clip resampled down costs its input, one resampled up its output).
    public static func decodingSamples(_ info: ClipInfo, into format: StreamFormat) -> Int {
        let input = info.frames * info.format.channels
        let output = Int((Double(info.frames) * Double(format.sampleRate) / Double(info.format.sampleRate)).rounded(.up))
            * format.channels
        return max(input, output)
    }

    private func tooMuchAudio(_ samples: Int) -> PackError {
        let seconds = Double(samples) / Double(format.sampleRate * format.channels)
        return PackError(
            .tooMuchAudio,
            "Sound pack '\(name)' (\(directory.path)) holds \(Format.fixed(seconds / 60, 1)) minutes of audio at \(format) (\(samples) samples); a pack may hold at most \(Self.maximumSamples) samples (about 5.8 minutes at 48 kHz stereo, 25 minutes at 22,050 Hz mono), so that it loads in seconds and fits in memory. Use fewer or shorter clips, or a lower sample rate or mono (e.g. 'sox in.flac -r 22050 -c 1 out.flac').")
    }

    /// Why `path` is not a pack directory (the rest of the sentence, with the fix), or nil.
    static func notADirectory(_ path: String) -> String? {
        let fix = "pass --pack with a directory that contains pack.json"
        var st = stat()
        guard stat(path, &st) == 0 else {
            switch errno {
            case ELOOP: return "is a loop of symbolic links; fix the links, or \(fix)"
            case EACCES: return "cannot be reached (permission denied); check its permissions, or \(fix)"
            default: return "does not exist; \(fix)"
            }
        }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: return nil
        case S_IFREG:
            let parent = Format.parentDirectory(of: path)
            return path.hasSuffix("/" + PackManifest.fileName)
                ? "is a file, not a directory; pass --pack with the directory that contains pack.json (\(parent))"
                : "is a file, not a directory; \(fix)"
        case S_IFIFO: return "is a named pipe, not a directory; \(fix)"
        case S_IFCHR, S_IFBLK: return "is a device, not a directory; \(fix)"
        case S_IFSOCK: return "is a socket, not a directory; \(fix)"
        default: return "is not a directory; \(fix)"
        }
    }

    /// The absolute path of a clip's file.
    public func path(of clip: String) throws(PackError) -> String {
        guard let relative = manifest.clips[clip] else {
            throw PackError(.missingFile, clip: clip, "Clip '\(clip)' is not in sound pack '\(name)' (\(directory.path)/pack.json); add it to \"clips\".")
        }
        return try PackPaths.resolve(relative, clip: clip, in: directory)
    }

    /// The decoded clip in the pack's stream format (decoded once, then cached).
    public func audio(_ clip: String) throws(PackError) -> ClipAudio {
        if let cached = cache[clip] { return cached }
        let file = try path(of: clip)
        // Ids that share a file (a bell that is also "chime") share one decoded copy.
        if let other = cacheByFile[file] {
            cache[clip] = other
            return other
        }
        let converted = try decode(clip, file: file, counting: droppedFrames[clip] == nil)
        cache[clip] = converted
        cacheByFile[file] = converted
        droppedFrames[clip] = nil
        return converted
    }

    /// The decoded clip, from the cache if it is there, else decoded now and not kept: how the
    /// daemon would take a word `preload(keeping:)` left out, for one announcement.
    public func audioUncached(_ clip: String) throws(PackError) -> ClipAudio {
        if let cached = cache[clip] { return cached }
        let file = try path(of: clip)
        if let other = cacheByFile[file] { return other }
        return try decode(clip, file: file, counting: false)
    }

    /// Whether `audio(clip)` would return without decoding.
    public func isDecoded(_ clip: String) -> Bool { cache[clip] != nil }

    /// Decodes and converts one clip; `counting` adds it to `decodedSamples` (each file once).
    private func decode(_ clip: String, file: String, counting: Bool = true) throws(PackError) -> ClipAudio {
        let decoded = try ClipDecoder.decode(path: file, clip: clip)
        var converted = Conversion.convert(decoded, to: format)
        if case .float(let samples) = converted.storage, decoded.format != format {
            converted.storage = .compact(samples)  // e.g. mono duplicated to stereo stays 16-bit
        }
        if counting {
            decodedSamples += Self.decodingSamples(ClipInfo(frames: decoded.frames, format: decoded.format), into: format)
        }
        return converted
    }

    /// Decodes every clip now (the daemon does this at load so nothing is decoded on the boundary).
    /// Stops with the same refusal as the header scan once the decoded samples pass
    /// `maximumSamples` (a pack loaded without scanning its headers).
    public func preload() throws(PackError) {
        try preload(keeping: { _ in true })
    }

    /// Decodes every clip now, so that a damaged one is refused at load, but keeps only those
    /// `keep` accepts: the others (the daemon's date and value words when its config says neither)
    /// are measured and dropped, and decoded again when an announcement needs them
    /// (`audioUncached`). Those are decoded first, so the kept clips reuse the memory they freed.
    public func preload(keeping keep: (String) -> Bool) throws(PackError) {
        let ids = manifest.clips.keys.sorted()
        for id in ids where !keep(id) && cache[id] == nil {
            droppedFrames[id] = try decode(id, file: try path(of: id)).frames
            if decodedSamples > Self.maximumSamples { throw tooMuchAudio(decodedSamples) }
        }
        for id in ids where keep(id) {
            _ = try audio(id)
            if decodedSamples > Self.maximumSamples { throw tooMuchAudio(decodedSamples) }
        }
    }

    /// Frames of a clip in the stream format.
    public func frames(_ clip: String) throws(PackError) -> Int {
        if cache[clip] == nil, let frames = droppedFrames[clip] { return frames }
        return try audio(clip).frames
    }

    /// Lays out a planned announcement with the clips' lengths and the pack's spacing.
    public func timeline(for plan: AnnouncementPlan) throws(PackError) -> Timeline {
        var lengths: [String: Int] = [:]
        for clip in plan.clips { lengths[clip] = try frames(clip) }
        return layout.timeline(for: plan) { lengths[$0] ?? 0 }
    }

    /// The pack's format, spacing and bell level under the voice.
    public var layout: PackLayout {
        PackLayout(format: format, spacing: spacing, bellGainUnderVoice: manifest.chimes.timing.bellGainUnderVoice)
    }

    /// The pattern this pack rings for `style`: one spelled out in `pack.json`, or the built-in
    /// one made from the pack's `bells` and `chimes` timing. Nil for `.none`.
    public func chimePattern(for style: ChimeStyle) throws(PackError) -> ChimePattern? {
        let where_ = "\(directory.path)/\(PackManifest.fileName)"
        let timing = manifest.chimes.timing
        let bells = manifest.bells
        let pattern: ChimePattern
        if style == .none {
            return nil
        } else if let given = manifest.chimes.patterns[style.rawValue] {
            pattern = given
        } else {
            switch style {
            case .none:
                return nil
            case .hour:
                guard let bell = clipIds.contains("chime") ? "chime" : bells?.hour else {
                    throw PackError(.vocabulary, clip: "chime", "Sound pack '\(name)' has no bell for chime = \"hour\": add a clip with id 'chime' (or \"bells\": {\"hour\": …}) to \(where_), or set chime = \"none\".")
                }
                pattern = .singleStrike(bell: bell, timing: timing)
            case .westminster:
                guard let quarter = bells?.quarter, quarter.count == 4, let hour = bells?.hour else {
                    throw PackError(.vocabulary, clip: "bells", "Sound pack '\(name)' cannot ring chime = \"westminster\": it needs four quarter bells and an hour bell, \"bells\": {\"quarter\": [4 clip ids, highest first], \"hour\": clip id} in \(where_); or choose chime = \"hour\".")
                }
                pattern = .westminster(quarterBells: quarter, hourBell: hour, timing: timing)
            case .shipsBells:
                guard let bell = bells?.ship ?? bells?.quarter?.first ?? bells?.hour ?? (clipIds.contains("chime") ? "chime" : nil) else {
                    throw PackError(.vocabulary, clip: "bells", "Sound pack '\(name)' has no bell for chime = \"ships-bells\": add \"bells\": {\"ship\": clip id} to \(where_).")
                }
                pattern = .shipsBells(bell: bell, timing: timing)
            }
        }
        if let missing = pattern.bells.sorted().first(where: { !clipIds.contains($0) }) {
            throw PackError(.vocabulary, clip: missing, "Sound pack '\(name)': the \(style.rawValue) chime rings bell '\(missing)', which is not in \"clips\" of \(where_); add it or fix the bell's id.")
        }
        return pattern
    }

    /// `plan` with `phrase` (a date, a value) said after it (`AnnouncementPlan.appending`), or an
    /// error that names every clip of the phrase the pack lacks and how to add them.
    public func plan(_ plan: AnnouncementPlan, appending phrase: Phrase, gapMs: Int = AnnouncementPlan.phraseGapMs)
        throws(PackError) -> AnnouncementPlan
    {
        do { return try plan.appending(phrase, available: clipIds, gapMs: gapMs) } catch {
            throw missingWords(of: phrase, saying: error)
        }
    }

    /// A plan that says `phrases` only (a date, a value; no time, no chime), or an error that names
    /// every clip of the first phrase the pack cannot say and how to add them.
    public func plan(saying phrases: [Phrase], hour: Int, minute: Int) throws(PackError) -> AnnouncementPlan {
        do { return try AnnouncementPlan.saying(phrases, hour: hour, minute: minute, available: clipIds) } catch {
            let phrase = phrases.first { $0.words.contains(error.word) } ?? phrases[0]
            throw missingWords(of: phrase, saying: error)
        }
    }

    /// "Sound pack 'de' (…) cannot say "Samstag, der …": it has no clips 'samstag', 'der'. …" with
    /// the fix: regenerate the pack or record the words (a date's or a value's words: record them).
    func missingWords(of phrase: Phrase, saying error: VocabularyError) -> PackError {
        let uncovered = Vocabulary.uncovered(
            phrase.words, phrase: phrase, available: clipIds, unitLengths: Vocabulary.unitLengths(clipIds))
        var seen = Set<String>()
        let missing = (uncovered.isEmpty ? [error.word] : uncovered).filter { seen.insert($0).inserted }
        let tag = phrase.language
        let language = tag == SpokenLanguages.defaultTag ? "" : " --language \(tag)"
        let make = tag == SpokenLanguages.defaultTag ? "scripts/make-pack" : "scripts/make-pack --language \(tag)"
        let fix: String
        switch phrase.kind {
        case .date: fix = "To say it, " + RecordingScript.missingWordsFix(directory: directory.path, language: tag, flag: "--dates")
        case .value: fix = "To say it, " + RecordingScript.missingWordsFix(directory: directory.path, language: tag, flag: "--values")
        default: fix = "Regenerate the pack with \(make), or record them into it: talking-clock record-pack \(directory.path)\(language)"
        }
        return PackError(
            .vocabulary, clip: missing.first,
            "Sound pack '\(name)' (\(directory.path)) cannot say \"\(phrase.text)\": it has no clip"
                + (missing.count == 1 ? " " : "s ") + missing.map { "'\($0)'" }.joined(separator: ", ") + ". " + fix + ".")
    }

    /// Plans the announcement of `hour:minute` in `style` with this pack's words and chime.
    public func plan(hour: Int, minute: Int, style: AnnouncementStyle) throws(PackError) -> AnnouncementPlan {
        let pattern = try chimePattern(for: style.chime)
        do {
            return try AnnouncementPlan.make(hour: hour, minute: minute, style: style, pattern: pattern, available: clipIds)
        } catch {
            throw PackError(.vocabulary, clip: error.word, "Sound pack '\(name)' (\(directory.path)): \(error.description)")
        }
    }
}

/// Keeping clip paths inside the pack.
public enum PackPaths {
    /// Resolves a manifest path against the pack directory, refusing absolute paths, `..`
    /// components and symbolic links that lead outside the pack.
    public static func resolve(_ relative: String, clip: String, in directory: URL) throws(PackError) -> String {
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.isEmpty, !relative.hasPrefix("/"), !components.contains(".."), !relative.contains("\0") else {
            throw PackError(
                .unsafePath, clip: clip,
                "Clip '\(clip)' names \"\(relative)\", which is outside the pack; clip paths must be relative paths inside \(directory.path) without '..'.")
        }
        let url = directory.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw PackError(
                .missingFile, clip: clip,
                "Clip '\(clip)' is missing from sound pack directory \(directory.path) (expected \(url.path)); add the file or fix its path in pack.json.")
        }
        let real = url.resolvingSymlinksInPath().path
        let root = directory.resolvingSymlinksInPath().path
        guard real.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            throw PackError(
                .unsafePath, clip: clip,
                "Clip '\(clip)' (\(url.path)) is a symbolic link to \(real), outside the pack; copy the file into the pack instead.")
        }
        // Only regular files: opening a named pipe blocks until someone writes to it (a pack with
        // a FIFO would hang `check`, `say` and the daemon's reload), and a directory or a device
        // is never a clip.
        let attributes = try? FileManager.default.attributesOfItem(atPath: real)
        guard let type = attributes?[.type] as? FileAttributeType, type == .typeRegular else {
            let what: String
            switch attributes?[.type] as? FileAttributeType {
            case .some(.typeDirectory): what = "a directory"
            case .some(.typeCharacterSpecial), .some(.typeBlockSpecial): what = "a device"
            case .some(.typeSocket): what = "a socket"
            case .none: what = "unreadable"
            default:
                // FileManager reports a FIFO as `.typeUnknown`.
                what = "a named pipe or other special file"
            }
            throw PackError(
                .unsafePath, clip: clip,
                "Clip '\(clip)' (\(url.path)) is \(what), not a regular file; put the audio file itself in the pack.")
        }
        return url.path
    }
}

extension SoundPack {
    /// `pack.json`'s bytes, at most `PackManifest.maximumSize` of them. Opened without blocking
    /// (a named pipe would wait for a writer forever) and read only when it is a regular file:
    /// `/dev/zero` or a huge file in its place is refused by name, not read into memory.
    static func readManifest(_ path: String, pack: String) throws(PackError) -> Data {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw PackError(.missingManifest, "Sound pack \(pack) has no readable \(PackManifest.fileName); every pack needs a manifest (see docs/packs.md).")
            }
            throw PackError(.missingManifest, "Sound pack \(pack) has no readable \(PackManifest.fileName) (\(String(cString: strerror(code)))); check its permissions.")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw PackError(.badManifest, "\(path) is not a regular file; a pack's \(PackManifest.fileName) must be a JSON text file.")
        }
        let limit = PackManifest.maximumSize
        guard Int(st.st_size) <= limit else {
            throw PackError(.badManifest, "\(path) is \(st.st_size) bytes; a pack manifest may be at most \(limit) bytes (1 MiB), so this is not one. Check the pack directory.")
        }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, limit + 1 - count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw PackError(.missingManifest, "Could not read \(path) (\(String(cString: strerror(errno)))).")
            }
            count += n
        }
        guard count <= limit else {
            throw PackError(.badManifest, "\(path) grew past \(limit) bytes while it was read; a pack manifest may be at most \(limit) bytes.")
        }
        return Data(bytes[0..<count])
    }
}
