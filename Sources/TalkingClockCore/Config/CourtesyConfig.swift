import TOML
import FoundationEssentials

/// Where the spoken words go: the pack's clips (the default), or speech-dispatcher, which queues
/// them behind a screen reader instead of talking over it.
public enum VoiceOutput: String, Sendable, Codable, CaseIterable {
    case clips
    /// The phrase text through libspeechd at SSIP priority `message`; chimes still play as sound.
    case speechDispatcher = "speech-dispatcher"
}

/// What to do at a boundary while a call is in progress, or while do-not-disturb is on.
public enum CourtesyAction: String, Sendable, Codable, CaseIterable {
    /// Say nothing and play nothing.
    case skip
    /// Play the chime, leave the voice out.
    case chimeOnly = "chime-only"
    /// Announce as usual.
    case speak

    /// Whether this is quieter than `other`: skip, then chime-only, then speak.
    public func isQuieter(than other: CourtesyAction) -> Bool { rank < other.rank }
    var rank: Int {
        switch self {
        case .skip: 0
        case .chimeOnly: 1
        case .speak: 2
        }
    }
}

/// What to do with other programs' sound while the clock plays.
public enum MediaCourtesy: String, Sendable, Codable, CaseIterable {
    /// Lower every other stream to `duck-percent` of its volume, restore it afterwards.
    case duck
    /// Pause MPRIS players that are playing; afterwards resume those the clock paused.
    case pause
    /// Leave other programs alone.
    case ignore
}

/// The `[courtesy]` table. Every key has a default, so no table means the defaults below.
public struct CourtesyConfig: Hashable, Sendable, Codable {
    public var call: CourtesyAction = .skip
    public var doNotDisturb: CourtesyAction = .skip
    public var media: MediaCourtesy = .duck
    /// With `media = "duck"`: the other streams' volume while the clock plays, in percent of
    /// their own volume (0…100).
    public var duckPercent: Int = 30
    /// The `media.role` the clock's own stream carries (e.g. "notification"); nil: none, so the
    /// sound server keeps the clock's volume for the clock alone.
    public var role: String?

    public init() {}

    public static let keys = ["call", "do-not-disturb", "media", "duck-percent", "role"]

    /// Whether `role` can be a stream's `media.role`: 1 to 32 letters, digits, '-' or '_' (it goes
    /// into `PULSE_PROP`/`PIPEWIRE_PROPS`, whose syntax gives quotes, spaces and '=' a meaning).
    public static func isValidRole(_ role: String) -> Bool {
        !role.isEmpty && role.count <= 32
            && role.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            }
    }
}

extension ConfigReader {
    static let courtesySection = "[courtesy]"

    func courtesy(_ entry: TOMLTable.Entry) throws(ConfigError) -> CourtesyConfig {
        let section = Self.courtesySection
        guard case .table(let table) = entry.value else {
            throw fail(
                entry,
                "'courtesy' must be a table: write [courtesy] on a line of its own with keys such as "
                    + "call = \"skip\" under it, not \(entry.value.userDescription).")
        }
        var config = CourtesyConfig()
        for e in table.entries {
            switch e.key {
            case "call":
                config.call = try choice(e, CourtesyAction.allCases, section: section)
            case "do-not-disturb":
                config.doNotDisturb = try choice(e, CourtesyAction.allCases, section: section)
            case "media":
                config.media = try choice(e, MediaCourtesy.allCases, section: section)
            case "duck-percent":
                config.duckPercent = try percent(e, section: section)
            case "role":
                let text = try string(e, "a media role such as \"notification\", or \"\" for none", section: section)
                if text.isEmpty {
                    config.role = nil
                } else if CourtesyConfig.isValidRole(text) {
                    config.role = text
                } else {
                    throw fail(
                        e, key: "courtesy.role",
                        "'role' in \(section) must be a media role of 1 to 32 letters, digits, '-' or '_' such as "
                            + "\"notification\" or \"event\" (or \"\" for none), not \(TOMLValue.quoted(text)).")
                }
            default:
                throw unknownKey(e, known: CourtesyConfig.keys, section: section)
            }
        }
        return config
    }
}
