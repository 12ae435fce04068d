import ConfigFiles
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The daemon's notion of "now": the real wall clock, shifted by `--clock-offset`, or a
/// simulated clock (`--fake-clock START --clock-rate R`) that runs R times faster than real time.
public struct ClockSource: Sendable, CustomStringConvertible {
    public let offset: Double
    public let fakeStart: Double?
    public let rate: Double
    private var monotonicStart: Double
    /// The real wall-clock instant at which a simulated clock read `fakeStart` (for the log: a
    /// test or a listener can tell when each simulated boundary is due in real time).
    public private(set) var realStart: Double

    public init(offset: Double = 0, fakeStart: Double? = nil, rate: Double = 1) {
        self.offset = offset
        self.fakeStart = fakeStart
        self.rate = rate
        self.monotonicStart = WallClock.monotonic()
        self.realStart = WallClock.now()
    }

    public var isReal: Bool { fakeStart == nil && offset == 0 }

    /// "real", "offset +3600 s", "simulated from 1767225590 at 20x": for the log and `status`.
    public var description: String {
        if let fakeStart { return "simulated from \(Int(fakeStart)) at \(rate == rate.rounded() ? String(Int(rate)) : String(rate))x" }
        if offset != 0 { return "offset \(offset >= 0 ? "+" : "")\(offset == offset.rounded() ? String(Int(offset)) : String(offset)) s" }
        return "real"
    }

    /// A simulated clock that reads `fakeStart` now rather than when it was made: the daemon
    /// starts its simulated time once it is ready, so a slow start (a large pack decoded on a
    /// busy machine) does not use up simulated time before anything can be spoken.
    public func startingNow() -> ClockSource {
        var copy = self
        copy.monotonicStart = WallClock.monotonic()
        copy.realStart = WallClock.now()
        return copy
    }
    /// Whether boundaries can be waited for with an absolute CLOCK_REALTIME timer (so clock steps
    /// re-arm at once). A simulated clock uses monotonic waits instead.
    public var followsWallClock: Bool { fakeStart == nil }

    public func now() -> Double {
        if let fakeStart { return fakeStart + (WallClock.monotonic() - monotonicStart) * rate }
        return WallClock.now() + offset
    }

    /// The real CLOCK_REALTIME instant at which this clock will read `instant`.
    public func realInstant(for instant: Double) -> Double {
        if fakeStart != nil { return WallClock.now() + (instant - now()) / rate }
        return instant - offset
    }

    /// Real seconds until this clock reads `instant`.
    public func realSeconds(until instant: Double) -> Double { (instant - now()) / rate }
}
