import Glibc

/// The one way the clock starts a thread: a detached pthread running `body`.
///
/// Not Dispatch and not Swift concurrency: once either runs, libdispatch's runtime threads wake
/// the process every second for ever (docs/architecture.md). The new thread inherits the caller's
/// signal mask, so the signals the daemon takes through `SignalFD` stay blocked on it too.
public enum Threads {
    /// Starts `body` on a new detached thread; false (and `body` never runs) when no thread could
    /// be made (RLIMIT_NPROC, memory).
    @discardableResult
    public static func spawn(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        // pthread_create
        guard pthread_create(&thread, nil, threadMain, box) == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            return false
        }
        // pthread_detach: nobody joins; the thread's resources go when it returns.
        pthread_detach(thread)
        return true
    }
}

extension Threads {
    /// The calling thread's scheduling, as `makeCurrentRealtime` left it.
    public enum Scheduling: Sendable, Equatable {
        /// SCHED_FIFO at this priority.
        case realtime(Int32)
        /// Still SCHED_OTHER: the system refused (the errno's text).
        case normal(String)
    }

    /// Asks for real-time scheduling (SCHED_FIFO at `priority`) for the calling thread, the way
    /// PulseAudio's and MPD's output threads do, so that a busy machine cannot delay the few
    /// microseconds in which a device thread reads the clock and the device's delay together.
    /// Threads it starts inherit it (the ALSA pulse plugin's and libpulse's own, which carry the
    /// samples to the sound server), so it is for threads that start no programs. Allowed for root, with
    /// CAP_SYS_NICE, or under an RLIMIT_RTPRIO of at least `priority` (systemd's LimitRTPRIO=,
    /// /etc/security/limits.conf's rtprio); otherwise the thread stays as it was.
    /// `sched_setscheduler(0, …)` applies to the calling thread on Linux.
    public static func makeCurrentRealtime(priority: Int32) -> Scheduling {
        var parameter = sched_param()
        parameter.sched_priority = priority
        // sched_setscheduler
        if sched_setscheduler(0, SCHED_FIFO, &parameter) == 0 {
            return .realtime(priority)
        }
        return .normal(String(cString: strerror(errno)))
    }
}

private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

private func threadMain(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
    return nil
}
