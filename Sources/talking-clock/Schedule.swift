import ArgumentParser
import Daemon
import Foundation
import SoundPack
import TalkingClockCore

struct Schedule: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    @Flag(help: "One JSON object per line: at, utc, text, clips.")
    var json = false

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more, not \(count).") }
    }

    func run() throws {
        let zone = try Support.zone(zone)
        let start: Double
        if let from {
            do { start = try InstantParser.parse(from, in: zone) } catch {
                throw CLIError(.badInput, "--from: \(error.description)")
            }
        } else {
            start = WallClock.now()
        }
        let pack = try Support.pack(pack, scan: false)
        var out = ""
        out.reserveCapacity(count * 160)
        var plans: [Int: AnnouncementPlan] = [:]  // by minute of day: the words repeat every day
        for boundary in BoundarySchedule.upcoming(after: start, count: count, in: zone) {
            let local = CivilTime.local(boundary, in: zone)
            let plan: AnnouncementPlan
            if let cached = plans[local.minuteOfDay] {
                plan = cached
            } else {
                plan = try Support.plan(hour: local.hour, minute: local.minute, style: .standard, pack: pack)
                plans[local.minuteOfDay] = plan
            }
            if json {
                out += "{\"at\":\"\(local.rfc3339)\",\"utc\":\"\(CivilTime.utcString(boundary))\",\"text\":\"\(plan.phrase.text)\",\"clips\":["
                out += plan.clips.map { "\"\($0)\"" }.joined(separator: ",") + "]}\n"
            } else {
                out += "\(local.rfc3339)  \(plan.phrase.text)  [\(plan.clips.joined(separator: " "))]\n"
            }
            if out.utf8.count > 1 << 16 {
                FileHandle.standardOutput.write(Data(out.utf8))
                out.removeAll(keepingCapacity: true)
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }
}
