import FoundationEssentials

/// Whether the clock is muted by the user (separate from quiet hours, which come from the config).
///
/// Persisted in the daemon's state file, so the JSON form is part of the file format:
/// `{"state":"unmuted"}`, `{"state":"muted"}`, `{"state":"muted-until","until":1767250800}`.
public enum MuteState: Hashable, Codable, Sendable, CustomStringConvertible {
    case unmuted
    /// Muted until `unmute`.
    case muted
    /// Muted before the instant (seconds since the epoch); speaking again from that instant on.
    case mutedUntil(Int)

    public func isMuted(at instant: Int) -> Bool {
        switch self {
        case .unmuted: false
        case .muted: true
        case .mutedUntil(let end): instant < end
        }
    }

    /// The same state with an expired timed mute turned into `.unmuted`, so that it is not kept
    /// (or reported) after it ended.
    public func resolved(at instant: Int) -> MuteState {
        if case .mutedUntil(let end) = self, instant >= end { return .unmuted }
        return self
    }

    public var description: String {
        switch self {
        case .unmuted: "unmuted"
        case .muted: "muted"
        case .mutedUntil(let end): "muted until \(CivilTime.utcString(end))"
        }
    }

    /// The same, with the end in the user's local time ("muted until 2026-11-22T07:00:00+01:00").
    public func description(in zone: Zone) -> String {
        if case .mutedUntil(let end) = self { return "muted until \(CivilTime.local(end, in: zone).rfc3339)" }
        return description
    }

    private enum CodingKeys: String, CodingKey {
        case state, until
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let state = try container.decode(String.self, forKey: .state)
        switch state {
        case "unmuted": self = .unmuted
        case "muted": self = .muted
        case "muted-until": self = .mutedUntil(try container.decode(Int.self, forKey: .until))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .state, in: container, debugDescription: "unknown mute state \"\(state)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .unmuted: try container.encode("unmuted", forKey: .state)
        case .muted: try container.encode("muted", forKey: .state)
        case .mutedUntil(let end):
            try container.encode("muted-until", forKey: .state)
            try container.encode(end, forKey: .until)
        }
    }
}

/// A mute request that cannot be understood, phrased for the user.
public struct MuteError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Pure helpers behind `mute for …` and `mute until …`.
public enum Mute {
    /// The longest `mute for` accepted; beyond it, an indefinite `mute` says what is meant.
    public static let maximumDuration = 366 * 86_400

    /// Parses a duration: `90s`, `30m`, `2h`, `1d`, combinations from largest to smallest unit
    /// (`1h30m`, `1h 30m`), or a plain number of seconds. Units are case-insensitive.
    /// Returns whole seconds, more than 0 and at most `maximumDuration`.
    public static func parseDuration(_ text: String) throws(MuteError) -> Int {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else {
            throw MuteError("The duration is missing: give one such as 90s, 30m, 2h or 1h30m.")
        }
        let bad = MuteError(
            "\"\(trimmed)\" is not a duration: use a number with a unit (s, m, h or d), such as 90s, 30m, 2h or "
                + "1h30m; a plain number means seconds.")
        let units: [Character: Int] = ["d": 86_400, "h": 3600, "m": 60, "s": 1]
        let chars = Array(trimmed.lowercased())
        var k = 0
        var total = 0
        var lastUnit = Int.max
        var components = 0
        while k < chars.count {
            while k < chars.count && chars[k] == " " { k += 1 }
            var digits = 0
            var value = 0
            while k < chars.count, let d = chars[k].wholeNumberValue, chars[k].isASCII {
                // Nine digits keep the arithmetic far from overflow; anything that long is too long anyway.
                guard digits < 9 else { throw tooLong(trimmed) }
                value = value * 10 + d
                digits += 1
                k += 1
            }
            guard digits > 0 else { throw bad }
            while k < chars.count && chars[k] == " " { k += 1 }
            if k == chars.count && components == 0 {
                total = value  // plain seconds
                components += 1
                break
            }
            guard k < chars.count, let scale = units[chars[k]] else { throw bad }
            guard scale < lastUnit else {
                throw MuteError(
                    "\"\(trimmed)\" is not a duration: give each unit once, from largest to smallest, as in 1h30m.")
            }
            lastUnit = scale
            total += value * scale
            components += 1
            k += 1
        }
        guard total > 0 else {
            throw MuteError("A duration of zero would not mute anything: give one such as 30m, or use unmute.")
        }
        guard total <= maximumDuration else { throw tooLong(trimmed) }
        return total
    }

    private static func tooLong(_ text: String) -> MuteError {
        MuteError("\"\(text)\" is longer than \(maximumDuration / 86_400) days: to mute with no end, use mute alone.")
    }

    /// The first instant strictly after `now` at which the local clock in `zone` reads
    /// `hour:minute:00`. When that time is skipped (spring forward) on a day, the first instant
    /// after the gap counts; when it repeats (fall back), the earlier occurrence that is still
    /// after `now`.
    public static func nextInstant(hour: Int, minute: Int, after now: Int, in zone: Zone) -> Int {
        let today = CivilTime.local(now, in: zone)
        let todayDays = CivilTime.days(year: today.year, month: today.month, day: today.day)
        for dayOffset in 0..<4 {
            let date = CivilTime.date(days: todayDays + dayOffset)
            let candidates = CivilTime.instants(
                year: date.year, month: date.month, day: date.day, hour: hour, minute: minute, second: 0, in: zone)
            if candidates.isEmpty {
                let civil = (todayDays + dayOffset) * 86_400 + hour * 3600 + minute * 60
                let gapEnd = firstInstant(reaching: civil, in: zone)
                if gapEnd > now { return gapEnd }
            } else if let first = candidates.first(where: { $0 > now }) {
                return first
            }
        }
        // Unreachable for real zones (every civil day has its times or a gap end); stay defined anyway.
        return now + 86_400
    }

    /// Parses `HH:MM` and returns `nextInstant(hour:minute:after:in:)`.
    public static func instant(until text: String, after now: Int, in zone: Zone) throws(MuteError) -> Int {
        let time: (hour: Int, minute: Int)
        do {
            time = try InstantParser.parseClockTime(text.trimmingWhitespace())
        } catch {
            throw MuteError(error.description)
        }
        return nextInstant(hour: time.hour, minute: time.minute, after: now, in: zone)
    }

    /// The first instant whose local reading is at or after the civil second `civil` (local seconds
    /// since the epoch), searched near it: for a time inside a spring-forward gap, the end of the gap.
    static func firstInstant(reaching civil: Int, in zone: Zone) -> Int {
        var offsets = Set<Int>()
        var probe = civil - 2 * 86_400
        while probe <= civil + 2 * 86_400 {
            offsets.insert(zone.offset(at: probe))
            probe += 1800
        }
        // Local time rises monotonically across a gap, so bisect between a reading before and one after.
        var lo = civil - (offsets.max() ?? 0) - 1
        var hi = civil - (offsets.min() ?? 0)
        func reading(_ u: Int) -> Int { u + zone.offset(at: u) }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if reading(mid) >= civil { hi = mid } else { lo = mid }
        }
        return hi
    }
}
