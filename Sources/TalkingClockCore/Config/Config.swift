import TOML
import FoundationEssentials

/// What starts each announcement.
public enum Driver: String, Sendable, Codable, CaseIterable {
    /// The daemon's own wall-clock timer.
    case timer
    /// Something outside the daemon (a systemd timer, a cron job) sends `trigger` at each boundary.
    case external
}

/// The user's configuration, as read from `config.toml`. Every field has a default, so an empty
/// file (or none) is a valid configuration.
public struct Config: Hashable, Sendable {
    /// The zone announcements follow; `nil` means the system zone, re-resolved by the daemon.
    public var zone: Zone?
    /// ALSA device name.
    public var device: String = "default"
    /// The pack the file or the command line chose (a name under the packs directory, or a
    /// path); nil: the language's own pack.
    public var chosenPack: String?
    /// The pack spoken with: the chosen one, else the language's own (`SpokenLanguages.defaultPack`:
    /// "default" for en-US, the tag for the others, e.g. "de").
    public var pack: String {
        get { chosenPack ?? SpokenLanguages.defaultPack(of: language) }
        set { chosenPack = newValue }
    }
    /// Where `pack` was set ("FILE: line N"), for errors about a pack that is not found; nil for
    /// the default or a command-line `--pack`.
    public var packOrigin: String?
    public var interval: Interval = .quarter
    /// `[[window]]`s: times of day with their own interval.
    public var windows: [IntervalWindow] = []
    /// When the clock speaks: `interval` and its windows.
    public var rhythm: Rhythm { Rhythm(interval: interval, windows: windows) }
    /// `[[reminder]]`s, in the order written.
    public var reminders: [Reminder] = []
    /// `[[away]]` ranges.
    public var away: [AwayRange] = []
    /// `volume-curve`: volume by time of day (the quieter of it, quiet hours and `volume` wins).
    public var volumeCurve: VolumeCurve?
    /// `date`: say the date with the first announcement of each day.
    public var date: DateMode = .never
    /// `[value]`: the value reminders say with `{value}`.
    public var value: ValueSource?
    /// Output volume in percent, 0…100.
    public var volume: Int = 100
    /// How late (seconds) an announcement may start and still be spoken; later ones are skipped
    /// rather than saying a time that has passed. More than 0, at most 300.
    public var lateLimit: Double = 5
    /// Milliseconds the output path takes to make a sample heard (a Bluetooth speaker's delay):
    /// every announcement, boundary or `say at`, starts this much earlier so that it is *heard*
    /// on the instant. 0…1000.
    public var outputLatencyMs: Double = 0
    public var driver: Driver = .timer
    public var chime: ChimeStyle = .hour
    /// The language spoken: a known tag (`SpokenLanguages.known`), spelt as the clock spells it.
    public var language: String = SpokenLanguages.defaultTag
    /// The phrasing the file or the command line chose; nil: the language's default.
    public var chosenPhrasing: Phrasing?
    /// The phrasing spoken: the chosen one, else the language's default (en-US "12h", the
    /// others "casual").
    public var phrasing: Phrasing {
        get { chosenPhrasing ?? SpokenLanguages.defaultPhrasing(of: language) }
        set { chosenPhrasing = newValue }
    }
    public var midnight: MidnightStyle = .zeroHundred
    public var leadIn: LeadIn = .none
    /// Whether the time is spoken (false: chime only).
    public var voice: Bool = true
    /// Minutes of the hour (0, 15, 30, 45) at which the voice follows the chime.
    public var voiceAt: Set<Int> = AnnouncementStyle.everyQuarter
    /// Quiet hours, in the order written.
    public var quiet: [QuietWindow] = []
    /// The `[mqtt]` table; nil (no table): no MQTT code runs at all.
    public var mqtt: MQTTConfig?
    /// Where the words go: the pack's clips, or speech-dispatcher (behind a screen reader).
    public var voiceOutput: VoiceOutput = .clips
    /// The `[courtesy]` table: calls, do-not-disturb, other programs' sound, the stream's role.
    public var courtesy = CourtesyConfig()

    public init() {}

    /// The style announcements are planned with.
    public var announcementStyle: AnnouncementStyle {
        AnnouncementStyle(
            phrase: PhraseStyle(language: language, phrasing: phrasing, midnight: midnight, leadIn: leadIn),
            chime: chime, voice: voice,
            voiceMinutes: voiceAt)
    }

    /// The top-level keys, in the order the example documents them.
    public static let keys = [
        "zone", "device", "pack", "interval", "volume", "late-limit", "output-latency", "driver", "chime", "language", "phrasing",
        "midnight",
        "lead-in", "voice", "voice-at", "quiet", "mqtt", "voice-output", "courtesy", "window", "reminder", "away",
        "volume-curve", "date", "value",
    ]

