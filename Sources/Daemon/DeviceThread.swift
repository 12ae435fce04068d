import ClockEngine
import ConfigFiles
import EventLoop
import FoundationEssentials
import Glibc
import Outputs
import Playback
import Synchronization
import TalkingClockCore

/// The daemon's sound output on a thread of its own (MPD's output thread): rendering, opening the
/// device, writing it and closing it never run on the event loop. A sound server that stops
/// answering (SIGSTOP, a hang inside ALSA's pulse plugin) therefore cannot stop the clock: the
/// loop sees the thread stuck in one device call for `hangLimit` and gives up on the announcement,
/// says why, fails the next ones at once while the device stays silent, and notices when it
/// answers again.
///
/// Contract: every method is called on the loop thread; reports come back through `onReport`, on
/// the loop thread. The device thread owns the sink, the session and the warm connection.
final class DeviceThread {
    /// What the loop asks of the device thread.
    enum Command: Sendable {
        case play(PlayJob)
        case begin(Int)
        case cut(Int)
        case fade(Int)
        /// Open ahead (a sound-server connection held between announcements); with `check`, report
        /// whether the device can be opened now.
        case warmUp(String, check: Bool)
        /// Hold this connection (opened by a reload's check) for the next announcement.
        case adopt(Unchecked<(any PreparedOutput)?>, String)
        case quit
    }

    /// One announcement to render and play.
    struct PlayJob: @unchecked Sendable {
        var id: Int
        var device: String
        var timeline: Timeline
        var gain: Float
        /// The pack's decoded clips (read-only once decoded).
        var clips: (String) -> ClipSamples?
        /// The real CLOCK_REALTIME instant for the anchor (the output latency taken off), or nil.
        var anchorReal: Double?
        /// Not before this real instant is the device opened (nil: at once). A `say at` seconds
        /// ahead opens its device as late as a boundary's would (the lead and the chime's
        /// pre-roll before the anchor): a sound server's estimate of its stream's delay wanders
        /// the longer the stream runs on a busy machine (PulseAudio, both cores busy: within
        /// 1 ms of the truth for the first 1.3 s of every stream measured, up to 3 ms off, once
        /// 10 ms, after 3 s), and an opened stream left idle starts ~4 ms late.
        var openAt: Double?
        /// Open the device ahead again once it ends (not for a one-shot run).
        var warmAfter: Bool
    }

    /// What the device thread tells the loop.
    enum Report: Sendable {
        case opened(Int, Result<Void, PlaybackFailure>)
        case progress(Int, anchorPlayed: Bool)
        case done(Int, AnnouncementProgress)
        case checked(String, SinkError?)
        /// An announcement ended and the device was opened ahead again: idle until the next one.
        case idle
        /// A device call that had run longer than the hang limit returned.
        case answersAgain
        /// How the thread is scheduled, once, as it starts.
        case scheduling(Threads.Scheduling)
    }

    /// The device thread's real-time priority: under PulseAudio's default (5), so it never
    /// preempts the sound server it feeds, above every normal thread.
    static let realtimePriority: Int32 = 4

    /// A device call the thread is inside, and since when (monotonic seconds).
    struct InCall: Sendable {
        var what: String
        var device: String
        var since: Double
    }

    /// What the loop and the device thread share: the command queue and its wake-up, and the
    /// device call running now.
    final class Shared: Sendable {
        let commands = Mutex<[Command]>([])
        let wake: EventCounter
        let inCall = Mutex<InCall?>(nil)
        init() throws(SystemError) { wake = try EventCounter() }
    }

    /// How long one device call may take before the device is deemed hung.
    let hangLimit: Double
    private let shared: Shared
    private var mailbox: Mailbox<Report>!
    private let finished: Latch
    private var onReport: (Report) -> Void = { _ in }
    /// Since when (wall-clock) the device has not answered, if it hangs.
    private(set) var hungSince: Double?

    init(loop: EventLoop, hangLimit: Double = 2) throws(SystemError) {
        self.hangLimit = hangLimit
        shared = try Shared()
        finished = try Latch()
        mailbox = try Mailbox(loop: loop) { [unowned self] report in self.received(report) }
    }

    /// Starts the thread; `onReport` gets every report on the loop thread.
    func start(onReport: @escaping (Report) -> Void) -> Bool {
        self.onReport = onReport
        let worker = Worker(shared: shared, poster: mailbox.poster, finished: finished, hangLimit: hangLimit)
        return Threads.spawn { worker.run() }
    }

    func post(_ command: Command) {
        shared.commands.withLock { $0.append(command) }
        shared.wake.signal()
    }

