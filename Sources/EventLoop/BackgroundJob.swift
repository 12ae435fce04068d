import Glibc

/// Runs slow or blocking work (decoding a whole sound pack on `reload`, a peer that may not
/// answer) on a thread of its own and hands the result back to the event loop, so that the loop
/// thread never waits for it.
///
/// Contract: `start` and the completion run on the loop thread; `work` runs on the job's own
/// thread and must not touch the loop's state. One job at a time. A job whose owner is gone when
/// it ends (an MQTT room replaced while it connects) delivers into nothing.
public final class BackgroundJob<Output> {
    private let loop: EventLoop
    private var mailbox: Mailbox<Delivery>!
    private var completion: ((Output) -> Void)?
    private var timedOut: (() -> Void)?
    /// Numbers the jobs, so that the output of one given up on is recognised and dropped.
    private var generation = 0
    private var deadline: TimerFD?
    public private(set) var isRunning = false

    private struct Delivery: @unchecked Sendable {
        var generation: Int
        var output: Output
    }

    public init(loop: EventLoop) throws(SystemError) {
        self.loop = loop
        mailbox = try Mailbox(loop: loop) { [unowned self] delivery in self.collect(delivery) }
    }

    deinit { if let deadline { loop.unwatch(deadline.fd) } }

    /// Starts `work` on a new thread; `completion` gets its output on the loop thread. If no thread
    /// can be made, the work runs here rather than not at all.
    public func start(_ work: @escaping () -> Output, completion: @escaping (Output) -> Void) {
        launch(work, completion: completion, timeout: nil, timedOut: nil)
    }

    /// Starts `work` with a bound: if it has not ended within `timeout` seconds, `timedOut` runs
    /// instead of `completion`, the job is given up (its thread finishes on its own, its output is
    /// dropped) and another may start. For a peer that may never answer.
    public func start(
        within timeout: Double, _ work: @escaping () -> Output, completion: @escaping (Output) -> Void,
        timedOut: @escaping () -> Void
    ) {
        launch(work, completion: completion, timeout: timeout, timedOut: timedOut)
    }

    private func launch(_ work: @escaping () -> Output, completion: @escaping (Output) -> Void, timeout: Double?, timedOut: (() -> Void)?) {
        precondition(!isRunning, "one background job at a time")
        isRunning = true
        generation += 1
        self.completion = completion
        self.timedOut = timedOut
        if let timeout { armDeadline(timeout) }
        let poster = mailbox.poster
        let job = Unchecked(work)
        let number = generation
        if !Threads.spawn({ poster.post(Delivery(generation: number, output: job.value())) }) {
            poster.post(Delivery(generation: number, output: work()))
        }
    }

    private func armDeadline(_ timeout: Double) {
        if deadline == nil, let timer = try? TimerFD(realtime: false) {
            deadline = timer
            try? loop.watch(timer.fd, events: .readable) { [unowned self] _ in
                guard self.deadline?.read() == .fired, self.isRunning else { return }
                self.giveUp()
            }
        }
        deadline?.arm(after: timeout)
    }

    private func giveUp() {
        isRunning = false
        generation += 1  // its output, if it ever comes, is dropped
        completion = nil
        let timedOut = self.timedOut
        self.timedOut = nil
        timedOut?()
    }

    private func collect(_ delivery: Delivery) {
        guard delivery.generation == generation, isRunning else { return }
        isRunning = false
        deadline?.disarm()
        let completion = self.completion
        self.completion = nil
        timedOut = nil
        completion?(delivery.output)
    }
}

/// A value handed from one thread to another whose type does not say it may be: the hand-over is
/// the only access (the sender lets go of it), as in a background job's work and result.
public struct Unchecked<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}