    /// The keys of a `[[quiet]]` window.
    public static let quietKeys = ["days", "from", "to", "mode", "volume"]

}

/// A configuration problem, phrased as a sentence that names the file, the line and the key, and
/// says how to fix it.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file (or the command-line option) the value came from.
    public var source: String
    public var line: Int?
    /// Only for TOML syntax errors, where the exact place matters.
    public var column: Int?
    /// The key concerned, dotted for nested keys ("quiet.from"); `nil` for syntax errors.
    public var key: String?
    public var message: String

    public init(source: String, line: Int? = nil, column: Int? = nil, key: String? = nil, message: String) {
        self.source = source
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    public var description: String {
        var place = source
        if let line {
            place += ": line \(line)"
            if let column { place += ", column \(column)" }
        }
        return "\(place): \(message)"
    }
}

/// Command-line values that take precedence over the file (`--tz`, `--device`, `--pack`).
public struct ConfigOverrides: Hashable, Sendable {
    public var zone: Zone?
    public var device: String?
    public var pack: String?
    public var chime: ChimeStyle?
    public var phrasing: Phrasing?
    /// A language tag as typed (`--language de`); checked by `Config.checkSpeech`.
    public var language: String?

    public init(
        zone: Zone? = nil, device: String? = nil, pack: String? = nil, chime: ChimeStyle? = nil,
        phrasing: Phrasing? = nil, language: String? = nil
    ) {
        self.zone = zone
        self.device = device
        self.pack = pack
        self.chime = chime
        self.phrasing = phrasing
        self.language = language
    }
}

extension Config {
    /// This configuration with every non-nil override applied.
    public func merged(with overrides: ConfigOverrides) -> Config {
        var result = self
        if let zone = overrides.zone { result.zone = zone }
        if let device = overrides.device { result.device = device }
        if let pack = overrides.pack {
            result.pack = pack
            result.packOrigin = nil
        }
        if let chime = overrides.chime { result.chime = chime }
        if let phrasing = overrides.phrasing { result.phrasing = phrasing }
        if let language = overrides.language { result.language = SpokenLanguages.canonical(language) ?? language }
        return result
    }

    /// Checks that the language, phrasing and lead-in can be spoken together after the command
    /// line's overrides (`--language de` with a file's `phrasing = "12h"` cannot): `source` names
    /// where the values came from in the error.
    public func checkSpeech(source: String) throws(ConfigError) {
        if let problem = SpokenLanguages.problem(language: language, phrasing: phrasing, leadIn: leadIn) {
            throw ConfigError(source: source, key: "language", message: problem)
        }
    }

    /// Resolves a zone setting (a tz database name such as `Europe/London`, or anything `TZ`
    /// takes: `:name`, a path, a POSIX TZ string) with `zones`, the edge's reader of `$TZDIR`,
    /// suggesting the nearest known name on a typo.
    public static func timeZone(named name: String, source: String, line: Int? = nil, zones: ZoneLookup) throws(ConfigError) -> Zone {
        var reason: String?
        if !name.isEmpty {
            do { return try zones.zone(name, label: TOMLValue.quoted(name), fix: "") } catch { reason = error.description }
        }
        var message =
            "'zone' must be an IANA time zone name such as \"Europe/London\" or \"America/New_York\", not "
            + TOMLValue.quoted(name)
        if !name.isEmpty, let near = Suggestion.closest(to: name, in: zones.knownNames()) {
            message += "; did you mean \"\(near)\"?"
        } else {
            message += "; `timedatectl list-timezones` lists them (leave 'zone' out to follow the system zone)."
        }
        if let reason, !reason.contains("there is no zone file") {
            // A file that is there but unusable, or a malformed POSIX string: say what is wrong.
            message += " (\(reason.trimmingWhitespace()))"
        }
        throw ConfigError(source: source, line: line, key: "zone", message: message)
    }

