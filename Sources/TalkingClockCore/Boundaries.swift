import FoundationEssentials

/// The announcement instants: every instant whose local civil time in the zone is a whole
/// multiple of the interval in effect then (hh:00, hh:15, hh:30, hh:45 with seconds 0 for
/// quarters; a `Rhythm`'s windows change the interval by weekday and time of day).
///
/// A pure function of (instant, zone, interval), in the spirit of systemd's
/// `calendar_spec_next_usec`: on a spring-forward night 01:45 is followed by 03:00; in a repeated
/// fall-back hour every quarter is announced once per occurrence; 30- and 45-minute offsets work
/// because the rule is about the local reading, not about UTC.
public enum BoundarySchedule {
    /// The first boundary strictly after `instant` (never `instant` itself, never the past).
    public static func next(after instant: Double, in zone: Zone, interval: Interval = .quarter) -> Int {
        // u > instant for an integer u  ⟺  u ≥ floor(instant) + 1.
        firstBoundary(atOrAfter: Int(instant.rounded(.down)) + 1, in: zone, period: interval.seconds)
    }

    /// The first boundary of `rhythm` strictly after `instant`. Without windows, every multiple of
    /// the interval; with windows, the candidates are the multiples of the greatest common divisor
    /// of every interval in it (each found DST-exactly by `firstBoundary`), and a candidate is a
    /// boundary when its local minute is a multiple of the interval in effect at that local time.
    public static func next(after instant: Double, in zone: Zone, rhythm: Rhythm) -> Int {
        guard !rhythm.windows.isEmpty else { return next(after: instant, in: zone, interval: rhythm.interval) }
        let period = rhythm.candidateSeconds
        var from = Int(instant.rounded(.down)) + 1
        while true {
            let candidate = firstBoundary(atOrAfter: from, in: zone, period: period)
            if rhythm.isBoundary(CivilTime.local(candidate, in: zone)) { return candidate }
            from = candidate + 1
        }
    }

    /// The first boundary at or after the whole second `start`.
    public static func firstBoundary(atOrAfter start: Int, in zone: Zone, period: Int) -> Int {
        var from = start
        while true {
            let offset = zone.offset(at: from)
            let candidate = from + floorMod(-(from + offset), period)
            if zone.offset(at: candidate) == offset { return candidate }
            // An offset change lies in (from, candidate]: find its first instant and go on from there
            // with the offset that starts then.
            var lo = from
            var hi = candidate
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2
                if zone.offset(at: mid) == offset { lo = mid } else { hi = mid }
            }
            from = hi
        }
    }

    /// The next `count` boundaries strictly after `instant`.
    public static func upcoming(after instant: Double, count: Int, in zone: Zone, interval: Interval = .quarter) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(max(0, count))
        var t = instant
        for _ in 0..<max(0, count) {
            let b = next(after: t, in: zone, interval: interval)
            result.append(b)
            t = Double(b)
        }
        return result
    }

    /// Whether `instant` is itself a boundary.
    public static func isBoundary(_ instant: Int, in zone: Zone, interval: Interval = .quarter) -> Bool {
        floorMod(instant + zone.offset(at: instant), interval.seconds) == 0
    }

    /// Whether `instant` is a boundary of `rhythm`.
    public static func isBoundary(_ instant: Int, in zone: Zone, rhythm: Rhythm) -> Bool {
        guard !rhythm.windows.isEmpty else { return isBoundary(instant, in: zone, interval: rhythm.interval) }
        let local = CivilTime.local(instant, in: zone)
        return local.second == 0 && rhythm.isBoundary(local)
    }

    /// The next `count` boundaries of `rhythm` strictly after `instant`.
    public static func upcoming(after instant: Double, count: Int, in zone: Zone, rhythm: Rhythm) -> [Int] {
        var result: [Int] = []
        var t = instant
        for _ in 0..<max(0, count) {
            let b = next(after: t, in: zone, rhythm: rhythm)
            result.append(b)
            t = Double(b)
        }
        return result
    }
}
