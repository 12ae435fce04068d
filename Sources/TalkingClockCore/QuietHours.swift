/// A set of days of the week.
public struct Weekdays: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x7F }

    /// The single day with ISO number `isoWeekday` (1 = Monday … 7 = Sunday); empty if out of range.
    public init(isoWeekday: Int) {
        self.init(rawValue: (1...7).contains(isoWeekday) ? 1 << UInt8(isoWeekday - 1) : 0)
    }

    public static let monday = Weekdays(isoWeekday: 1)
    public static let tuesday = Weekdays(isoWeekday: 2)
    public static let wednesday = Weekdays(isoWeekday: 3)
    public static let thursday = Weekdays(isoWeekday: 4)
    public static let friday = Weekdays(isoWeekday: 5)
    public static let saturday = Weekdays(isoWeekday: 6)
    public static let sunday = Weekdays(isoWeekday: 7)
    public static let weekdays: Weekdays = [.monday, .tuesday, .wednesday, .thursday, .friday]
    public static let weekends: Weekdays = [.saturday, .sunday]
    public static let daily: Weekdays = [.weekdays, .weekends]

    /// Short names as the config writes them, Monday first.
    public static let shortNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    public func contains(isoWeekday: Int) -> Bool {
        let day = Weekdays(isoWeekday: isoWeekday)
        return !day.isEmpty && contains(day)
    }

    /// "daily", "weekdays", "weekends", or the short names: "mon, wed, fri".
    public var description: String {
        switch self {
        case .daily: return "daily"
        case .weekdays: return "weekdays"
        case .weekends: return "weekends"
        default:
            return (1...7).filter { contains(isoWeekday: $0) }.map { Weekdays.shortNames[$0 - 1] }
                .joined(separator: ", ")
        }
    }
}

/// What a quiet window does to the announcements it covers.
public enum QuietMode: Hashable, Sendable, CustomStringConvertible {
    /// Nothing is played.
    case silent
    /// The chime plays, the voice does not.
    case chimeOnly
    /// Everything plays at this volume (percent, 0…100) instead of the configured one.
    case lowerVolume(percent: Int)

    /// The config spelling: "silent", "chime-only", "lower-volume (30%)".
    public var description: String {
        switch self {
        case .silent: "silent"
        case .chimeOnly: "chime-only"
        case .lowerVolume(let percent): "lower-volume (\(percent)%)"
        }
    }
}

/// What quiet hours do at one instant: every window that covers it, combined by the quietest rule
/// for each aspect, so that adding a window can only make the clock quieter. A chime-only window
/// inside a lower-volume one rings the bell at the lower volume, not at the configured one.
public struct QuietRule: Hashable, Sendable, CustomStringConvertible {
    /// Nothing plays: some covering window is silent.
    public var silent = false
    /// The voice is off and only the chime plays: some covering window is chime-only.
    public var chimeOnly = false
    /// The volume is at most this percent: the lowest of the covering lower-volume windows.
    public var volume: Int?

    public init(silent: Bool = false, chimeOnly: Bool = false, volume: Int? = nil) {
        self.silent = silent
        self.chimeOnly = chimeOnly
        self.volume = volume
    }

    /// The rule of a single window.
    public init(_ mode: QuietMode) {
        add(mode)
    }

    /// Adds one more covering window: each aspect keeps the quieter of the two.
    public mutating func add(_ mode: QuietMode) {
        switch mode {
        case .silent: silent = true
        case .chimeOnly: chimeOnly = true
        case .lowerVolume(let percent): volume = min(volume ?? percent, percent)
        }
    }

    /// "silent", "chime-only", "lower-volume (30%)" or both of the last two:
    /// "chime-only, lower-volume (30%)". Silent says nothing more, as nothing plays.
    public var description: String {
        if silent { return "silent" }
        var parts: [String] = []
        if chimeOnly { parts.append(QuietMode.chimeOnly.description) }
        if let volume { parts.append(QuietMode.lowerVolume(percent: volume).description) }
        return parts.joined(separator: ", ")
    }
}

/// One quiet-hours rule: on `days`, from `from` (inclusive) to `to` (exclusive), in local time.
///
/// A window whose `to` is not after its `from` crosses midnight and belongs to the day it starts
/// on: Monday 22:00-07:00 covers Monday from 22:00 and Tuesday until 06:59.
public struct QuietWindow: Hashable, Sendable, CustomStringConvertible {
    public var days: Weekdays
    /// Start, in minutes after local midnight (0…1439).
    public var from: Int
    /// End, exclusive, in minutes after local midnight (1…1440; 1440 is the end of the day).
    /// Equal to `from` is meaningless and covers nothing (the config rejects it).
    public var to: Int
    public var mode: QuietMode

    public init(days: Weekdays = .daily, from: Int, to: Int, mode: QuietMode = .silent) {
        self.days = days
        self.from = from
        self.to = to
        self.mode = mode
    }

    public var crossesMidnight: Bool { to < from }

    /// Whether the window covers the local time `time` (seconds within the minute are ignored).
    public func covers(_ time: LocalDateTime) -> Bool {
        let minute = time.minuteOfDay
        if from < to {
            return minute >= from && minute < to && days.contains(isoWeekday: time.weekday)
        }
        if from == to { return false }
        if minute >= from { return days.contains(isoWeekday: time.weekday) }
        // The early-morning part belongs to the window that started the evening before.
        if minute < to { return days.contains(isoWeekday: time.weekday == 1 ? 7 : time.weekday - 1) }
        return false
    }

    /// "daily 22:00-07:00 silent".
    public var description: String {
        func hhmm(_ m: Int) -> String { "\(pad(m / 60, 2)):\(pad(m % 60, 2))" }
        return "\(days) \(hhmm(from))-\(hhmm(to)) \(mode)"
    }
}

/// Evaluates quiet hours.
public enum QuietHours {
    /// What the windows covering `time` do, combined (see `QuietRule`); `nil` when none covers
    /// it: normal announcements.
    public static func rule(in windows: [QuietWindow], at time: LocalDateTime) -> QuietRule? {
        var rule: QuietRule?
        for window in windows where window.covers(time) {
            if rule == nil { rule = QuietRule(window.mode) } else { rule!.add(window.mode) }
        }
        return rule
    }
}