    /// Reads a configuration from TOML text. `source` names the file in messages.
    /// `zones` resolves `zone = "…"` (the core reads no files; the daemon passes its reader of
    /// `$TZDIR`).
    public static func parse(_ text: String, source: String, zones: ZoneLookup = .none) throws(ConfigError) -> Config {
        let document: TOMLTable
        do {
            document = try TOML.parse(text)
        } catch {
            throw ConfigError(source: source, line: error.line, column: error.column, message: error.message + ".")
        }
        let reader = ConfigReader(source: source)
        var config = Config()
        // The phrasing and the lead-in are checked against the language once all three are read.
        var languageEntry: TOMLTable.Entry?
        var phrasingEntry: TOMLTable.Entry?
        var leadInEntry: TOMLTable.Entry?
        for entry in document.entries {
            switch entry.key {
            case "zone":
                let name = try reader.string(entry, "an IANA time zone name such as \"Europe/London\"")
                config.zone = try timeZone(named: name, source: source, line: entry.position.line, zones: zones)
            case "device":
                config.device = try reader.nonEmptyString(
                    entry, "an ALSA device name such as \"default\" or \"hw:0,0\"", fallback: "\"default\"")
            case "pack":
                config.pack = try reader.nonEmptyString(
                    entry, "a sound pack name or path such as \"default\"", fallback: "\"default\"")
                config.packOrigin = "\(source): line \(entry.position.line)"
            case "interval":
                config.interval = try reader.interval(entry)
            case "volume":
                config.volume = try reader.percent(entry)
            case "late-limit":
                config.lateLimit = try reader.lateLimit(entry)
            case "output-latency":
                config.outputLatencyMs = try reader.outputLatency(entry)
            case "driver":
                config.driver = try reader.choice(entry, Driver.allCases)
            case "chime":
                config.chime = try reader.choice(entry, ChimeStyle.allCases)
            case "language":
                let tag = try reader.string(entry, "a language tag such as \"en-US\" or \"de\"")
                guard let known = SpokenLanguages.canonical(tag) else {
                    throw reader.fail(
                        entry, "unknown language \(TOMLValue.quoted(tag)); the clock speaks: \(SpokenLanguages.knownList).")
                }
                config.language = known
                languageEntry = entry
            case "phrasing":
                config.phrasing = Phrasing(rawValue: try reader.string(entry, "a phrasing such as \"12h\" or \"casual\""))
                phrasingEntry = entry
            case "midnight":
                config.midnight = try reader.choice(entry, MidnightStyle.allCases)
            case "lead-in":
                config.leadIn = try reader.choice(entry, LeadIn.allCases)
                leadInEntry = entry
            case "voice":
                config.voice = try reader.bool(entry)
            case "voice-at":
                config.voiceAt = try reader.quarterMinutes(entry)
            case "quiet":
                config.quiet = try reader.quietWindows(entry)
            case "mqtt":
                config.mqtt = try reader.mqtt(entry)
            case "voice-output":
                config.voiceOutput = try reader.choice(entry, VoiceOutput.allCases)
            case "courtesy":
                config.courtesy = try reader.courtesy(entry)
            case "window":
                config.windows = try reader.windows(entry)
            case "reminder":
                config.reminders = try reader.reminders(entry)
            case "away":
                config.away = try reader.awayRanges(entry)
            case "volume-curve":
                config.volumeCurve = try reader.volumeCurve(entry)
            case "date":
                config.date = try reader.choice(entry, DateMode.allCases)
            case "value":
                config.value = try reader.value(entry)
            default:
                throw reader.unknownKey(entry, known: keys, section: nil)
            }
        }
        if let phrasingEntry,
            let problem = SpokenLanguages.problem(language: config.language, phrasing: config.phrasing)
        {
            let set = languageEntry == nil ? " (set 'language', or choose one of those)" : ""
            throw reader.fail(phrasingEntry, String(problem.dropLast()) + set + ".")
        }
        if let leadInEntry,
            let problem = SpokenLanguages.problem(language: config.language, phrasing: nil, leadIn: config.leadIn)
        {
            throw reader.fail(leadInEntry, problem)
        }
        try config.crossCheck(source: source)
        return config
    }
}

/// Turns TOML entries into typed values, with the config's error sentences.
struct ConfigReader {
    let source: String

    func fail(_ entry: TOMLTable.Entry, key: String? = nil, _ message: String) -> ConfigError {
        ConfigError(source: source, line: entry.position.line, key: key ?? entry.key, message: message)
    }

    /// A key that `table` must have and does not: the error at the table's line, saying what to add.
    func missing(_ table: TOMLTable, key: String, _ message: String) -> ConfigError {
        ConfigError(source: source, line: table.position.line, key: key, message: message)
    }

    func unknownKey(_ entry: TOMLTable.Entry, known: [String], section: String?) -> ConfigError {
        let within = section.map { " in \($0)" } ?? ""
        var message = "unknown key \(shown(entry.key))\(within)"
        if let near = Suggestion.closest(to: entry.key, in: known) {
            message += "; did you mean '\(near)'?"
        } else {
            message += "."
        }
        message += " Known keys\(within): \(known.joined(separator: ", "))."
        return ConfigError(source: source, line: entry.position.line, key: entry.key, message: message)
    }

