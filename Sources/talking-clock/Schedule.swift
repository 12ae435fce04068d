import ArgumentParser
import Daemon
import Foundation
import SoundPack
import TalkingClockCore

struct Schedule: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "List the next announcements (a fake clock: any --from instant, any zone).",
        discussion: """
            --from takes RFC 3339 (2026-11-01T01:30:00-05:00, …Z) or a local time without offset \
            (2026-11-01T01:30), read in --tz; an ambiguous local time means its earlier occurrence.
            """
    )

    @Option(help: "List announcements strictly after this instant (default: now).")
    var from: String?

    @Option(help: "How many announcements to list.")
    var count: Int = 8

    @Option(name: .customLong("tz"), help: "IANA time zone (default: the system zone).")
    var zone: String?

    @Option(help: "Sound pack: a name or a directory containing pack.json.")
    var pack: String?

    @Option(help: "Chime: none, hour, westminster or ships-bells (default: the config's, else hour).")
    var chime: ChimeStyle?

    @Option(help: "12h or 24h (default: the config's, else 12h).")
    var phrasing: Phrasing?

    @Option(help: "Config file (default: $XDG_CONFIG_HOME/talking-clock/config.toml, if it exists).")
    var config: String?

    @Flag(help: "One JSON object per line: at, utc, text, clips, chime, strikes, anchor_offset_ms.")
    var json = false

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more, not \(count).") }
    }

    func run() throws {
        let overrides = ConfigOverrides(
            zone: try self.zone.map { try Support.zone($0) }, pack: pack, chime: chime, phrasing: phrasing)
        let settings: Config
        do { settings = try ClockDaemon.loadConfig(path: config, overrides: overrides) } catch {
            throw CLIError(error.status, error.description)
        }
        let zone = try settings.zone ?? Support.zone(nil)
        let style = settings.announcementStyle
        let start: Double
        if let from {
            do { start = try InstantParser.parse(from, in: zone) } catch {
                throw CLIError(.badInput, "--from: \(error.description)")
            }
        } else {
            start = WallClock.now()
        }
        let pack = try Support.pack(settings.pack, scan: false)
        var out = ""
        out.reserveCapacity(count * 160)
        var plans: [Int: AnnouncementPlan] = [:]  // by minute of day: the words repeat every day
        for boundary in BoundarySchedule.upcoming(after: start, count: count, in: zone) {
            let local = CivilTime.local(boundary, in: zone)
            let plan: AnnouncementPlan
            if let cached = plans[local.minuteOfDay] {
                plan = cached
            } else {
                plan = try Support.plan(hour: local.hour, minute: local.minute, style: style, pack: pack)
                plans[local.minuteOfDay] = plan
            }
            if json {
                out += "{\"at\":\"\(local.rfc3339)\",\"utc\":\"\(CivilTime.utcString(boundary))\",\"text\":\"\(plan.phrase.text)\",\"clips\":["
                out += plan.clips.map { "\"\($0)\"" }.joined(separator: ",") + "]"
                out += ",\"chime\":\"\(plan.chime.isEmpty ? "none" : style.chime.rawValue)\",\"strikes\":\(plan.chime.count)"
                out += ",\"anchor_offset_ms\":\(plan.anchorOffsetMs)}\n"
            } else {
                out += "\(local.rfc3339)  \(plan.phrase.text)  [\(plan.clips.joined(separator: " "))]"
                if !plan.chime.isEmpty {
                    out += "  \(style.chime.rawValue): \(plan.chime.count) strike\(plan.chime.count == 1 ? "" : "s"), anchor \(Support.anchorText(plan.anchorOffsetMs))"
                }
                out += "\n"
            }
            if out.utf8.count > 1 << 16 {
                FileHandle.standardOutput.write(Data(out.utf8))
                out.removeAll(keepingCapacity: true)
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }
}
