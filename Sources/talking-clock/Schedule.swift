import ConfigFiles
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
import SoundPack
import TalkingClockCore

struct Schedule: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract:
            "List the next instants (boundaries and reminders) and what the daemon will do at each (a fake clock: any --from instant, any zone).",
        discussion: """
            Each instant is listed with the decision the daemon makes for it from the configuration, by the same \
            function: every boundary of the config's interval and its [[window]]s, and every [[reminder]] (with \
            reminders, each line says its kind: time, reminder, or time+reminder); spoken; chime only (quiet hours, \
            voice = false, voice-at); at a lower volume (quiet hours, the volume curve; with a volume-curve every line \
            shows its volume); or skipped and why (quiet, away, nothing-to-play). A mute or a pending skip is runtime \
            state of a running daemon and is not shown: while muted, the daemon says nothing whatever this lists. Courtesy ([courtesy]: a call, do-not-disturb, media playing) is decided at each boundary from one look at that moment; `check` shows what a look finds now, and `status` the last decision.

            --from takes RFC 3339 (2026-11-01T01:30:00-05:00, …Z) or a local time without offset \
            (2026-11-01T01:30), read in --tz; an ambiguous local time means its earlier occurrence.
            """
    )

    @Option(help: "List announcements strictly after this instant (default: now).")
    var from: String?

    @Option(parsing: .unconditional, help: "How many announcements to list.")
    var count: Int = 8

    @Option(name: .customLong("tz"), help: "Time zone, as TZ takes it: a name (Europe/London), :name, a zone file path, or a POSIX TZ string (UTC+5 is 5 h WEST; CET-1CEST,M3.5.0,M10.5.0/3) (default: TZ, else /etc/localtime).")
    var zone: String?

    @Option(help: "Sound pack: a name or a directory containing pack.json.")
    var pack: String?

    @Option(help: "Chime: none, hour, westminster or ships-bells (default: the config's, else hour).")
    var chime: ChimeStyle?

    @Option(help: "Language: \(SpokenLanguages.knownList) (default: the config's, else en-US).", completion: .list(SpokenLanguages.known))
    var language: String?

    @Option(help: "\(Support.phrasingHelp) (default: the config's, else the language's).")
    var phrasing: Phrasing?

    @Option(help: "Config file (default: $XDG_CONFIG_HOME/talking-clock/config.toml, if it exists).")
    var config: String?

    @Flag(
        help:
            "One JSON object per line: at, utc, decision (speak, chime-only or skip), reason (why it is not a plain speak), volume (percent, unless skipped), language, text, clips, chime, strikes, anchor_offset_ms; with reminders also kind (time, reminder, time+reminder) and reminders (the words of each said)."
    )
    var json = false

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more, not \(count).") }
    }

    func run() throws {
        try Support.checkLanguage(language)
        let overrides = ConfigOverrides(
            zone: try self.zone.map { try Support.zone($0) }, pack: pack, chime: chime, phrasing: phrasing,
            language: language)
        let settings: Config
        do { settings = try ConfigFile.loadConfig(path: config, overrides: overrides) } catch {
            throw CLIError(error.status, error.description)
        }
        let zone = try settings.zone ?? Support.zone(nil)
        let start: Double
        if let from {
            do { start = try InstantParser.parse(from, in: zone) } catch {
                throw CLIError(.badInput, "--from: \(error.description)")
            }
        } else {
            start = WallClock.now()
        }
        let pack = try Support.pack(settings.pack, origin: settings.packOrigin, scan: false)
        try Support.requireLanguage(pack, settings.language)
        // Streamed: each line is written (in 64 KiB chunks) as it is computed, so any --count
        // runs in constant memory.
        var out = ""
        out.reserveCapacity(1 << 17)
        // Plain English lists stay as they were; any other language is named first.
        let phrase = settings.announcementStyle.phrase
        if !json, phrase.language != SpokenLanguages.defaultTag {
            out += "language: \(phrase.language), phrasing \(phrase.phrasing)\n"
        }
        var plans: [PlanKey: AnnouncementPlan] = [:]  // the words repeat every day: at most 2 × 1,440
        var after = start
        let withReminders = !settings.reminders.isEmpty
        for _ in 0..<count {
            let boundary = AnnouncementScheduler.nextInstant(after: after, in: zone, config: settings)
            after = Double(boundary)
            let isBoundary = BoundarySchedule.isBoundary(boundary, in: zone, rhythm: settings.rhythm)
            let due = ReminderSchedule.due(at: boundary, reminders: settings.reminders, in: zone)
            let wantsTime = isBoundary || due.contains { settings.reminders[$0].append }
            let decision = AnnouncementScheduler.configuredDecision(boundary: boundary, in: zone, config: settings)
            var entry: Entry
            switch decision {
            case .skip(_, let local, let reason):
                entry = Entry(local: local, decision: "skip", reason: reason.rawValue, volume: nil, plan: nil)
            case .speak(_, let local, let style, let gain):
                let key = PlanKey(minuteOfDay: local.minuteOfDay, style: style)
                let plan: AnnouncementPlan
                if let cached = plans[key] {
                    plan = cached
                } else {
                    plan = try Support.plan(hour: local.hour, minute: local.minute, style: style, pack: pack)
                    plans[key] = plan
                }
                entry = Entry.spoken(local: local, style: style, gain: gain, plan: plan, config: settings)
            }
            if withReminders {
                entry.showTime = wantsTime
                var said: [String] = []
                var gains: [Float] = []
                var silent: [(words: String, reason: String)] = []
                for i in due {
                    let reminder = settings.reminders[i]
                    switch AnnouncementScheduler.reminderDecision(reminder, instant: boundary, in: zone, config: settings) {
                    case .speak(_, let gain):
                        said.append(Self.words(of: reminder, at: entry.local, config: settings))
                        gains.append(gain)
                    case .silent(let reason):
                        silent.append((Self.words(of: reminder, at: entry.local, config: settings), reason.rawValue))
                    }
                }
                entry.reminders = said
                entry.leftOut = silent
                entry.kind = wantsTime ? (due.isEmpty ? "time" : "time+reminder") : "reminder"
                if !wantsTime {
                    // No time: the reminders decide (a skip says why the first one is silent).
                    if let gain = gains.max() {
                        entry.decision = "speak"
                        entry.reason = nil
                        entry.volume = Int((gain * 100).rounded())
                        entry.plan = nil
                    } else if let first = silent.first {
                        // Skipped: the words it would have said, and why the first is silent.
                        entry.decision = "skip"
                        entry.reason = first.reason
                        entry.volume = nil
                        entry.reminders = silent.map(\.words)
                        entry.leftOut = []
                    }
                } else if let gain = gains.max() {
                    if entry.decision == "skip" {
                        // The time is silent (quiet hours, away) and a reminder speaks through it:
                        // the reminder alone is said, as the daemon says it.
                        entry.decision = "speak"
                        entry.timeLeftOut = entry.reason
                        entry.showTime = false
                        entry.plan = nil
                    }
                    entry.volume = max(entry.volume ?? 0, Int((gain * 100).rounded()))
                }
            }
            if settings.volumeCurve != nil, entry.volume != nil {
                entry.showVolume = true
                if entry.lowered, let curve = settings.volumeCurve, curve.percent(at: entry.local) == entry.volume {
                    entry.reason = entry.decision == "speak" ? "volume-curve" : entry.reason
                    entry.loweredBy = "the volume curve"
                }
            }
            out +=
                json
                ? entry.json(boundary: boundary, chime: settings.chime, phrase: settings.announcementStyle.phrase)
                : entry.text(chime: settings.chime, phrase: settings.announcementStyle.phrase)
            if out.utf8.count > 1 << 16 {
                writeAll(1, out)
                out.removeAll(keepingCapacity: true)
            }
        }
        writeAll(1, out)
    }

    /// What a reminder says, as text: its words with {time} and {date} in words ({value} is known
    /// only when it is said).
    static func words(of reminder: Reminder, at local: LocalDateTime, config: Config) -> String {
        switch reminder.content {
        case .clip: return reminder.label
        case .text(let template):
            return template.segments.map { segment -> String in
                switch segment {
                case .text(let t): t
                case .time: Phrase.forTime(hour: local.hour, minute: local.minute, style: config.announcementStyle.phrase).text
                case .date: (try? Phrase.forDate(CalendarDate(local), language: config.language).text) ?? "{date}"
                case .value: "{value}"
                }
            }.joined(separator: " ")
        }
    }

    private struct PlanKey: Hashable {
        var minuteOfDay: Int
        var style: AnnouncementStyle
    }

    /// One boundary as listed: the decision in the words of `--json`.
    private struct Entry {
        var local: LocalDateTime
        /// "speak", "chime-only" or "skip".
        var decision: String
        /// Why it is not a plain speak at the configured volume: a `SkipReason`, or for a chime
        /// only or a lowered volume "quiet", "voice-off" (voice = false) or "voice-at".
        var reason: String?
        /// Percent; nil when skipped.
        var volume: Int?
        /// Whether the volume is below the configured one (quiet hours).
        var lowered = false
        var plan: AnnouncementPlan?
        /// With reminders in the config: the instant's kind and what its reminders say.
        var kind: String?
        var reminders: [String] = []
        /// Whether the time is part of the instant (false: a reminder alone).
        var showTime = true
        /// Every line shows its volume (a volume curve is set).
        var showVolume = false
        /// What lowered the volume, in words ("quiet hours" unless said otherwise).
        var loweredBy = "quiet hours"
        /// Reminders due here that stay silent (away, quiet hours), with why, on a line that speaks.
        var leftOut: [(words: String, reason: String)] = []
        /// Why the time is not said on a line whose reminder speaks through it.
        var timeLeftOut: String?

        static func spoken(
            local: LocalDateTime, style: AnnouncementStyle, gain: Float, plan: AnnouncementPlan, config: Config
        ) -> Entry {
            let volume = Int((gain * 100).rounded())
            let lowered = volume < config.volume
            var entry = Entry(
                local: local, decision: "speak", reason: lowered ? "quiet" : nil, volume: volume, lowered: lowered,
                plan: plan)
            if !style.speaks(atMinute: local.minute) {
                entry.decision = "chime-only"
                // The decision turned the voice off where the configuration alone would speak: quiet hours.
                entry.reason =
                    config.announcementStyle.speaks(atMinute: local.minute)
                    ? "quiet" : config.voice ? "voice-at" : "voice-off"
            }
            return entry
        }

        func words(_ phrase: PhraseStyle) -> String {
            let time = showTime ? [plan?.phrase.text ?? Phrase.forTime(hour: local.hour, minute: local.minute, style: phrase).text] : []
            return (time + reminders).joined(separator: ". ")
        }

        /// The line of plain `schedule`; a plain spoken line is "at  words  [clips]  chime".
        func text(chime: ChimeStyle, phrase: PhraseStyle) -> String {
            var line = "\(local.rfc3339)  " + (kind.map { "\($0): " } ?? "") + words(phrase)
            guard let volume else { return line + "  skipped: \(reason ?? "")\n" }
            let notes =
                (timeLeftOut.map { ["the time skipped: \($0)"] } ?? [])
                + leftOut.map { "left out: \"\($0.words)\": \($0.reason)" }
            let leftOutText = notes.isEmpty ? "" : "  (" + notes.joined(separator: "; ") + ")"
            guard let plan else {
                // A reminder alone (or the time silenced and a reminder said through it).
                return line + (showVolume || lowered ? "  volume \(volume)%" : "") + leftOutText + "\n"
            }
            line += "  [\(Support.clipList(plan.clips))]"
            if !plan.chime.isEmpty {
                line +=
                    "  \(chime.rawValue): \(plan.chime.count) strike\(plan.chime.count == 1 ? "" : "s"), anchor \(Support.anchorText(plan.anchorOffsetMs))"
            }
            func why(_ reason: String?) -> String {
                switch reason {
                case "voice-off": "voice = false"
                case "voice-at": "voice-at"
                default: "quiet hours"
                }
            }
            switch (decision == "chime-only", lowered) {
            case (true, true) where reason == "quiet": line += "  (chime only, volume \(volume)%: \(loweredBy))"
            case (true, true): line += "  (chime only: \(why(reason)); volume \(volume)%: \(loweredBy))"
            case (true, false): line += "  (chime only: \(why(reason)))"
            case (false, true): line += "  (volume \(volume)%: \(loweredBy))"
            case (false, false): if showVolume { line += "  volume \(volume)%" }
            }
            return line + leftOutText + "\n"
        }

        /// One line of `schedule --json`: a `ScheduleEntryReport` encoded by `JSONEncoder`.
        func json(boundary: Int, chime: ChimeStyle, phrase: PhraseStyle) -> String {
            let strikes = plan?.chime.count ?? 0
            return ScheduleEntryReport(
                at: local.rfc3339, utc: CivilTime.utcString(boundary), decision: decision, reason: reason, volume: volume,
                language: phrase.language, text: words(phrase), clips: plan?.clips ?? [],
                chime: strikes == 0 ? "none" : chime.rawValue, strikes: strikes, anchorOffsetMs: plan?.anchorOffsetMs ?? 0,
                kind: kind, reminders: kind == nil ? nil : reminders
            ).json + "\n"
        }
    }
}