    /// A key as the user wrote it, quoted so odd characters stay visible.
    func shown(_ key: String) -> String {
        key.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x21 && $0.value != 0x27 && $0.value < 0x7F }
            ? "'\(key)'" : TOMLValue.quoted(key)
    }

    /// "'volume'" or "'from' in [[quiet]]".
    func name(_ entry: TOMLTable.Entry, _ section: String?) -> String {
        "'\(entry.key)'" + (section.map { " in \($0)" } ?? "")
    }

    func string(_ entry: TOMLTable.Entry, _ expectation: String, section: String? = nil) throws(ConfigError) -> String {
        guard case .string(let s) = entry.value else {
            throw fail(
                entry, "\(name(entry, section)) must be \(expectation) in quotes, not \(entry.value.userDescription).")
        }
        return s
    }

    func nonEmptyString(_ entry: TOMLTable.Entry, _ expectation: String, fallback: String) throws(ConfigError) -> String
    {
        let s = try string(entry, expectation)
        guard !s.trimmingWhitespace().isEmpty else {
            throw fail(entry, "'\(entry.key)' is empty; give \(expectation), or remove the line to use \(fallback).")
        }
        return s
    }

    func choice<T: RawRepresentable>(_ entry: TOMLTable.Entry, _ cases: [T], section: String? = nil)
        throws(ConfigError) -> T where T.RawValue == String
    {
        let names = cases.map(\.rawValue)
        let options = "one of \(Suggestion.list(names))"
        guard case .string(let s) = entry.value else {
            throw fail(entry, "\(name(entry, section)) must be \(options), not \(entry.value.userDescription).")
        }
        if let value = T(rawValue: s) { return value }
        var message = "\(name(entry, section)) must be \(options), not \(TOMLValue.quoted(s))"
        if let near = Suggestion.closest(to: s, in: names) {
            message += "; did you mean \"\(near)\"?"
        } else {
            message += "."
        }
        throw fail(entry, message)
    }

    /// Integer percent 0…100.
    func percent(_ entry: TOMLTable.Entry, section: String? = nil) throws(ConfigError) -> Int {
        let expectation = "\(name(entry, section)) must be an integer from 0 to 100"
        switch entry.value {
        case .integer(let v) where (0...100).contains(v):
            return Int(v)
        case .integer(let v):
            throw fail(entry, "\(expectation) (a percentage), not \(v).")
        case .string(let s)
        where Int(s.trimmingWhitespace().replacing("%", with: "")) != nil:
            let number = s.trimmingWhitespace().replacing("%", with: "")
            throw fail(
                entry,
                "\(expectation), not the string \(TOMLValue.quoted(s)); write \(entry.key) = \(number) without quotes.")
        default:
            throw fail(entry, "\(expectation), not \(entry.value.userDescription).")
        }
    }

    func lateLimit(_ entry: TOMLTable.Entry) throws(ConfigError) -> Double {
        let expectation = "'late-limit' must be a number of seconds greater than 0 and at most 300"
        let seconds: Double
        switch entry.value {
        case .integer(let v): seconds = Double(v)
        case .float(let v): seconds = v
        case .string(let s) where Double(s.trimmingWhitespace()) != nil:
            throw fail(
                entry,
                "\(expectation), not the string \(TOMLValue.quoted(s)); write late-limit = "
                    + "\(s.trimmingWhitespace()) without quotes.")
        default:
            throw fail(entry, "\(expectation), not \(entry.value.userDescription).")
        }
        guard seconds > 0 && seconds <= 300 else {
            throw fail(
                entry, "\(expectation), not \(TOMLValue.formatFloat(seconds).replacing(".0", with: ""))."
            )
        }
        return seconds
    }

    func outputLatency(_ entry: TOMLTable.Entry) throws(ConfigError) -> Double {
        let expectation =
            "'output-latency' must be the speaker's delay in milliseconds, from 0 to 1000 (e.g. output-latency = 150 for a Bluetooth speaker)"
        let ms: Double
        switch entry.value {
        case .integer(let v): ms = Double(v)
        case .float(let v): ms = v
        case .string(let s) where Double(s.trimmingWhitespace().replacing("ms", with: "")) != nil:
            let number = s.trimmingWhitespace().replacing("ms", with: "")
            throw fail(
                entry,
                "\(expectation), not the string \(TOMLValue.quoted(s)); write output-latency = \(number) without quotes or unit.")
        default:
            throw fail(entry, "\(expectation), not \(entry.value.userDescription).")
        }
        guard ms.isFinite, ms >= 0, ms <= 1000 else {
            let shown = ms.isFinite && ms == ms.rounded() && abs(ms) < 1e15 ? String(Int(ms)) : TOMLValue.formatFloat(ms)
            throw fail(entry, "\(expectation), not \(shown).")
        }
        return ms
    }

    func bool(_ entry: TOMLTable.Entry) throws(ConfigError) -> Bool {
        let expectation = "'\(entry.key)' must be true or false"
        guard case .boolean(let b) = entry.value else {
            if case .string(let s) = entry.value, ["true", "false"].contains(s.lowercased()) {
                throw fail(
                    entry,
                    "\(expectation), not the string \(TOMLValue.quoted(s)); write \(entry.key) = "
                        + "\(s.lowercased()) without quotes.")
            }
            throw fail(entry, "\(expectation), not \(entry.value.userDescription).")
        }
        return b
    }

    /// A list of quarter minutes, e.g. [0, 30].
    func quarterMinutes(_ entry: TOMLTable.Entry) throws(ConfigError) -> Set<Int> {
        let expectation =
            "'\(entry.key)' must be a list of minutes of the hour from 0, 15, 30 and 45, such as [0, 30]"
        guard case .array(let items) = entry.value else {
            if case .integer(let v) = entry.value {
                throw fail(entry, "\(expectation), not the number \(v); write \(entry.key) = [\(v)].")
            }
            throw fail(entry, "\(expectation), not \(entry.value.userDescription).")
        }
        var minutes: Set<Int> = []
        for item in items {
            guard case .integer(let v) = item, [0, 15, 30, 45].contains(v) else {
                throw fail(entry, "\(expectation); \(item.userDescription) is not one of them.")
            }
            minutes.insert(Int(v))
        }
        return minutes
    }

    // MARK: Quiet hours

    static let section = "[[quiet]]"

    func quietWindows(_ entry: TOMLTable.Entry) throws(ConfigError) -> [QuietWindow] {
        switch entry.value {
        case .array(let items):
            var windows: [QuietWindow] = []
            for item in items {
                guard case .table(let table) = item else {
                    throw fail(
                        entry,
                        "'quiet' must be a list of windows, each a [[quiet]] section (or an inline table), "
                            + "not an array containing \(item.userDescription).")
                }
                windows.append(try quietWindow(table))
            }
            return windows
        case .table:
            throw fail(
                entry,
                "quiet hours are written [[quiet]], with two brackets, because there can be several "
                    + "windows; change [quiet] to [[quiet]].")
        default:
            throw fail(
                entry,
                "'quiet' must be a list of windows, each a [[quiet]] section with from, to and mode, "
                    + "not \(entry.value.userDescription).")
        }
    }

    func quietWindow(_ table: TOMLTable) throws(ConfigError) -> QuietWindow {
        let section = Self.section
        var days: Weekdays = .daily
        var from: (minute: Int, entry: TOMLTable.Entry)?
        var to: (minute: Int, entry: TOMLTable.Entry)?
        var mode: (name: QuietModeName, entry: TOMLTable.Entry)?
        var volume: (percent: Int, entry: TOMLTable.Entry)?
        for entry in table.entries {
            switch entry.key {
            case "days": days = try self.days(entry)
            case "from": from = (try clockTime(entry, allowEndOfDay: false), entry)
            case "to": to = (try clockTime(entry, allowEndOfDay: true), entry)
            case "mode": mode = (try choice(entry, QuietModeName.allCases, section: section), entry)
            case "volume": volume = (try percent(entry, section: section), entry)
            default: throw unknownKey(entry, known: Config.quietKeys, section: section)
            }
        }
        guard let from else {
            throw missing(table, key: "quiet.from", "the \(section) window has no 'from' time; add one such as from = \"22:00\" (24-hour HH:MM).")
        }
        guard let to else {
            throw missing(table, key: "quiet.to", "the \(section) window has no 'to' time; add one such as to = \"07:00\" (24-hour HH:MM).")
        }
        if from.minute == to.minute {
            throw fail(
                to.entry, key: "quiet.to",
                "'from' and 'to' in \(section) are both \(hhmm(from.minute)), so the window would be empty; for a "
                    + "whole day use from = \"00:00\" and to = \"24:00\".")
        }
        let quietMode: QuietMode
        switch mode?.name ?? .silent {
        case .lowerVolume:
            guard let volume else {
                throw fail(
                    mode!.entry, key: "quiet.mode",
                    "mode = \"lower-volume\" needs a 'volume' in the same \(section) window, such as volume = 30.")
            }
            quietMode = .lowerVolume(percent: volume.percent)
        case let other:
            if let volume {
                throw fail(
                    volume.entry, key: "quiet.volume",
                    "'volume' in \(section) only applies with mode = \"lower-volume\" (this window's mode is "
                        + "\"\(other.rawValue)\"); remove it, or set mode = \"lower-volume\".")
            }
            quietMode = other == .chimeOnly ? .chimeOnly : .silent
        }
        return QuietWindow(days: days, from: from.minute, to: to.minute, mode: quietMode)
    }

    func hhmm(_ minute: Int) -> String { "\"\(pad(minute / 60, 2)):\(pad(minute % 60, 2))\"" }

    /// Minutes after midnight from `"HH:MM"` or a TOML local time; `"24:00"` (1440) only for an end.
    func clockTime(
        _ entry: TOMLTable.Entry, allowEndOfDay: Bool, section: String = Self.section, table: String = "quiet"
    ) throws(ConfigError) -> Int {
        let key = "\(table).\(entry.key)"
        let expectation = "\(name(entry, section)) must be a time of day such as \"22:00\" (24-hour HH:MM)"
        switch entry.value {
        case .string(let s):
            let text = s.trimmingWhitespace()
            if allowEndOfDay && text == "24:00" { return 1440 }
            if text == "24:00" {
                throw fail(
                    entry, key: key,
                    "\(name(entry, section)) cannot be \"24:00\", the end of the day; a window "
                        + "that starts at midnight has from = \"00:00\".")
            }
            do {
                let time = try InstantParser.parseClockTime(text)
                return time.hour * 60 + time.minute
            } catch {
                let end = allowEndOfDay ? ", or \"24:00\" for the end of the day" : ""
                throw fail(entry, key: key, "\(expectation)\(end), not \(TOMLValue.quoted(s)).")
            }
        case .dateTime(let d) where d.kind == .localTime:
            let t = d.time!
            guard t.second == 0 && t.nanosecond == 0 else {
                throw fail(
                    entry, key: key,
                    "\(table == "quiet" ? "quiet hours" : "times of day") are in whole minutes: write \(name(entry, section)) as "
                        + "\(hhmm(t.hour * 60 + t.minute)), not \(d).")
            }
            return t.hour * 60 + t.minute
        default:
            throw fail(entry, key: key, "\(expectation) in quotes, not \(entry.value.userDescription).")
        }
    }

    static let dayNames: [String: Weekdays] = {
        var names: [String: Weekdays] = ["weekdays": .weekdays, "weekends": .weekends, "daily": .daily]
        let long = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        for day in 1...7 {
            names[Weekdays.shortNames[day - 1]] = Weekdays(isoWeekday: day)
            names[long[day - 1]] = Weekdays(isoWeekday: day)
        }
        return names
    }()

    func days(_ entry: TOMLTable.Entry, section: String = Self.section, table: String = "quiet") throws(ConfigError) -> Weekdays {
        let expectation =
            "\(name(entry, section)) must name days: \"mon\" … \"sun\", \"weekdays\", \"weekends\" or \"daily\", "
            + "alone or in a list such as [\"sat\", \"sun\"]"
        func day(_ value: TOMLValue) throws(ConfigError) -> Weekdays {
            guard case .string(let s) = value else {
                throw fail(entry, key: "\(table).days", "\(expectation); not \(value.userDescription).")
            }
            if let d = Self.dayNames[s.lowercased().trimmingWhitespace()] { return d }
            var message = "\(expectation); \(TOMLValue.quoted(s)) is not a day"
            let candidates = Weekdays.shortNames + ["weekdays", "weekends", "daily"]
            if let near = Suggestion.closest(to: s, in: candidates) { message += " (did you mean \"\(near)\"?)" }
            throw fail(entry, key: "\(table).days", message + ".")
        }
        switch entry.value {
        case .array(let items):
            guard !items.isEmpty else {
                throw fail(
                    entry, key: "\(table).days",
                    "'days' in \(section) is an empty list, so the window would never "
                        + "apply; list days such as [\"sat\", \"sun\"], or remove 'days' to mean every day.")
            }
            var result: Weekdays = []
            for item in items { result.formUnion(try day(item)) }
            return result
        default:
            return try day(entry.value)
        }
    }
}

