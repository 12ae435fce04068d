import ConfigFiles
import CLinux
import Glibc

/// Runs slow work (decoding a whole sound pack on `reload`) on a thread of its own and hands the
/// result back to the event loop through an `eventfd`, so that the loop thread, which feeds the
/// sound device, never waits for it.
///
/// A plain pthread rather than Dispatch or Swift concurrency: either of those starts runtime
/// threads that wake the process every second for ever (see docs/architecture.md).
///
/// Contract: `start` and the completion run on the loop thread; `work` runs on the job's own
/// thread and must not touch the daemon's state. One job at a time.
final class BackgroundJob<Output> {
    private let loop: EventLoop
    /// Shared with a job still running when this object goes (an MQTT room replaced by a reload
    /// while it connects): the thread signals an fd that is still its own, never a reused number.
    private let counter: EventCounter
    private var fd: Int32 { counter.fd }
    private var box: JobBox?
    private var completion: ((Output) -> Void)?

    init(loop: EventLoop) throws(SystemError) {
        self.loop = loop
        // eventfd(2): a counter the job thread increments when it is done.
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw SystemError("eventfd", context: "background job") }
        counter = EventCounter(fd: fd)
        try loop.watch(fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in self.collect() }
    }

    deinit { loop.unwatch(fd) }

    var isRunning: Bool { box != nil }

    /// Starts `work` on a new thread; `completion` gets its output on the loop thread.
    func start(_ work: @escaping () -> Output, completion: @escaping (Output) -> Void) {
        precondition(box == nil, "one background job at a time")
        let box = JobBox(work: { work() }, counter: counter)
        self.box = box
        self.completion = completion
        box.launch()
    }

    private func collect() {
        var count: UInt64 = 0
        _ = Glibc.read(fd, &count, 8)
        guard let box, let output = box.takeOutput() as? Output else { return }
        self.box = nil
        let completion = self.completion
        self.completion = nil
        completion?(output)
    }
}

/// The hand-over between the job thread and the loop thread (not generic: the thread entry point
/// is a C function).
private final class JobBox: @unchecked Sendable {
    private let lock = PThreadMutex()
    private var output: Any?
    private let work: () -> Any
    private let counter: EventCounter

    init(work: @escaping () -> Any, counter: EventCounter) {
        self.work = work
        self.counter = counter
    }

    func launch() {
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        // pthread_create: the thread inherits the loop thread's blocked signals (signalfd).
        if pthread_create(&thread, nil, jobThreadMain, retained) == 0 {
            pthread_detach(thread)
        } else {
            // No thread could be made: do the work here rather than not at all.
            Unmanaged<JobBox>.fromOpaque(retained).takeRetainedValue().runAndSignal()
        }
    }

    func runAndSignal() {
        let result = work()
        lock.lock()
        output = result
        lock.unlock()
        var one: UInt64 = 1
        _ = Glibc.write(counter.fd, &one, 8)
    }

    func takeOutput() -> Any? {
        lock.lock()
        defer { lock.unlock() }
        let result = output
        output = nil
        return result
    }
}

private func jobThreadMain(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    Unmanaged<JobBox>.fromOpaque(raw!).takeRetainedValue().runAndSignal()
    return nil
}

/// A pthread mutex guarding the hand-over between the job thread and the loop thread.
final class PThreadMutex: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func lock() { pthread_mutex_lock(&mutex) }
    func unlock() { pthread_mutex_unlock(&mutex) }
}

/// An eventfd closed when its last user (the job, or the thread running it) lets go.
final class EventCounter: @unchecked Sendable {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit { Glibc.close(fd) }
}
