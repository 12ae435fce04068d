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

private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

private func threadMain(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
    return nil
}