/// The spelling of a quiet mode in the file (`QuietMode` itself carries the volume).
private enum QuietModeName: String, CaseIterable {
    case silent
    case chimeOnly = "chime-only"
    case lowerVolume = "lower-volume"
}

extension Config {
    /// A documented configuration file: every key with its meaning and allowed values. The active
    /// values are the defaults, except the two example quiet windows; `zone` and `phrasing` are
    /// commented out because their defaults depend on the system zone and the language. `talking-clock` can print this as a starting point.
    public static let exampleTOML = #"""
        # talking-clock configuration (~/.config/talking-clock/config.toml).
        # Every key is optional; unless noted, the values below are the defaults.

        # Time zone to announce in: a tz database name, or anything TZ takes (UTC+5 is 5 hours
        # west; CET-1CEST,M3.5.0,M10.5.0/3). Leave it out to follow the system zone.
        # zone = "Europe/London"

        # ALSA device to play on ("default", or a name from `aplay -L` such as "hw:0,0").
        device = "default"

        # Sound pack: a pack name under the packs directory, or a path to a pack directory.
        # Default: the language's own pack ("default" for en-US, "de" for de, ...).
        # pack = "default"

        # How often to speak: "quarter" (every 15 minutes), "half", "hour", or every N minutes
        # for any N that divides the hour: "1m", "2m", "3m", "4m", "5m", "6m", "10m", "12m", "20m".
        # Chimes keep their places (the quarters, the hour); at other minutes the voice speaks alone.
        interval = "quarter"

