/// A zone's rules for every instant: the transitions of a TZif file, then its footer's POSIX rule;
/// or a POSIX rule alone (`TZ=EST5EDT,M3.2.0,M11.1.0`).
///
/// Instants are seconds since 1970-01-01 00:00:00 UTC, leap seconds not counted (POSIX time, as
/// the system clock counts). Lookups are a binary search over the transitions, or a few lines of
/// calendar arithmetic after the last one.
public struct ZoneRules: Hashable, Sendable {
    private let transitionTimes: [Int]
    /// The type that starts at each transition.
    private let transitionTypes: [LocalTimeType]
    /// Before the first transition; also after the last one when there is no rule.
    private let initialType: LocalTimeType
    /// After the last transition (or always, with no transitions).
    private let rule: POSIXTZString?

    /// The rules of a zone file. A file with leap second records (a `right/` zone, whose
    /// instants count leap seconds) is refused: its transition times are not POSIX time.
    public init(_ tzif: TZif) throws(ZoneRulesError) {
        guard tzif.leapSeconds.isEmpty else { throw .leapSeconds(count: tzif.leapSeconds.count) }
        transitionTimes = tzif.transitionTimes
        transitionTypes = tzif.transitionTypes.map { tzif.localTimeTypes[$0] }
        // RFC 8536 3.2: type 0 applies before the first transition; without a footer the last
        // transition's type stays in force.
        initialType = tzif.localTimeTypes[0]
        rule = tzif.footer
    }

    /// A POSIX rule alone. Without start and end rules (`EST5EDT`), daylight time follows
    /// `POSIXTZString.defaultRules`.
    public init(_ rule: POSIXTZString) {
        transitionTimes = []
        transitionTypes = []
        initialType = rule.localTimeType(at: 0)
        self.rule = rule
    }

    /// The local time type at `utcSeconds`: its offset, whether it is daylight time, its abbreviation.
    public func offset(at utcSeconds: Int) -> LocalTimeType {
        guard let last = transitionTimes.last, utcSeconds <= last else {
            return rule?.localTimeType(at: utcSeconds) ?? transitionTypes.last ?? initialType
        }
        let i = lastIndex(atOrBefore: utcSeconds)
        return i < 0 ? initialType : transitionTypes[i]
    }

    /// The local wall clock at `utcSeconds`.
    public func wallClockTime(at utcSeconds: Int) -> WallClockTime {
        let t = clampInstant(utcSeconds)
        return WallClockTime(localSeconds: t + offset(at: t).utcOffset)
    }

    /// The first instant after `utcSeconds` at which the local time type (offset, DST flag or
    /// abbreviation) changes, or nil if it never does again. Transitions in the file that change
    /// nothing are skipped.
    public func nextTransition(after utcSeconds: Int) -> ZoneTransition? {
        var i = lastIndex(atOrBefore: utcSeconds) + 1
        while i < transitionTimes.count {
            let before = i == 0 ? initialType : transitionTypes[i - 1]
            if before != transitionTypes[i] {
                return ZoneTransition(instant: transitionTimes[i], before: before, after: transitionTypes[i])
            }
            i += 1
        }
        guard let rule else { return nil }
        guard let last = transitionTimes.last else { return rule.nextTransition(after: utcSeconds) }
        // The rule takes over one second after the last transition. In a consistent file (RFC
        // 8536 3.3 requires it) that changes nothing; otherwise it is a transition of its own.
        if utcSeconds <= last {
            let before = transitionTypes[transitionTypes.count - 1]
            let after = rule.localTimeType(at: last + 1)
            if before != after { return ZoneTransition(instant: last + 1, before: before, after: after) }
        }
        return rule.nextTransition(after: max(utcSeconds, last))
    }

    /// The UTC instants at which the local wall clock reads `local`.
    public func instants(for local: WallClockTime) -> LocalTimeResolution {
        instants(forLocalSeconds: local.localSeconds)
    }

    /// The UTC instants at which the local wall clock reads `localSeconds` (seconds after
    /// 1970-01-01 00:00:00 on that clock).
    public func instants(forLocalSeconds localSeconds: Int) -> LocalTimeResolution {
        let local = clampInstant(localSeconds)
        // An instant t with t + offset(t) == local lies within the largest offsets (±26 hours)
        // of `local`: walk the stretches of constant type that overlap that window.
        let windowEnd = local + 90_000
        var stretchStart = Int.min
        var cursor = local - 93_600
        var type = offset(at: cursor)
        var found: [Int] = []
        var skippedBy: ZoneTransition?
        while true {
            let next = nextTransition(after: cursor)
            let candidate = local - type.utcOffset
            if candidate >= stretchStart && candidate < (next?.instant ?? Int.max) { found.append(candidate) }
            guard let next, next.instant <= windowEnd else { break }
            // A forward jump skips the wall clock readings from (instant + before) up to (instant + after).
            if skippedBy == nil && local >= next.instant + next.before.utcOffset
                && local < next.instant + next.after.utcOffset
            {
                skippedBy = next
            }
            stretchStart = next.instant
            cursor = next.instant
            type = next.after
        }
        switch found.count {
        case 0:
            // Every reading the window's offsets cannot reach is skipped by one of its jumps.
            return .skipped(skippedBy!)
        case 1: return .unique(found[0])
        default: return .repeated(earlier: found[0], later: found[found.count - 1])
        }
    }

    /// The index of the last transition at or before `t`, or -1.
    private func lastIndex(atOrBefore t: Int) -> Int {
        var low = 0
        var high = transitionTimes.count
        while low < high {
            let mid = (low + high) / 2
            if transitionTimes[mid] <= t { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }
}

/// How a local wall clock reading maps to instants.
public enum LocalTimeResolution: Hashable, Sendable {
    /// The reading happens once.
    case unique(Int)
    /// The clock was set back and reads this twice (the repeated autumn hour): at `earlier` with
    /// the offset before the transition, at `later` with the one after. (A file with two set-backs
    /// within a day could make it happen more often; then these are the first and the last.)
    case repeated(earlier: Int, later: Int)
    /// The clock jumped over this reading (the skipped spring hour) at this transition: it never
    /// happens. `transition.instant` is when the clock jumped; Python's `fold=0` reads the time
    /// with `transition.before.utcOffset`, `fold=1` with `transition.after.utcOffset`.
    case skipped(ZoneTransition)

    /// The instants, earliest first: one, two, or none.
    public var instants: [Int] {
        switch self {
        case .unique(let t): return [t]
        case .repeated(let earlier, let later): return [earlier, later]
        case .skipped: return []
        }
    }
}

/// Why a zone file cannot give zone rules.
public enum ZoneRulesError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file has leap second records (a `right/` zone).
    case leapSeconds(count: Int)

    public var description: String {
        switch self {
        case .leapSeconds(let count):
            return "The zone file has \(count) leap second records (a \"right/\" zone, which counts leap seconds "
                + "in its instants); use the zone of the same name without \"right/\"."
        }
    }
}
