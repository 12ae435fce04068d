import CLinux
import Glibc

/// A `timerfd`: wall-clock absolute timers that are cancelled when the clock is set, or
/// monotonic relative ones for short waits.
public final class TimerFD {
    public let fd: Int32
    public let clock: Int32

    /// `realtime`: CLOCK_REALTIME (for boundaries); otherwise CLOCK_MONOTONIC.
    public init(realtime: Bool) throws(SystemError) {
        clock = realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC
        // timerfd_create
        fd = timerfd_create(clock, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError("timerfd_create") }
    }

    deinit { Glibc.close(fd) }

    /// Arms for the absolute instant `at` (seconds on this timer's clock). On a realtime timer the
    /// wait is cancelled if the clock is set (`TFD_TIMER_CANCEL_ON_SET`), and `read` reports it.
    public func arm(at: Double) {
        var spec = itimerspec()
        let whole = max(0, at.rounded(.down))
        spec.it_value.tv_sec = Int(whole)
        spec.it_value.tv_nsec = max(1, Int(((at - whole) * 1e9).rounded()))  // 0 would disarm
        var flags = Int32(TFD_TIMER_ABSTIME)
        if clock == CLOCK_REALTIME { flags |= Int32(TFD_TIMER_CANCEL_ON_SET) }
        // timerfd_settime
        _ = timerfd_settime(fd, flags, &spec, nil)
    }

    /// Arms `seconds` from now on the monotonic clock.
    public func arm(after seconds: Double) {
        var spec = itimerspec()
        let s = max(1e-6, seconds)
        spec.it_value.tv_sec = Int(s.rounded(.down))
        spec.it_value.tv_nsec = max(1, Int(((s - s.rounded(.down)) * 1e9).rounded()))
        _ = timerfd_settime(fd, 0, &spec, nil)
    }

    public func disarm() {
        var spec = itimerspec()
        _ = timerfd_settime(fd, 0, &spec, nil)
    }

    public enum Expiry { case fired, clockWasSet, nothing }

    /// Consumes the expiration; `clockWasSet` when the realtime clock was stepped (ECANCELED).
    public func read() -> Expiry {
        var count: UInt64 = 0
        let n = Glibc.read(fd, &count, 8)
        if n == 8 { return .fired }
        if n < 0 && errno == ECANCELED { return .clockWasSet }
        return .nothing
    }
}