        # Windows with an interval of their own, by weekday and time of day (none by default).
        # Each has days (as in [[quiet]], default "daily"), from, to ("24:00" is the end of the day;
        # a window that crosses midnight belongs to the day it starts on) and interval. Where windows
        # overlap, the shortest interval applies; outside them, 'interval'.
        # [[window]]
        # days = "weekdays"
        # from = "08:00"
        # to = "09:00"
        # interval = "5m"

        # Output volume in percent, 0 to 100.
        volume = 100

        # Seconds an announcement may start late and still play (more than 0, at most 300).
        # Later ones, say after a suspend, are skipped instead of announcing a time that has passed.
        late-limit = 5

        # Milliseconds your speaker adds before a sample is heard (Bluetooth: often 100 to 300),
        # 0 to 1000: announcements start this much earlier, so rooms heard together stay in unison.
        output-latency = 0

        # What starts announcements: "timer" (the daemon's own timer) or "external"
        # (a systemd timer or cron job runs `talking-clock trigger` at each boundary).
        driver = "timer"

        # Chime: "hour" (one strike of the pack's bell at the top of each hour), "westminster"
        # (the Westminster Quarters at :15, :30, :45 and :00, then the hour struck on the hour
        # bell, its first stroke exactly on the hour), "ships-bells" (1-8 bells in pairs each
        # half hour of a four-hour watch) or "none".
        chime = "hour"

