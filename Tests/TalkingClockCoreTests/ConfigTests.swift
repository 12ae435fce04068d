import Foundation
import XCTest

@testable import TalkingClockCore
import TestSupport

final class ConfigTests: XCTestCase {
    private let source = "config.toml"

    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Config? {
        do {
            return try Config.parse(text, source: source, zones: TestZones.lookup)
        } catch {
            XCTFail("unexpected error: \(error)\n--- input ---\n\(text)", file: file, line: line)
            return nil
        }
    }

    private func error(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> ConfigError? {
        do {
            let config = try Config.parse(text, source: source, zones: TestZones.lookup)
            XCTFail("expected an error, got \(config)\n--- input ---\n\(text)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testEmptyFileGivesDefaults() {
        let config = parse("# nothing here\n")
        XCTAssertEqual(config, Config())
        XCTAssertNil(config?.zone)
        XCTAssertEqual(config?.device, "default")
        XCTAssertEqual(config?.pack, "default")
        XCTAssertEqual(config?.interval, .quarter)
        XCTAssertEqual(config?.volume, 100)
        XCTAssertEqual(config?.lateLimit, 5)
        XCTAssertEqual(config?.driver, .timer)
        XCTAssertEqual(config?.chime, .hour)
        XCTAssertEqual(config?.phrasing, .twelveHour)
        XCTAssertEqual(config?.midnight, .zeroHundred)
        XCTAssertEqual(config?.leadIn, Optional(LeadIn.none))
        XCTAssertEqual(config?.voice, true)
        XCTAssertEqual(config?.quiet, [])
    }

    func testEveryKey() throws {
        let text = """
            zone = "America/St_Johns"
            device = "hw:1,0"
            pack = "/opt/packs/westminster"
            interval = "half"
            volume = 35
            late-limit = 2.5
            driver = "external"
            chime = "none"
            phrasing = "24h"
            midnight = "midnight"
            lead-in = "the-time-is"
            voice = false

            [[quiet]]
            days = ["mon", "Tuesday", "weekends"]
            from = "23:30"
            to = "06:15"
            mode = "chime-only"

            [[quiet]]
            from = 12:00
            to = "24:00"
            mode = "lower-volume"
            volume = 10

            [[quiet]]
            days = "weekdays"
            from = "09:00"
            to = "17:00"
            """
        var expected = Config()
        expected.zone = Zone(identifier: "America/St_Johns")
        expected.device = "hw:1,0"
        expected.pack = "/opt/packs/westminster"
        expected.packOrigin = "config.toml: line 3"  // named when the pack is not found
        expected.interval = .half
        expected.volume = 35
        expected.lateLimit = 2.5
        expected.driver = .external
        expected.chime = ChimeStyle.none
        expected.phrasing = .twentyFourHour
        expected.midnight = .midnight
        expected.leadIn = .theTimeIs
        expected.voice = false
        expected.quiet = [
            QuietWindow(
                days: [.monday, .tuesday, .saturday, .sunday], from: 23 * 60 + 30, to: 6 * 60 + 15, mode: .chimeOnly),
            QuietWindow(days: .daily, from: 12 * 60, to: 1440, mode: .lowerVolume(percent: 10)),
            QuietWindow(days: .weekdays, from: 9 * 60, to: 17 * 60, mode: .silent),
        ]
        XCTAssertEqual(parse(text), expected)
        XCTAssertEqual(
            expected.announcementStyle,
            AnnouncementStyle(
                phrase: PhraseStyle(phrasing: .twentyFourHour, midnight: .midnight, leadIn: .theTimeIs),
                chime: ChimeStyle.none, voice: false))
    }

    func testIntegerLateLimitAndInlineQuietTables() {
        XCTAssertEqual(parse("output-latency = 150")?.outputLatencyMs, 150)
        XCTAssertEqual(parse("output-latency = 12.5")?.outputLatencyMs, 12.5)
        XCTAssertEqual(parse("")?.outputLatencyMs, 0)
        let config = parse("late-limit = 300\nquiet = [{ from = \"01:00\", to = \"02:00\" }]")
        XCTAssertEqual(config?.lateLimit, 300)
        XCTAssertEqual(config?.quiet, [QuietWindow(from: 60, to: 120)])
    }

    func testExampleParsesAndDocumentsEveryKey() throws {
        let config = try Config.parse(Config.exampleTOML, source: "example", zones: TestZones.lookup)
        let expected = Config()
        // `pack` is shown commented out: left unset, the language chooses its own pack.
        XCTAssertNil(config.chosenPack, "the example must not pin the pack (language = \"de\" would then refuse it)")
        XCTAssertTrue(Config.exampleTOML.contains("# pack = \"default\""), Config.exampleTOML)
        XCTAssertEqual(config, expected, "the example shows exactly the defaults: its quiet windows are commented out")
        // Uncommented, its two example windows work.
        let withQuiet = try Config.parse(Config.exampleWithQuietWindows, source: "example", zones: TestZones.lookup)
        XCTAssertEqual(
            withQuiet.quiet,
            [
                QuietWindow(days: .daily, from: 22 * 60, to: 7 * 60, mode: .silent),
                QuietWindow(days: .weekends, from: 7 * 60, to: 9 * 60, mode: .lowerVolume(percent: 30)),
            ])
        for key in Config.keys + Config.quietKeys + MQTTConfig.keys + CourtesyConfig.keys + Config.windowKeys
            + Config.reminderKeys + Config.awayKeys + Config.valueKeys
        {
            let shown =
                Config.exampleTOML.contains("\n\(key) = ") || Config.exampleTOML.contains("# \(key) = ")
                || Config.exampleTOML.contains("# [[\(key)]]") || Config.exampleTOML.contains("# [\(key)]")
                || Config.exampleTOML.contains("\n[\(key)]")
            XCTAssertTrue(shown, "the example should show '\(key)'")
        }
        // The commented-out zone works when uncommented.
        let withZone = Config.exampleTOML.replacingOccurrences(of: "# zone = ", with: "zone = ")
        XCTAssertEqual(try Config.parse(withZone, source: "example", zones: TestZones.lookup).zone, Zone(identifier: "Europe/London"))
    }

    // MARK: Errors name the file, the line, the key and the fix

    func testErrorSentences() {
        let knownKeys = Config.keys.joined(separator: ", ")
        let cases: [(why: String, text: String, expected: String)] = [
            (
                "typo in a key", "\n\n\nvolum = 80",
                "config.toml: line 4: unknown key 'volum'; did you mean 'volume'? Known keys: \(knownKeys)."
            ),
            (
                "snake_case instead of kebab-case", "late_limit = 3",
                "config.toml: line 1: unknown key 'late_limit'; did you mean 'late-limit'? Known keys: \(knownKeys)."
            ),
            (
                "nothing close", "colour = \"red\"",
                "config.toml: line 1: unknown key 'colour'. Known keys: \(knownKeys)."
            ),
            (
                "wrong type", "\n\n\n\n\nvolume = \"loud\"",
                "config.toml: line 6: 'volume' must be an integer from 0 to 100, not the string \"loud\"."
            ),
            (
                "quoted number", "volume = \"80\"",
                "config.toml: line 1: 'volume' must be an integer from 0 to 100, not the string \"80\"; write volume = "
                    + "80 without quotes."
            ),
            (
                "volume out of range", "volume = 150",
                "config.toml: line 1: 'volume' must be an integer from 0 to 100 (a percentage), not 150."
            ),
            (
                "volume as float", "volume = 50.5",
                "config.toml: line 1: 'volume' must be an integer from 0 to 100, not the float 50.5."
            ),
            (
                "late-limit zero", "late-limit = 0",
                "config.toml: line 1: 'late-limit' must be a number of seconds greater than 0 and at most 300, not 0."
            ),
            (
                "late-limit too large", "late-limit = 301.5",
                "config.toml: line 1: 'late-limit' must be a number of seconds greater than 0 and at most 300, not "
                    + "301.5."
            ),
            (
                "late-limit nan", "late-limit = nan",
                "config.toml: line 1: 'late-limit' must be a number of seconds greater than 0 and at most 300, not nan."
            ),
            (
                "late-limit quoted", "late-limit = \"5\"",
                "config.toml: line 1: 'late-limit' must be a number of seconds greater than 0 and at most 300, not the "
                    + "string \"5\"; write late-limit = 5 without quotes."
            ),
            (
                "output-latency negative", "output-latency = -20",
                "config.toml: line 1: 'output-latency' must be the speaker's delay in milliseconds, from 0 to 1000 "
                    + "(e.g. output-latency = 150 for a Bluetooth speaker), not -20."
            ),
            (
                "output-latency in seconds by mistake", "output-latency = 1500",
                "config.toml: line 1: 'output-latency' must be the speaker's delay in milliseconds, from 0 to 1000 "
                    + "(e.g. output-latency = 150 for a Bluetooth speaker), not 1500."
            ),
            (
                "output-latency with a unit", "output-latency = \"150ms\"",
                "config.toml: line 1: 'output-latency' must be the speaker's delay in milliseconds, from 0 to 1000 "
                    + "(e.g. output-latency = 150 for a Bluetooth speaker), not the string \"150ms\"; write "
                    + "output-latency = 150 without quotes or unit."
            ),
            (
                "output-latency nan", "output-latency = nan",
                "config.toml: line 1: 'output-latency' must be the speaker's delay in milliseconds, from 0 to 1000 "
                    + "(e.g. output-latency = 150 for a Bluetooth speaker), not nan."
            ),
            (
                "enum typo", "interval = \"hourly\"",
                "config.toml: line 1: 'interval' must be \"quarter\", \"half\", \"hour\", or minutes that divide 60: \"1m\", "
                    + "\"2m\", \"3m\", \"4m\", \"5m\", \"6m\", \"10m\", \"12m\", \"15m\", \"20m\", \"30m\", \"60m\", not \"hourly\"; did "
                    + "you mean \"hour\"?"
            ),
            (
                "chime lists every pattern", "chime = \"cuckoo\"",
                "config.toml: line 1: 'chime' must be one of \"none\", \"hour\", \"westminster\" or "
                    + "\"ships-bells\", not \"cuckoo\"."
            ),
            (
                "chime typo", "chime = \"westminister\"",
                "config.toml: line 1: 'chime' must be one of \"none\", \"hour\", \"westminster\" or "
                    + "\"ships-bells\", not \"westminister\"; did you mean \"westminster\"?"
            ),
            (
                "voice-at needs quarters", "voice-at = [0, 20]",
                "config.toml: line 1: 'voice-at' must be a list of minutes of the hour from 0, 15, 30 and 45, "
                    + "such as [0, 30]; the integer 20 is not one of them."
            ),
            (
                "voice-at scalar", "voice-at = 0",
                "config.toml: line 1: 'voice-at' must be a list of minutes of the hour from 0, 15, 30 and 45, "
                    + "such as [0, 30], not the number 0; write voice-at = [0]."
            ),
            (
                "enum wrong type", "phrasing = 24",
                "config.toml: line 1: 'phrasing' must be a phrasing such as \"12h\" or \"casual\" in quotes, not the integer 24."
            ),
            (
                "driver", "driver = \"cron\"",
                "config.toml: line 1: 'driver' must be one of \"timer\" or \"external\", not \"cron\"."
            ),
            (
                "lead-in spelled with an apostrophe", "lead-in = \"it's\"",
                "config.toml: line 1: 'lead-in' must be one of \"none\", \"its\" or \"the-time-is\", not \"it's\"; did "
                    + "you mean \"its\"?"
            ),
            (
                "midnight", "midnight = \"zero hundred\"",
                "config.toml: line 1: 'midnight' must be one of \"midnight\" or \"zero-hundred\", not \"zero "
                    + "hundred\"; did you mean \"zero-hundred\"?"
            ),
            (
                "quoted boolean", "voice = \"false\"",
                "config.toml: line 1: 'voice' must be true or false, not the string \"false\"; write voice = false "
                    + "without quotes."
            ),
            (
                "boolean as number", "voice = 1",
                "config.toml: line 1: 'voice' must be true or false, not the integer 1."
            ),
            (
                "empty device", "device = \"\"",
                "config.toml: line 1: 'device' is empty; give an ALSA device name such as \"default\" or \"hw:0,0\", "
                    + "or remove the line to use \"default\"."
            ),
            (
                "pack as number", "pack = 3",
                "config.toml: line 1: 'pack' must be a sound pack name or path such as \"default\" in quotes, not the "
                    + "integer 3."
            ),
            (
                "zone typo", "zone = \"Europe/Londn\"",
                "config.toml: line 1: 'zone' must be an IANA time zone name such as \"Europe/London\" or "
                    + "\"America/New_York\", not \"Europe/Londn\"; did you mean \"Europe/London\"?"
            ),
            (
                "zone nonsense", "zone = \"Mars/Olympus_Mons_Base\"",
                "config.toml: line 1: 'zone' must be an IANA time zone name such as \"Europe/London\" or "
                    + "\"America/New_York\", not \"Mars/Olympus_Mons_Base\"; `timedatectl list-timezones` lists them "
                    + "(leave 'zone' out to follow the system zone)."
            ),
            (
                "TOML syntax error carries line and column", "volume = 80\nmode = silent",
                "config.toml: line 2, column 8: expected a value, found silent; strings must be quoted, like "
                    + "\"silent\"."
            ),
            (
                "unknown table", "[quite]\nfrom = \"22:00\"",
                "config.toml: line 1: unknown key 'quite'; did you mean 'quiet'? Known keys: \(knownKeys)."
            ),
        ]
        for c in cases {
            XCTAssertEqual(error(c.text)?.description, c.expected, c.why)
        }
    }

    func testErrorFields() {
        let e = error("\n[[quiet]]\nfrom = \"22:00\"\nto = \"7am\"")
        XCTAssertEqual(e?.source, source)
        XCTAssertEqual(e?.line, 4)
        XCTAssertNil(e?.column)
        XCTAssertEqual(e?.key, "quiet.to")
        let syntax = error("a = ")
        XCTAssertEqual(syntax?.line, 1)
        XCTAssertEqual(syntax?.column, 5)
        XCTAssertNil(syntax?.key)
    }

    func testQuietWindowErrors() {
        let cases: [(why: String, text: String, expected: String)] = [
            (
                "single brackets", "\n[quiet]\nfrom = \"22:00\"\nto = \"07:00\"",
                "config.toml: line 2: quiet hours are written [[quiet]], with two brackets, because there can be "
                    + "several windows; change [quiet] to [[quiet]]."
            ),
            (
                "not a list of tables", "quiet = \"22:00-07:00\"",
                "config.toml: line 1: 'quiet' must be a list of windows, each a [[quiet]] section with from, to and "
                    + "mode, not the string \"22:00-07:00\"."
            ),
            (
                "a list of strings", "quiet = [\"22:00\"]",
                "config.toml: line 1: 'quiet' must be a list of windows, each a [[quiet]] section (or an inline "
                    + "table), not an array containing the string \"22:00\"."
            ),
            (
                "typo in a window key", "[[quiet]]\nform = \"22:00\"\nto = \"07:00\"",
                "config.toml: line 2: unknown key 'form' in [[quiet]]; did you mean 'from'? Known keys in [[quiet]]: "
                    + "days, from, to, mode, volume."
            ),
            (
                "missing from", "[[quiet]]\nto = \"07:00\"",
                "config.toml: line 1: the [[quiet]] window has no 'from' time; add one such as from = \"22:00\" "
                    + "(24-hour HH:MM)."
            ),
            (
                "missing to", "volume = 50\n\n[[quiet]]\nfrom = \"22:00\"",
                "config.toml: line 3: the [[quiet]] window has no 'to' time; add one such as to = \"07:00\" (24-hour "
                    + "HH:MM)."
            ),
            (
                "empty window", "[[quiet]]\nfrom = \"22:00\"\nto = \"22:00\"",
                "config.toml: line 3: 'from' and 'to' in [[quiet]] are both \"22:00\", so the window would be empty; "
                    + "for a whole day use from = \"00:00\" and to = \"24:00\"."
            ),
            (
                "12-hour time", "[[quiet]]\nfrom = \"10pm\"\nto = \"07:00\"",
                "config.toml: line 2: 'from' in [[quiet]] must be a time of day such as \"22:00\" (24-hour HH:MM), not "
                    + "\"10pm\"."
            ),
            (
                "bad end time mentions 24:00", "[[quiet]]\nfrom = \"22:00\"\nto = \"25:00\"",
                "config.toml: line 3: 'to' in [[quiet]] must be a time of day such as \"22:00\" (24-hour HH:MM), or "
                    + "\"24:00\" for the end of the day, not \"25:00\"."
            ),
            (
                "24:00 is only an end", "[[quiet]]\nfrom = \"24:00\"\nto = \"07:00\"",
                "config.toml: line 2: 'from' in [[quiet]] cannot be \"24:00\", the end of the day; a window that "
                    + "starts at midnight has from = \"00:00\"."
            ),
            (
                "number instead of time", "[[quiet]]\nfrom = 22\nto = \"07:00\"",
                "config.toml: line 2: 'from' in [[quiet]] must be a time of day such as \"22:00\" (24-hour HH:MM) in "
                    + "quotes, not the integer 22."
            ),
            (
                "TOML time with seconds", "[[quiet]]\nfrom = 22:00:30\nto = \"07:00\"",
                "config.toml: line 2: quiet hours are in whole minutes: write 'from' in [[quiet]] as \"22:00\", not "
                    + "22:00:30."
            ),
            (
                "a date is not a time", "[[quiet]]\nfrom = 2026-01-01\nto = \"07:00\"",
                "config.toml: line 2: 'from' in [[quiet]] must be a time of day such as \"22:00\" (24-hour HH:MM) in "
                    + "quotes, not the local date 2026-01-01."
            ),
            (
                "unknown mode", "[[quiet]]\nfrom = \"22:00\"\nto = \"07:00\"\nmode = \"mute\"",
                "config.toml: line 4: 'mode' in [[quiet]] must be one of \"silent\", \"chime-only\" or "
                    + "\"lower-volume\", not \"mute\"."
            ),
            (
                "lower-volume without volume", "[[quiet]]\nfrom = \"22:00\"\nto = \"07:00\"\nmode = \"lower-volume\"",
                "config.toml: line 4: mode = \"lower-volume\" needs a 'volume' in the same [[quiet]] window, such as "
                    + "volume = 30."
            ),
            (
                "volume without lower-volume", "[[quiet]]\nfrom = \"22:00\"\nvolume = 20\nto = \"07:00\"",
                "config.toml: line 3: 'volume' in [[quiet]] only applies with mode = \"lower-volume\" (this window's "
                    + "mode is \"silent\"); remove it, or set mode = \"lower-volume\"."
            ),
            (
                "window volume out of range",
                "[[quiet]]\nfrom = \"22:00\"\nto = \"07:00\"\nmode = \"lower-volume\"\nvolume = -5",
                "config.toml: line 5: 'volume' in [[quiet]] must be an integer from 0 to 100 (a percentage), not -5."
            ),
            (
                "a day typo", "[[quiet]]\ndays = [\"sat\", \"snu\"]\nfrom = \"22:00\"\nto = \"07:00\"",
                "config.toml: line 2: 'days' in [[quiet]] must name days: \"mon\" … \"sun\", \"weekdays\", "
                    + "\"weekends\" or \"daily\", alone or in a list such as [\"sat\", \"sun\"]; \"snu\" is not a day "
                    + "(did you mean \"sun\"?)."
            ),
            (
                "days as a number", "[[quiet]]\ndays = 5\nfrom = \"22:00\"\nto = \"07:00\"",
                "config.toml: line 2: 'days' in [[quiet]] must name days: \"mon\" … \"sun\", \"weekdays\", "
                    + "\"weekends\" or \"daily\", alone or in a list such as [\"sat\", \"sun\"]; not the integer 5."
            ),
            (
                "no days", "[[quiet]]\ndays = []\nfrom = \"22:00\"\nto = \"07:00\"",
                "config.toml: line 2: 'days' in [[quiet]] is an empty list, so the window would never apply; list days "
                    + "such as [\"sat\", \"sun\"], or remove 'days' to mean every day."
            ),
            (
                "second window reported at its own line",
                "[[quiet]]\nfrom = \"22:00\"\nto = \"07:00\"\n\n[[quiet]]\nfrom = \"12:00\"",
                "config.toml: line 5: the [[quiet]] window has no 'to' time; add one such as to = \"07:00\" (24-hour "
                    + "HH:MM)."
            ),
        ]
        for c in cases {
            XCTAssertEqual(error(c.text)?.description, c.expected, c.why)
        }
    }

    func testDaySpellings() {
        let cases: [(days: String, expected: Weekdays)] = [
            ("\"daily\"", .daily),
            ("\"weekdays\"", .weekdays),
            ("\"weekends\"", [.saturday, .sunday]),
            ("\"SUN\"", .sunday),
            ("[\"mon\", \"wed\", \"fri\"]", [.monday, .wednesday, .friday]),
            ("[\"friday\", \"weekends\"]", [.friday, .saturday, .sunday]),
            ("[\"weekdays\", \"weekends\"]", .daily),
            ("[\"tue\", \"tue\"]", .tuesday),
        ]
        for c in cases {
            let config = parse("[[quiet]]\ndays = \(c.days)\nfrom = \"22:00\"\nto = \"07:00\"")
            XCTAssertEqual(config?.quiet.first?.days, c.expected, c.days)
        }
    }

    func testOverrides() {
        var config = Config()
        config.device = "hw:0"
        config.pack = "file-pack"
        config.volume = 40
        let zone = Zone(identifier: "Asia/Kathmandu")!
        let merged = config.merged(with: ConfigOverrides(zone: zone, device: "plughw:1", pack: nil))
        XCTAssertEqual(merged.zone, zone)
        XCTAssertEqual(merged.device, "plughw:1")
        XCTAssertEqual(merged.pack, "file-pack", "an absent override keeps the file's value")
        XCTAssertEqual(merged.volume, 40)
        XCTAssertEqual(config.merged(with: ConfigOverrides()), config)
    }

    func testTimeZoneForCommandLine() throws {
        XCTAssertEqual(
            try Config.timeZone(named: "Australia/Lord_Howe", source: "--tz", zones: TestZones.lookup).identifier, "Australia/Lord_Howe")
        XCTAssertThrowsError(try Config.timeZone(named: "america/new_york", source: "--tz", zones: TestZones.lookup)) { error in
            XCTAssertEqual(
                "\(error)",
                "--tz: 'zone' must be an IANA time zone name such as \"Europe/London\" or \"America/New_York\", not "
                    + "\"america/new_york\"; did you mean \"America/New_York\"?")
        }
    }

    func testSuggestions() {
        let cases: [(word: String, candidates: [String], expected: String?)] = [
            ("volum", Config.keys, "volume"),
            ("lateLimit", Config.keys, "late-limit"),
            ("lead_in", Config.keys, "lead-in"),
            ("quite", Config.keys, "quiet"),
            ("chmie", Config.keys, "chime"),
            ("xyz", Config.keys, nil),
            ("v", Config.keys, nil),
            ("stauts", ["status", "say"], "status"),
        ]
        for c in cases {
            XCTAssertEqual(Suggestion.closest(to: c.word, in: c.candidates), c.expected, c.word)
        }
        XCTAssertEqual(Suggestion.distance(Array("kitten".unicodeScalars), Array("sitting".unicodeScalars)), 3)
        XCTAssertEqual(Suggestion.distance(Array("ab".unicodeScalars), Array("ba".unicodeScalars)), 1)
        XCTAssertEqual(Suggestion.distance([], Array("abc".unicodeScalars)), 3)
    }
}

extension Config {
    /// The example config with its two quiet windows uncommented (tests of the parser's robustness
    /// keep cutting and mutating real [[quiet]] tables).
    static var exampleWithQuietWindows: String {
        // The lines of each "# [[quiet]]" block (up to the blank line after it), uncommented.
        var inQuiet = false
        return exampleTOML.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            if line.hasPrefix("# [[quiet]]") { inQuiet = true }
            if line.isEmpty { inQuiet = false }
            let quietLine = inQuiet && ["# [[quiet]]", "# days = ", "# from = ", "# to = ", "# mode = ", "# volume = 30"].contains { line.hasPrefix($0) }
            return quietLine ? String(line.dropFirst(2)) : String(line)
        }.joined(separator: "\n")
    }
}
