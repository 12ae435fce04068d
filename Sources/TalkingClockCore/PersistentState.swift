import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the daemon remembers across restarts (stored as JSON by the daemon's `StateStore`).
///
/// Decoding tolerates missing keys, so a state file written by an older version still loads; unknown
/// keys are ignored for the same reason in the other direction.
public struct PersistentState: Codable, Hashable, Sendable {
    public var mute: MuteState
    /// The last boundary (seconds since the epoch) that was announced, so a restart within the same
    /// boundary does not speak it twice.
    public var lastSpokenBoundary: Int?
    /// The away switch (`away on`, Home Assistant's "Away"): reminders pause until `away off`.
    public var away: Bool
    /// The local date (`YYYY-MM-DD`) the date was last said with an announcement (`date = "first"`),
    /// so a restart does not say it again that day.
    public var dateSaid: String?

    public init(mute: MuteState = .unmuted, lastSpokenBoundary: Int? = nil, away: Bool = false, dateSaid: String? = nil) {
        self.mute = mute
        self.lastSpokenBoundary = lastSpokenBoundary
        self.away = away
        self.dateSaid = dateSaid
    }

    private enum CodingKeys: String, CodingKey {
        case mute
        case lastSpokenBoundary = "last-spoken-boundary"
        case away
        case dateSaid = "date-said"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mute = try container.decodeIfPresent(MuteState.self, forKey: .mute) ?? .unmuted
        lastSpokenBoundary = try container.decodeIfPresent(Int.self, forKey: .lastSpokenBoundary)
        away = try container.decodeIfPresent(Bool.self, forKey: .away) ?? false
        dateSaid = try container.decodeIfPresent(String.self, forKey: .dateSaid)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mute, forKey: .mute)
        try container.encodeIfPresent(lastSpokenBoundary, forKey: .lastSpokenBoundary)
        // Written only when set: a state file of a clock that never used them stays as it was.
        if away { try container.encode(away, forKey: .away) }
        try container.encodeIfPresent(dateSaid, forKey: .dateSaid)
    }
}

extension PersistentState {
    /// What can still be trusted in a state file that no longer parses (cut short by a full disk,
    /// edited by hand, damaged on disk): the mute object and the last-spoken boundary, each only
    /// if it is complete. A number is taken only when something follows it, so a cut inside
    /// `"until" : 17672` is not read as a much earlier instant.
    ///
    /// The daemon's writer sorts its keys, so `last-spoken-boundary` comes before `mute`: a file
    /// cut short loses the mute first. The caller decides what an unknown mute means.
    public static func salvage(_ bytes: [UInt8]) -> (mute: MuteState?, lastSpokenBoundary: Int?) {
        let text = Array(String(decoding: bytes, as: UTF8.self).utf8)
        var last: Int?
        if let start = valueStart(after: "last-spoken-boundary", in: text) {
            var k = start
            if k < text.count && text[k] == UInt8(ascii: "-") { k += 1 }
            let digitsStart = k
            while k < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[k]), k - digitsStart < 18 { k += 1 }
            let terminators: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09]
            if k > digitsStart, k < text.count, terminators.contains(text[k]) {
                last = Int(String(decoding: text[start..<k], as: UTF8.self))
            }
        }
        var mute: MuteState?
        if let start = valueStart(after: "mute", in: text), start < text.count, text[start] == UInt8(ascii: "{"),
            let end = text[start...].firstIndex(of: UInt8(ascii: "}"))
        {
            // The mute object holds no nested objects, so its first closing brace ends it.
            mute = try? JSONDecoder().decode(MuteState.self, from: Data(text[start...end]))
        }
        return (mute, last)
    }

    /// The index just after `"key"`, optional blanks, `:` and optional blanks; nil if absent.
    private static func valueStart(after key: String, in text: [UInt8]) -> Int? {
        let needle = Array("\"\(key)\"".utf8)
        guard text.count >= needle.count else { return nil }
        let blanks: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09]
        var i = 0
        while i + needle.count <= text.count {
            if text[i..<(i + needle.count)].elementsEqual(needle) {
                var k = i + needle.count
                while k < text.count && blanks.contains(text[k]) { k += 1 }
                if k < text.count && text[k] == UInt8(ascii: ":") {
                    k += 1
                    while k < text.count && blanks.contains(text[k]) { k += 1 }
                    return k
                }
            }
            i += 1
        }
        return nil
    }
}