        # The language spoken: "en-US", "en-GB", "de", "fr", "es" (Spain), "it", "nl", "pl" or
        # "ru". The sound pack must speak the same language (its pack.json says which).
        language = "en-US"

        # How the time is put into words; each language has its own phrasings and default:
        # "casual" (every language: "quarter past three", "halb vier", "trois heures et quart"),
        # "24h" (the official style: "fifteen forty-five", "fünfzehn Uhr fünfundvierzig"), and
        # for English "12h" ("three forty-five PM", the en-US default; the others default to
        # "casual"). Left out, as here, the language's default is used.
        # phrasing = "12h"

        # With English "24h" phrasing, 00:00 is said as "zero-hundred" (the default) or "midnight".
        # ("12h" always says "midnight".)
        midnight = "zero-hundred"

        # Words before the time: "none", "its" ("it's three PM"; "es ist", "il est", "het is",
        # "jest", "сейчас" in de, fr, nl, pl, ru; es and it have none) or "the-time-is" (en-US).
        lead-in = "none"

        # false: chime only, never speak the time.
        voice = true

        # Minutes of the hour at which the voice follows the chime; [0] speaks the time only
        # on the hour (the quarters still chime).
        voice-at = [0, 15, 30, 45]

        # Where the words go: "clips" (the sound pack) or "speech-dispatcher" (the phrase text at
        # SSIP priority "message", so it waits behind a screen reader such as Orca instead of
        # cutting it; chimes still play as sound). See docs/desktop.md.
        voice-output = "clips"

        # Volume by time of day, in a straight line between the points (and round midnight from the
        # last to the first); the quieter of it, 'volume' and quiet hours applies. None by default.
        # volume-curve = [{ at = "07:00", volume = 70 }, { at = "21:00", volume = 40 }, { at = "23:00", volume = 20 }]

        # Say the date with the first announcement of each day: "first", or "never" (the default).
        # The pack must have the date words ('check' says whether it does).
        date = "never"