    /// The call the thread has been inside for longer than the hang limit, if any.
    func hungCall(now: Double = WallClock.monotonic()) -> InCall? {
        guard let call = shared.inCall.withLock({ $0 }), now - call.since >= hangLimit else { return nil }
        return call
    }

    /// Marks the device hung (the loop gave up on it); true the first time.
    @discardableResult
    func markHung() -> Bool {
        guard hungSince == nil else { return false }
        hungSince = WallClock.now()
        return true
    }

    /// Stops the thread: waits at most `timeout` for what it is playing (a fade) to end. Returns
    /// whether it ended (false: it is stuck in a device call, and is left behind).
    func stop(timeout: Double) -> Bool {
        post(.quit)
        return finished.wait(timeout: timeout)
    }

    private func received(_ report: Report) {
        if case .answersAgain = report { hungSince = nil }
        onReport(report)
    }
}

/// The device thread's own state: only it touches the sink, the session and the warm connection.
private final class Worker: @unchecked Sendable {
    let shared: DeviceThread.Shared
    var wake: EventCounter { shared.wake }
    let poster: Mailbox<DeviceThread.Report>.Poster
    let finished: Latch
    let hangLimit: Double
    let warm = WarmOutput()
    /// Commands that came while an announcement was being played, for after it.
    var deferred: [DeviceThread.Command] = []
    var quitting = false

    init(shared: DeviceThread.Shared, poster: Mailbox<DeviceThread.Report>.Poster, finished: Latch, hangLimit: Double) {
        self.shared = shared
        self.poster = poster
        self.finished = finished
        self.hangLimit = hangLimit
    }

    func run() {
        poster.post(.scheduling(Threads.makeCurrentRealtime(priority: DeviceThread.realtimePriority)))
        while !quitting {
            for command in next() { handle(command) }
        }
        // The connection held ahead is closed here, before the loop is told: once told, the
        // process may exit, and a library's exit handlers must not run beside a close.
        warm.drop()
        finished.signal()
    }

    /// Waits for commands (blocking: no wake-ups while idle) and takes them all, those deferred
    /// while an announcement played first.
    func next() -> [DeviceThread.Command] {
        if !deferred.isEmpty {
            defer { deferred = [] }
            return deferred
        }
        return waitForCommands()
    }

