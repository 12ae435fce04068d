import Daemon
import Foundation
import SoundPack
import TalkingClockCore

enum Support {
    static func zone(_ explicit: String?) throws -> TimeZone {
        do { return try ZoneResolver.resolve(explicit: explicit) } catch {
            throw CLIError(.badInput, error.description)
        }
    }

    static func pack(_ name: String?, scan: Bool) throws -> SoundPack {
        let url: URL
        switch PackLocator.locate(name ?? "default") {
        case .success(let found): url = found
        case .failure(let error): throw CLIError(.packError, error.description)
        }
        do { return try SoundPack(directory: url, scan: scan) } catch {
            throw CLIError(.packError, error.description)
        }
    }

    static func plan(hour: Int, minute: Int, style: AnnouncementStyle, pack: SoundPack) throws -> AnnouncementPlan {
        do { return try AnnouncementPlan.make(hour: hour, minute: minute, style: style, available: pack.clipIds) } catch {
            throw CLIError(.packError, "Sound pack '\(pack.name)' (\(pack.directory.path)): \(error.description)")
        }
    }

    static func timeline(_ plan: AnnouncementPlan, pack: SoundPack) throws -> Timeline {
        do { return try pack.timeline(for: plan) } catch { throw CLIError(.packError, error.description) }
    }
}
