import CLinux
import Glibc

/// One thread, one `epoll` instance, every event source a file descriptor (timers, signals, the
/// control socket, ALSA's descriptors), like MPD's `EventLoop` and systemd's `sd-event`.
/// Nothing else in the daemon sleeps or waits; between events the process makes no wake-ups.
public final class EventLoop {
    public typealias Handler = (_ events: IOEvents) -> Void

    private let epfd: Int32
    private var handlers: [Int32: Handler] = [:]
    private var running = false

    public init() throws(SystemError) {
        // epoll_create1
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SystemError("epoll_create1") }
    }

    deinit { Glibc.close(epfd) }

    /// Watches `fd` for `events`; replaces any earlier handler for it. Empty `events` keeps the
    /// descriptor registered without waking for it.
    public func watch(_ fd: Int32, events: IOEvents, handler: @escaping Handler) throws(SystemError) {
        var ev = epoll_event()
        ev.events = events.rawValue
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
                handlers[fd]?(IOEvents(rawValue: events[i].events))
                if !running { break }
            }
        }
    }

    public func stop() { running = false }
}

/// What a descriptor is ready for (epoll's event bits).
public struct IOEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = IOEvents(rawValue: UInt32(EPOLLIN.rawValue))
    public static let writable = IOEvents(rawValue: UInt32(EPOLLOUT.rawValue))
    public static let error = IOEvents(rawValue: UInt32(EPOLLERR.rawValue))
    public static let hangUp = IOEvents(rawValue: UInt32(EPOLLHUP.rawValue))
    public static let none: IOEvents = []

    /// `poll(2)` event bits (ALSA's descriptors say what they wait for in these).
    public init(pollEvents: Int16) {
        var e: IOEvents = []
        if pollEvents & Int16(POLLIN) != 0 { e.insert(.readable) }
        if pollEvents & Int16(POLLOUT) != 0 { e.insert(.writable) }
        if pollEvents & Int16(POLLERR) != 0 { e.insert(.error) }
        if pollEvents & Int16(POLLHUP) != 0 { e.insert(.hangUp) }
        self = e
    }

    /// As `poll(2)` event bits.
    public var pollEvents: Int16 {
        var bits: Int16 = 0
        if contains(.readable) { bits |= Int16(POLLIN) }
        if contains(.writable) { bits |= Int16(POLLOUT) }
        if contains(.error) { bits |= Int16(POLLERR) }
        if contains(.hangUp) { bits |= Int16(POLLHUP) }
        return bits
    }
}