    /// Blocks until commands come, and takes them.
    func waitForCommands() -> [DeviceThread.Command] {
        while true {
            let taken = takeCommands()
            if !taken.isEmpty { return taken }
            var entry = pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, -1)
            wake.reset()
        }
    }

    func takeCommands() -> [DeviceThread.Command] {
        shared.commands.withLock { q -> [DeviceThread.Command] in
            let all = q
            q.removeAll()
            return all
        }
    }

    func handle(_ command: DeviceThread.Command) {
        switch command {
        case .play(let job): play(job)
        case .warmUp(let device, let check):
            let failure = call(device, "opening") { warm.warmUp(device, check: check) }
            if check { poster.post(.checked(device, failure)) }
        case .adopt(let prepared, let device): warm.adopt(prepared.value, for: device)
        case .quit: quitting = true
        case .begin, .cut, .fade: break  // for an announcement no longer here
        }
    }

    /// Runs one device call, saying which and since when, so the loop can tell a hang.
    func call<T>(_ name: String, _ what: String, _ body: () -> T) -> T {
        let since = WallClock.monotonic()
        shared.inCall.withLock { $0 = DeviceThread.InCall(what: what, device: name, since: since) }
        let result = body()
        shared.inCall.withLock { $0 = nil }
        if WallClock.monotonic() - since >= hangLimit { poster.post(.answersAgain) }
        return result
    }

    func play(_ job: DeviceThread.PlayJob) {
        if let openAt = job.openAt, !hold(until: openAt) { return }
        let timeline = job.timeline
        let pcm = Mixer.render(timeline, gain: job.gain, clips: job.clips)
        let opened: Result<any AudioSink, SinkError> = call(job.device, "opening") {
            do throws(SinkError) { return .success(try warm.sink(job.device, format: timeline.format)) } catch {
                return .failure(error)
            }
        }
        let sink: any AudioSink
        switch opened {
        case .success(let s): sink = s
        case .failure(let error):
            poster.post(.opened(job.id, .failure(PlaybackFailure(error.description))))
            return
        }
        let session = PlaybackSession(sink: sink, timeline: timeline, pcm: pcm, anchorAt: job.anchorReal, clock: WallClock.now)
        poster.post(.opened(job.id, .success(())))
        // Nothing is written until the engine says begin (its record is on its way to disk).
        guard waitForBegin(job.id) else {
            call(job.device, "closing") { sink.close() }
            return
        }
        var anchorPlayed = false
        var fading = false
        var fds: [pollfd] = []
        // The session's timeouts are sub-millisecond (a clockless device waits for the anchor's
        // instant): a timerfd beside the descriptors, not poll's milliseconds.
        guard let timer = try? TimerFD(realtime: false) else {
            call(job.device, "closing") { sink.close() }
            poster.post(.done(job.id, .failed("no timer could be made for the sound device's thread")))
            return
        }
        while true {
            let step = call(job.device, "writing") { session.pump() }
            if session.anchorPlayed != anchorPlayed {
                anchorPlayed = session.anchorPlayed
                poster.post(.progress(job.id, anchorPlayed: anchorPlayed))
            }
            guard case .wait(let timeout) = step else { break }
            // The sink's descriptors (unless a clockless sink waits for its anchor) and the commands.
            let descriptors = session.wantsDeviceEvents ? sink.pollDescriptors() : []
            fds = descriptors.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
            fds.append(pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: timer.fd, events: Int16(POLLIN), revents: 0))
            timer.arm(after: max(0.0005, min(1, timeout ?? 1)))
            if poll(&fds, nfds_t(fds.count), -1) > 0 {
                if fds[fds.count - 1].revents != 0 { _ = timer.read() }
                if !descriptors.isEmpty { sink.acknowledge(revents: fds.dropLast(2).map(\.revents)) }
                if fds[fds.count - 2].revents != 0 {
                    wake.reset()
                    switch commandsDuringPlay(job.id) {
                    case .cut:
                        call(job.device, "closing") {
                            session.cancel()
                            sink.close()
                        }
                        return
                    case .fade where !fading:
                        fading = true
                        session.fadeOut(frames: timeline.format.sampleRate / 20)
                    case .fade, .none: break
                    }
                }
            }
        }
        call(job.device, "closing") { sink.close() }
        let result: AnnouncementProgress
        if let failure = session.failure, failure.kind == .stalled {
            result = .stalled(failure.description)
        } else if let failure = session.failure {
            result = .failed(failure.description)
        } else {
            var onset: Double?
            if let predicted = session.predictedAnchorTime, let anchor = job.anchorReal { onset = (predicted - anchor) * 1000 }
            result = .finished(onsetErrorMs: onset)
        }
        poster.post(.done(job.id, result))
        if job.warmAfter && !fading && !quitting {
            _ = call(job.device, "opening") { warm.warmUp(job.device) }
            poster.post(.idle)
        }
    }

    enum DuringPlay { case cut, fade, none }

    /// Takes the commands that came while playing: a cut or a fade of this announcement counts,
    /// the rest wait until it ends.
    func commandsDuringPlay(_ id: Int) -> DuringPlay {
        let taken = takeCommands()
        var result = DuringPlay.none
        for command in taken {
            switch command {
            case .cut(let c) where c == id: result = .cut
            case .fade(let f) where f == id: if result == .none { result = .fade }
            case .quit:
                quitting = true
                deferred.append(command)
            case .cut, .fade, .begin: break
            default: deferred.append(command)
            }
        }
        return result
    }

    /// Waits (no device open) until the real instant `openAt`: true then; false if the
    /// announcement was given up meanwhile (a newer one came, or the thread is quitting). The
    /// engine cuts an announcement still opening when it reports opened, so a cut needs no
    /// look here. Wakes at least once a second, so that a step of the wall clock counts.
    func hold(until openAt: Double) -> Bool {
        guard let timer = try? TimerFD(realtime: false) else { return true }  // open now, as before
        while true {
            let left = openAt - WallClock.now()
            if left <= 0 { return true }
            timer.arm(after: min(1, left))
            var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: timer.fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) > 0 else { continue }
            if fds[1].revents != 0 { _ = timer.read() }
            guard fds[0].revents != 0 else { continue }
            wake.reset()
            for command in takeCommands() {
                switch command {
                case .quit:
                    quitting = true
                    return false
                case .play:
                    deferred.append(command)
                    return false
                case .warmUp, .adopt: deferred.append(command)
                case .begin, .cut, .fade: break
                }
            }
        }
    }

    /// Waits for the engine's `begin` (true) or `cut` (false) of this announcement.
    func waitForBegin(_ id: Int) -> Bool {
        while true {
            for command in waitForCommands() {
                switch command {
                case .begin(let b) where b == id: return true
                case .cut(let c) where c == id: return false
                case .fade(let f) where f == id: return false
                case .quit:
                    quitting = true
                    return false
                case .begin, .cut, .fade: break
                case .play:
                    // A new announcement while this one waited: this one was given up.
                    deferred.append(command)
                    return false
                case .warmUp, .adopt: deferred.append(command)
                }
            }
        }
    }
}
