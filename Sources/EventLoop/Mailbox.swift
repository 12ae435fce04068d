import CLinux
import Glibc
import Synchronization

/// Messages from other threads to the event loop: any thread may `post`; the loop receives them,
/// in order, on its own thread, woken through an `eventfd`. The hand-over between a worker (a
/// background job, the device thread) and the loop, in one place.
public final class Mailbox<Message: Sendable>: @unchecked Sendable {
    private let loop: EventLoop
    private let counter: EventCounter
    private let queue = Mutex<[Message]>([])
    private var receiver: ((Message) -> Void)?

    /// `receive` runs on the loop thread for each message posted.
    public init(loop: EventLoop, receive: @escaping (Message) -> Void) throws(SystemError) {
        self.loop = loop
        // eventfd(2): a counter the posting thread increments.
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw SystemError("eventfd", context: "mailbox") }
        counter = EventCounter(fd: fd)
        receiver = receive
        try loop.watch(fd, events: .readable) { [unowned self] _ in self.drain() }
    }

    deinit { loop.unwatch(counter.fd) }

    /// From any thread. Never blocks (the queue's lock is held for an append).
    public func post(_ message: Message) {
        queue.withLock { $0.append(message) }
        counter.signal()
    }

    /// A poster that outlives this mailbox posts into nothing: what it posts is dropped.
    public var poster: Poster { Poster(self) }

    /// Holds the mailbox weakly: a thread left running after its owner went away (a hung peer)
    /// never touches freed memory.
    public struct Poster: Sendable {
        private weak var box: Mailbox?
        init(_ box: Mailbox) { self.box = box }
        public func post(_ message: Message) { box?.post(message) }
    }

    private func drain() {
        counter.reset()
        let messages = queue.withLock { q -> [Message] in
            let taken = q
            q.removeAll()
            return taken
        }
        for message in messages { receiver?(message) }
    }
}

/// An eventfd closed when its last user (the owner, or a thread still holding it) lets go.
public final class EventCounter: @unchecked Sendable {
    public let fd: Int32
    public init(fd: Int32) { self.fd = fd }

    /// An eventfd of its own.
    public convenience init() throws(SystemError) {
        // eventfd(2)
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw SystemError("eventfd") }
        self.init(fd: fd)
    }

    deinit { Glibc.close(fd) }

    /// Makes the descriptor readable (from any thread).
    public func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(fd, &one, 8)
    }

    /// Consumes what was signalled.
    public func reset() {
        var count: UInt64 = 0
        _ = Glibc.read(fd, &count, 8)
    }
}

/// A one-way signal one thread waits on (with a time limit) and another gives: a finished part of
/// the courtesy look, a device opened for `say`. An eventfd, so no condition variable is needed
/// beside the one lock type (`Mutex`).
public final class Latch: @unchecked Sendable {
    private let counter: EventCounter

    public init() throws(SystemError) { counter = try EventCounter() }

    /// From any thread.
    public func signal() { counter.signal() }

    /// Waits until `signal` or until `timeout` seconds pass (nil: no limit); true when signalled.
    /// Consumes the signal.
    @discardableResult
    public func wait(timeout: Double? = nil) -> Bool {
        var entry = pollfd(fd: counter.fd, events: Int16(POLLIN), revents: 0)
        let end = timeout.map { monotonicSeconds() + $0 }
        while true {
            let ms = end.map { Int32(max(0, min(Double(Int32.max), (($0 - monotonicSeconds()) * 1000).rounded(.up)))) } ?? -1
            // poll
            let n = poll(&entry, 1, ms)
            if n > 0 {
                counter.reset()
                return true
            }
            if n == 0 { return false }
            if errno != EINTR { return false }
        }
    }
}

/// CLOCK_MONOTONIC in seconds.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
