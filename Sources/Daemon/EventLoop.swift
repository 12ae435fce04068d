import ConfigFiles
import CLinux
import Glibc

/// A system call failed; names the call and the errno text.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public var call: String
    public var code: Int32
    public var context: String

    public init(_ call: String, code: Int32 = errno, context: String = "") {
        self.call = call
        self.code = code
        self.context = context
    }

    public var description: String {
        "\(context.isEmpty ? "" : context + ": ")\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// One thread, one `epoll` instance, every event source a file descriptor (timers, signals, the
/// control socket, ALSA's descriptors), like MPD's `EventLoop` and systemd's `sd-event`.
/// Nothing else in the daemon sleeps or waits; between events the process makes no wake-ups.
public final class EventLoop {
    public typealias Handler = (_ events: UInt32) -> Void

    private let epfd: Int32
    private var handlers: [Int32: Handler] = [:]
    private var running = false

    public init() throws(SystemError) {
        // epoll_create1
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SystemError("epoll_create1") }
    }

    deinit { Glibc.close(epfd) }

    /// Watches `fd` for `events` (EPOLLIN, EPOLLOUT, …); replaces any earlier handler for it.
    public func watch(_ fd: Int32, events: UInt32, handler: @escaping Handler) throws(SystemError) {
        var ev = epoll_event()
        ev.events = events
        ev.data.fd = fd
        let op = handlers[fd] == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        // epoll_ctl
        guard epoll_ctl(epfd, op, fd, &ev) == 0 else { throw SystemError("epoll_ctl", context: "watching fd \(fd)") }
        handlers[fd] = handler
    }

    public func unwatch(_ fd: Int32) {
        guard handlers.removeValue(forKey: fd) != nil else { return }
        var ev = epoll_event()
        _ = epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &ev)
    }

    /// Dispatches events until `stop()`.
    public func run() {
        running = true
        var events = [epoll_event](repeating: epoll_event(), count: 32)
        while running {
            // epoll_wait: blocks with no timeout; timers are timerfds.
            let n = epoll_wait(epfd, &events, Int32(events.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            for i in 0..<Int(n) {
                let fd = events[i].data.fd
                handlers[fd]?(events[i].events)
                if !running { break }
            }
        }
    }

    public func stop() { running = false }
}

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

/// SIGTERM, SIGINT, SIGHUP delivered as a readable descriptor (`signalfd`).
public final class SignalFD {
    public let fd: Int32

    public init(signals: [Int32]) throws(SystemError) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        // sigprocmask: block them so they arrive only through the descriptor.
        guard tc_sigprocmask_block(&set) == 0 else { throw SystemError("sigprocmask") }
        // signalfd
        fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError("signalfd") }
    }

    deinit { Glibc.close(fd) }

    /// The signals that arrived since the last call.
    public func read() -> [Int32] {
        var result: [Int32] = []
        var info = signalfd_siginfo()
        while Glibc.read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            result.append(Int32(info.ssi_signo))
        }
        return result
    }
}
