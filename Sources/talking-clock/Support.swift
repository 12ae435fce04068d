import ConfigFiles
import EventLoop
import FoundationEssentials
import SoundPack
import TalkingClockCore

enum Support {
    /// Which phrasings there are, for --help.
    static let phrasingHelp =
        "English: 12h, 24h or casual (en-GB also informal); the other languages: casual or 24h (list them with 'words --list-phrasings')"

    /// `--language TAG`: an unknown tag is bad input that lists the known ones.
    static func checkLanguage(_ tag: String?) throws {
        guard let tag, SpokenLanguages.canonical(tag) == nil else { return }
        throw CLIError(.badInput, "--language: unknown language \"\(tag)\"; the clock speaks: \(SpokenLanguages.knownList).")
    }

    static func zone(_ explicit: String?) throws -> Zone {
        do { return try ZoneResolver.resolve(explicit: explicit) } catch {
            throw CLIError(.badInput, error.description)
        }
    }

    /// `keepingBrokenClips`: see `SoundPack.init` (for `check`, which reports every broken clip).
    /// - Parameter origin: where the name was set ("FILE: line N"), named in the error when the
    ///   pack is not found.
    static func pack(_ name: String?, origin: String? = nil, scan: Bool, keepingBrokenClips: Bool = false) throws -> SoundPack {
        let url: URL
        switch PackLocator.locate(name ?? "default") {
        case .success(let found): url = found
        case .failure(let error):
            throw CLIError(.packError, error.description + (origin.map { " (The pack is set by 'pack' in \($0).)" } ?? ""))
        }
        do { return try SoundPack(directory: url, scan: scan, keepingBrokenClips: keepingBrokenClips) } catch {
            throw CLIError(.packError, error.description)
        }
    }

    /// Clip ids for a person to read, separated by spaces; a unit (several words, one clip) is
    /// quoted as a shell would: `"quarter after" three`.
    static func clipList(_ clips: [String]) -> String {
        clips.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
    }

    /// Refuses a pack of another language than the configured one (exit 65).
    static func requireLanguage(_ pack: SoundPack, _ language: String) throws {
        do { try pack.requireLanguage(language) } catch { throw CLIError(.packError, error.description) }
    }

    static func plan(hour: Int, minute: Int, style: AnnouncementStyle, pack: SoundPack) throws -> AnnouncementPlan {
        do { return try pack.plan(hour: hour, minute: minute, style: style) } catch {
            throw CLIError(.packError, error.description)
        }
    }

    /// The user's config file (if any) with the command line's settings applied.
    static func config(path: String?, options: ClockOptions) throws -> Config {
        let overrides = try options.overrides()
        do { return try ConfigFile.loadConfig(path: path, overrides: overrides) } catch {
            throw CLIError(error.status, error.description)
        }
    }

    /// "chime westminster, 20 strikes, first at -16.500 s (the anchor on the time)".
    static func chimeSummary(_ plan: AnnouncementPlan, style: ChimeStyle) -> String? {
        guard !plan.chime.isEmpty else { return nil }
        let n = plan.chime.count
        return "chime: \(style.rawValue), \(n) strike\(n == 1 ? "" : "s"), anchor \(anchorText(plan.anchorOffsetMs))"
    }

    /// The anchor offset as shown by `say --dry-run` and `schedule`: "+0.000 s" is the first
    /// strike on the time; "+16.500 s" means the chime starts 16.5 s before it.
    static func anchorText(_ ms: Int) -> String {
        "+" + Format.fixed(Double(ms) / 1000, 3) + " s"
    }

    static func timeline(_ plan: AnnouncementPlan, pack: SoundPack) throws -> Timeline {
        do { return try pack.timeline(for: plan) } catch { throw CLIError(.packError, error.description) }
    }
}
