/// How often the clock speaks: every `minutes` minutes of the local hour, for a divisor of 60
/// (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60). Boundaries are defined in local civil time.
///
/// The config writes it `"quarter"`, `"half"`, `"hour"` or `"5m"` … `"60m"`.
public struct Interval: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Minutes between boundaries, a divisor of 60.
    public let minutes: Int

    /// Nil unless `minutes` divides 60.
    public init?(minutes: Int) {
        guard (1...60).contains(minutes), 60 % minutes == 0 else { return nil }
        self.minutes = minutes
    }

    public static let quarter = Interval(minutes: 15)!
    public static let half = Interval(minutes: 30)!
    public static let hour = Interval(minutes: 60)!

    /// Every interval the clock takes: the divisors of 60.
    public static let all: [Interval] = (1...60).compactMap { Interval(minutes: $0) }

    /// The lengths a config may give, as it spells them: "1m" … "60m".
    public static let divisors = all.map(\.minutes)

    /// Length of the period in local civil seconds.
    public var seconds: Int { minutes * 60 }

    /// The config's spelling: "quarter", "half" and "hour" for those three, else "5m".
    public var rawValue: String {
        switch minutes {
        case 15: "quarter"
        case 30: "half"
        case 60: "hour"
        default: "\(minutes)m"
        }
    }

    /// Reads "quarter", "half", "hour" or "<N>m" (also "<N>min"); nil for anything else, and for
    /// a number of minutes that does not divide 60.
    public init?(rawValue: String) {
        let text = rawValue.trimmingWhitespace().lowercased()
        switch text {
        case "quarter": self = .quarter
        case "half": self = .half
        case "hour": self = .hour
        default:
            guard let n = Self.minutesWritten(text) else { return nil }
            self.init(minutes: n)
        }
    }

    /// The number in "10m" or "10min" (whatever it is); nil when the text is not of that form.
    static func minutesWritten(_ text: String) -> Int? {
        var digits = Substring(text)
        if digits.hasSuffix("min") {
            digits = digits.dropLast(3)
        } else if digits.hasSuffix("m") {
            digits = digits.dropLast()
        } else {
            return nil
        }
        guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Interval(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an interval: \(text)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// A window of the day with its own interval (`[[window]]`): on `days`, from `from` (inclusive)
/// to `to` (exclusive), in local time, the clock speaks every `interval`. A window whose `to` is
/// not after its `from` crosses midnight and belongs to the day it starts on, as quiet hours do.
public struct IntervalWindow: Hashable, Sendable, CustomStringConvertible {
    public var days: Weekdays
    /// Start, in minutes after local midnight (0…1439).
    public var from: Int
    /// End, exclusive, in minutes after local midnight (1…1440).
    public var to: Int
    public var interval: Interval

    public init(days: Weekdays = .daily, from: Int, to: Int, interval: Interval) {
        self.days = days
        self.from = from
        self.to = to
        self.interval = interval
    }

    /// Whether the window covers the local time `time` (seconds ignored). The same rule as a quiet
    /// window's.
    public func covers(_ time: LocalDateTime) -> Bool {
        QuietWindow(days: days, from: from, to: to).covers(time)
    }

    /// "weekdays 08:00-09:00 every 5m".
    public var description: String {
        func hhmm(_ m: Int) -> String { "\(pad(m / 60, 2)):\(pad(m % 60, 2))" }
        return "\(days) \(hhmm(from))-\(hhmm(to)) every \(interval)"
    }
}

/// When the clock speaks: the `interval` of the config, and the windows that change it by weekday
/// and time of day. Where windows overlap, the shortest interval among them applies (the clock
/// speaks more often, never less); outside every window, `interval`.
public struct Rhythm: Hashable, Sendable {
    public var interval: Interval
    public var windows: [IntervalWindow]

    public init(interval: Interval = .quarter, windows: [IntervalWindow] = []) {
        self.interval = interval
        self.windows = windows
    }

    /// The interval in effect at a local time.
    public func interval(at time: LocalDateTime) -> Interval {
        var shortest: Interval?
        for window in windows where window.covers(time) {
            if shortest.map({ window.interval.minutes < $0.minutes }) ?? true { shortest = window.interval }
        }
        return shortest ?? interval
    }

    /// Whether the whole local minute of `time` is a boundary (its seconds are not looked at).
    public func isBoundary(_ time: LocalDateTime) -> Bool {
        time.minute % interval(at: time).minutes == 0
    }

    /// Seconds between the candidates `BoundarySchedule` looks at: the greatest common divisor of
    /// every interval in the rhythm (10 and 15 minutes: every 5 minutes).
    public var candidateSeconds: Int {
        var g = interval.minutes
        for window in windows {
            var a = g
            var b = window.interval.minutes
            while b != 0 { (a, b) = (b, a % b) }
            g = a
        }
        return g * 60
    }

    /// "every quarter", or "every quarter; weekdays 08:00-09:00 every 5m".
    public var description: String {
        (["every \(interval)"] + windows.map(\.description)).joined(separator: "; ")
    }
}