        # Reminders: none by default. Each [[reminder]] has:
        #   at       a time "HH:MM", or several: ["09:00", "13:00"]
        #   days     as in [[quiet]] (default "daily"), or instead
        #   dates    ["2026-12-24"] (once) or ["12-24"] (every year)
        #   say      the words, rendered ahead of time in the pack's voice by the engine that made it
        #            (festival, espeak-ng, Piper); {time}, {date} and {value} are said in the pack's
        #            words; or instead
        #   clip     a recording (WAV, FLAC, Ogg), relative to this file
        #   append   true: said right after the time of that minute (default false: alone at its
        #            instant; with a boundary in the same minute, after the time anyway)
        #   speaks-through  ["mute", "quiet", "courtesy"]: what it is said through (default none:
        #            the mute, quiet hours and a call or do-not-disturb silence it)
        # A time the clock skips (spring forward) is said once when the clock jumps past it; a time
        # it reads twice (fall back) is said the first time.
        # [[reminder]]
        # at = "09:00"
        # days = "weekdays"
        # say = "Stand-up meeting"
        #
        # [[reminder]]
        # at = "17:00"
        # say = "Feed the cat"
        # append = true
        # speaks-through = ["quiet"]
        #
        # [[reminder]]
        # at = "08:00"
        # dates = ["12-24"]
        # clip = "sounds/carol.flac"

        # Away days: reminders pause from 'from' to 'to' (both included); with clock = "silent"
        # the time is not said either (default "speaks"). The away switch ('away on', Home
        # Assistant's "Away") pauses reminders too.
        # [[away]]
        # from = "2026-08-01"
        # to = "2026-08-14"
        # clock = "speaks"

        # The value a reminder says with {value}: the latest reading on an MQTT topic (a Home
        # Assistant sensor's state), rounded, in "degrees" or "percent"; left out (with a log line)
        # when older than max-age. Needs [mqtt].
        # [value]
        # topic = "homeassistant/sensor/outdoor_temperature/state"
        # unit = "degrees"
        # max-age = "1h"

        # Quiet hours: none by default. Remove the leading "# " of the two example windows at the
        # end to use them. Each [[quiet]] window has:
        #   days   "mon" … "sun", "weekdays", "weekends" or "daily", alone or in a list (default "daily")
        #   from   start, "HH:MM" 24-hour
        #   to     end, "HH:MM", not included ("24:00" is the end of the day); a window that crosses
        #          midnight belongs to the day it starts on: a Friday 23:00-08:00 window covers
        #          Saturday morning
        #   mode   "silent", "chime-only" (no voice) or "lower-volume" (default "silent")
        #   volume percent, required with "lower-volume" and only allowed with it
        # Where windows overlap, each aspect takes the quieter: silent wins, any chime-only window
        # turns the voice off, and the lowest of the lower-volume windows' volumes applies.

        # [[quiet]]
        # days = "daily"
        # from = "22:00"
        # to = "07:00"
        # mode = "silent"

        # [[quiet]]
        # days = ["sat", "sun"]
        # from = "07:00"
        # to = "09:00"
        # mode = "lower-volume"
        # volume = 30

        # MQTT (Home Assistant, Node-RED, openHAB): none by default; without an [mqtt] table no
        # network code runs. Remove the leading "# " to connect. Only 'broker' is required.
        # [mqtt]
        # broker = "mqtt://localhost:1883"     # or "mqtts://host:8883" (TLS, verified)
        # room = "kitchen"                     # default: the host name; letters, digits, _ and -
        # topic = "talking-clock"              # topics are <topic>/<room>/state, …/command, …
        # username = "clock"
        # password-file = "/home/me/.config/talking-clock/mqtt-password"  # chmod 600; never a password here
        # ca-file = "/etc/ssl/certs/my-ca.pem" # with mqtts: the CA that signed the broker's certificate
        # keepalive = 360                      # seconds between pings while idle (30 to 3600)
        # discovery = true
        # discovery-prefix = "homeassistant"

        # Courtesy on a desktop, looked at once just before each announcement (never polled).
        [courtesy]
        # During a call (a stream with media.role phone or communication): "skip", "chime-only"
        # or "speak".
        call = "skip"
        # While do-not-disturb is on (GNOME show-banners off, or Notifications Inhibited):
        # "skip", "chime-only" or "speak".
        do-not-disturb = "skip"
        # Other programs' sound while the clock plays: "duck" (lower it to duck-percent, then
        # restore it exactly), "pause" (pause playing MPRIS players, resume those afterwards)
        # or "ignore".
        media = "duck"
        duck-percent = 30
        # The media.role of the clock's own stream, for routing or ducking it in PulseAudio or
        # WirePlumber (e.g. "notification"); "" for none.
        role = ""
        """#
}
