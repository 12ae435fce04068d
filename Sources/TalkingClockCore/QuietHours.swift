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

    /// Whether this mode lets less sound through than `other`: silent, then chime-only, then the
    /// lower of two volumes.
    public func isMoreRestrictive(than other: QuietMode) -> Bool {
        switch (self, other) {
        case (.lowerVolume(let a), .lowerVolume(let b)): a < b
        default: rank < other.rank
        }
    }

    private var rank: Int {
        switch self {
        case .silent: 0
        case .chimeOnly: 1
        case .lowerVolume: 2
        }
    }

    /// The config spelling: "silent", "chime-only", "lower-volume (30%)".
    public var description: String {
        switch self {
        case .silent: "silent"
        case .chimeOnly: "chime-only"
        case .lowerVolume(let percent): "lower-volume (\(percent)%)"
        }
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
    /// The window that governs `time`: among all that cover it, the most restrictive (silent over
    /// chime-only over lower-volume, then the lowest volume); the first listed on a tie. `nil`
    /// when no window covers it.
    public static func window(in windows: [QuietWindow], at time: LocalDateTime) -> QuietWindow? {
        var best: QuietWindow?
        for window in windows where window.covers(time) {
            if let current = best, !window.mode.isMoreRestrictive(than: current.mode) { continue }
            best = window
        }
        return best
    }

    /// The mode in force at `time`, or `nil` for normal announcements.
    public static func mode(in windows: [QuietWindow], at time: LocalDateTime) -> QuietMode? {
        window(in: windows, at: time)?.mode
    }
}
