/// What the daemon remembers across restarts (stored as JSON by the daemon's `StateStore`).
///
/// Decoding tolerates missing keys, so a state file written by an older version still loads; unknown
/// keys are ignored for the same reason in the other direction.
public struct PersistentState: Codable, Hashable, Sendable {
    public var mute: MuteState
    /// The last boundary (seconds since the epoch) that was announced, so a restart within the same
    /// boundary does not speak it twice.
    public var lastSpokenBoundary: Int?

    public init(mute: MuteState = .unmuted, lastSpokenBoundary: Int? = nil) {
        self.mute = mute
        self.lastSpokenBoundary = lastSpokenBoundary
    }

    private enum CodingKeys: String, CodingKey {
        case mute
        case lastSpokenBoundary = "last-spoken-boundary"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mute = try container.decodeIfPresent(MuteState.self, forKey: .mute) ?? .unmuted
        lastSpokenBoundary = try container.decodeIfPresent(Int.self, forKey: .lastSpokenBoundary)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mute, forKey: .mute)
        try container.encodeIfPresent(lastSpokenBoundary, forKey: .lastSpokenBoundary)
    }
}
