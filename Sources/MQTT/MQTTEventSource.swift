import EventLoop

/// Puts an `MQTTClient` on the daemon's `EventLoop`: its socket (read, and write while
/// libmosquitto has bytes queued) and one monotonic `TimerFD` for its single deadline (keepalive,
/// connect timeout or the next reconnect). Nothing else wakes the process for MQTT.
public final class MQTTEventSource {
    public let client: MQTTClient
    private let loop: EventLoop
    private let timer: TimerFD
    /// Runs the client's connect (name resolution) off the loop.
    private let connector: BackgroundJob<Int32>
    /// Wake-ups this source handled (socket events + timer expiries), for tests and measurements.
    public private(set) var wakeups = 0

    public init(client: MQTTClient, loop: EventLoop) throws(SystemError) {
        self.client = client
        self.loop = loop
        timer = try TimerFD(realtime: false)
        connector = try BackgroundJob(loop: loop)
        try loop.watch(timer.fd, events: .readable) { [unowned self] _ in
            guard self.timer.read() == .fired else { return }
            self.wakeups += 1
            self.client.handleDeadline()
        }
        client.onWatch = { [unowned self] old, new in self.apply(old, new) }
        client.offLoop = { [unowned self] work, done in self.connector.start(work, completion: done) }
    }

    deinit {
        client.onWatch = nil
        client.offLoop = nil
        loop.unwatch(timer.fd)
    }

    private func apply(_ old: MQTTWatch, _ new: MQTTWatch) {
        if old.fd >= 0 && (old.fd != new.fd || new.fd < 0) { loop.unwatch(old.fd) }
        if new.fd >= 0 && (old.fd != new.fd || old.writable != new.writable) {
            var events = IOEvents.readable
            if new.writable { events.insert(.writable) }
            // A socket libmosquitto closed and reopened under the same number is a new epoll
            // entry: drop the old registration first (EventLoop.watch would otherwise MOD it).
            if old.fd == new.fd { loop.unwatch(new.fd) }
            do {
                try loop.watch(new.fd, events: events) { [unowned self] ev in
                    self.wakeups += 1
                    let errorOrHangup = !ev.isDisjoint(with: [.error, .hangUp])
                    self.client.handle(
                        readable: ev.contains(.readable) || errorOrHangup,
                        writable: ev.contains(.writable))
                }
            } catch {
                // Cannot happen for a valid socket; the keepalive deadline will notice a dead one.
            }
        }
        if new.deadline != old.deadline {
            if let d = new.deadline { timer.arm(at: d) } else { timer.disarm() }
        }
    }
}
