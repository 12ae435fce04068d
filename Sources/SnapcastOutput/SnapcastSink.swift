import EventLoop
#if canImport(Glibc)
    import Glibc
#endif
import Playback
import TalkingClockCore

/// An `AudioSink` that feeds a snapserver TCP source, so that every snapclient of the stream
/// hears the clock: `delay()` says when a frame written now is heard at the clients (snapserver's
/// buffer included), so `PlaybackSession` places the anchor on the boundary as it does for ALSA.
///
/// How (see `SnapcastTiming` for snapserver's rules, docs/outputs.md for the measurements):
/// - each sink is one TCP connection. Its first chunk makes snapserver sync the stream: that
///   chunk is stamped one chunk before the instant it was sent. The sink then sends whole chunks
///   paced in real time, `lead` ahead of snapserver's reads (never so far that a cut is slow),
///   converted to the source's sample format;
/// - with a meta stream (music that the clock cuts into) snapserver's meta stream keeps its own
///   stamps while it switches, so the sink first sends silence until the source counts as playing
///   (`leadIn`: snapserver checks every 500 ms + a chunk) and the meta stream plays it, then
///   sends nothing for `stallGap`, so that the source's and the meta stream's next reads come
///   late and both resync on the chunk after: stamped one chunk before the instant it was sent;
/// - if the owner does not feed it in time, it pads with silence (the announcement is late by
///   the pad, as with an underrun) and, if snapserver's read came more than a chunk late, takes
///   the resync that follows into account.
///
/// Between announcements nothing is connected: the stream goes idle and a meta stream goes back
/// to its music. Frames already sent cannot be taken back: a cut (`stop`) is heard up to the
/// buffer and the lead (≈1.25 s) later. Failures: a refused or unanswered connection is `.notFound` (at most
/// `connectTimeout`); a server that closes the connection, or takes nothing for `blockedLimit`
/// while the sink must send, is `.failed`. Never blocks; one owner thread, like every sink.
public final class SnapcastSink: AudioSink {
    public let deviceName: String
    /// The session's format (the pack's); converted to `target.streamFormat`.
    public let format: StreamFormat
    public let periodFrames: Int
    public let target: SnapcastTarget

    /// Sent ahead of snapserver's reads (seconds): a starved owner (measured: more than 100 ms on a
    /// loaded 2-core machine) must not leave snapserver without data, which would make it resync.
    public static let lead = 0.25
    /// The meta stream's lead-in: snapserver's state check (500 ms + a chunk) and a margin.
    public static func leadIn(chunk: Double) -> Double { 0.5 + chunk + 0.15 }
    /// How long nothing is sent before the resync: longer than the meta stream's slack (up to
    /// two of its chunks) and than the source's one chunk.
    public static func stallGap(chunk: Double) -> Double { 2 * chunk + 0.15 }
    public static let connectTimeout = 3.0
    public static let blockedLimit = 1.0
    /// The owner's wake-up interval while the sink is open.
    public static let tick = 0.01
    /// CLOCK_MONOTONIC in seconds, the default clock: wall-clock steps do not move the pacing.
    public static func monotonic() -> Double { SnapcastOutput.monotonic() }

    private enum Phase: Equatable {
        case connecting(since: Double)
        case leadIn(until: Double)
        case stall(resumeAt: Double)
        case running
        case stopped
    }

    private var connection: TCPConnection?
    /// The owner's wake-ups while the sink is open (nothing else would wake it while it waits to
    /// send): re-armed `tick` ahead at every acknowledgement.
    private var timer: TimerFD?
    private var phase: Phase
    private var timing: SnapcastTiming
    private var converter: StreamConverter
    private let chunk: Int
    private let leadFrames: Int
    private let outChannels: Int
    private let clock: () -> Double
    /// Frames committed to the stream (sent, or in `outbox`): always whole chunks.
    private var committed = 0
    private var outbox: [UInt8] = []
    private var outboxOffset = 0
    /// The frame a sync waits for: recorded when `outbox` has gone out in full.
    private var syncFrame: Int?
    /// Converted frames not yet committed (interleaved, stream format).
    private var queue: [Int16] = []
    private var queuePosition = 0
    /// Stream frame of the session's first frame, and silence padded into it since.
    private var sessionStart: Int?
    private var padded = 0
    /// Session frames accepted.
    private var accepted = 0
    private var blockedSince: Double?
    private var pendingError: SinkError?
    /// Pads and resyncs so far (what the announcement lost to a late owner).
    public private(set) var padFrames = 0
    public private(set) var resyncs = 0

    /// Opens a connection to the target (non-blocking) for a session in `format`.
    public init(target: SnapcastTarget, format: StreamFormat, clock: @escaping () -> Double = SnapcastSink.monotonic) throws(SinkError) {
        self.target = target
        self.deviceName = target.endpoint.name
        self.format = format
        self.clock = clock
        periodFrames = max(1, format.sampleRate / 100)
        let stream = target.streamFormat
        outChannels = stream.channels
        timing = SnapcastTiming(
            rate: stream.sampleRate, chunkMs: target.chunkMs, bufferMs: target.endpoint.bufferMs, latencyMs: target.endpoint.latencyMs)
        chunk = timing.chunkFrames
        leadFrames = Int((Self.lead * Double(stream.sampleRate)).rounded(.up))
        converter = StreamConverter(from: format, to: stream)
        phase = .connecting(since: clock())
        do {
            connection = try TCPConnection(to: target.address, peer: "the Snapcast server at \(target.endpoint.address)")
        } catch {
            throw Self.explainConnect(error, target)
        }
        do { timer = try TimerFD(realtime: false) } catch {
            close()
            throw SinkError(.failed, "Could not create a timer for the Snapcast output: \(error).")
        }
        timer?.arm(after: Self.tick)
        service()
        if let pendingError {
            close()
            throw pendingError
        }
    }

    /// Prepares `device` (blocking: DNS, JSON-RPC within `timeout`) and opens it.
    public convenience init(device: String, format: StreamFormat, timeout: Double = 1) throws(SinkError) {
        try self.init(target: try SnapcastTarget.prepare(try SnapcastEndpoint(device), timeout: timeout), format: format)
    }

    deinit { close() }

    private static func explainConnect(_ error: SinkError, _ target: SnapcastTarget) -> SinkError {
        guard error.kind == .notFound else { return error }
        return SinkError(
            .notFound,
            error.message + " Is snapserver running with a TCP source on that port (source = tcp://0.0.0.0:\(target.endpoint.port)"
                + "?name=clock&mode=server in snapserver.conf, see docs/outputs.md)?")
    }

    // MARK: AudioSink

    public func write(_ frames: UnsafeBufferPointer<Int16>) throws(SinkError) -> Int {
        service()
        if let pendingError { throw pendingError }
        guard phase == .running, syncFrame == nil, let consumed = timing.consumed(by: clock()) else { return 0 }
        let inChannels = format.channels
        // Room: up to two chunks beyond what pacing will send soon.
        let limit = consumed + leadFrames + 2 * chunk
        let buffered = committed + (queue.count - queuePosition) / outChannels
        let room = limit - buffered - converter.reach
        guard room > 0 else { return 0 }
        let wanted = min(frames.count / inChannels, Int(Double(room) * Double(format.sampleRate) / Double(target.streamFormat.sampleRate)))
        guard wanted > 0 else { return 0 }
        if sessionStart == nil { sessionStart = buffered }
        converter.push(UnsafeBufferPointer(rebasing: frames[0..<(wanted * inChannels)]))
        converter.pull(into: &queue)
        accepted += wanted
        service()
        if let pendingError { throw pendingError }
        return wanted
    }

    public func delay() throws(SinkError) -> Int {
        service()
        if let pendingError { throw pendingError }
        let now = clock()
        let heard: Double
        let outRate = Double(target.streamFormat.sampleRate)
        if let start = sessionStart, syncFrame == nil, let base = timing.heard(frame: start) {
            heard = base + (Double(padded) + converter.outputPosition(ofInput: accepted)) / outRate
        } else if phase == .running, syncFrame == nil, let h = timing.heard(frame: committed + (queue.count - queuePosition) / outChannels) {
            heard = max(h, timing.heardIfSynced(at: now) + timing.chunkSeconds)
        } else {
            heard = plannedHeard(now)
        }
        return max(0, Int(((heard - now) * Double(format.sampleRate)).rounded()))
    }

    public func pollDescriptors() -> [PollDescriptor] {
        timer.map { [PollDescriptor(fd: $0.fd, events: Int16(POLLIN))] } ?? []
    }

    public func acknowledge(revents: [Int16]) {
        if let timer, timer.read() == .fired { timer.arm(after: Self.tick) }
        service()
    }

    /// Sends nothing more and closes the connection: what snapserver already has still plays
    /// (up to its buffer); the stream then goes idle.
    public func stop() {
        phase = .stopped
        queue.removeAll()
        queuePosition = 0
        connection?.close()
        connection = nil
    }

    public func close() {
        stop()
        timer = nil
    }

    /// Opens a connection to the source and closes it again (for `check`): the server accepts it
    /// and waits for the next.
    public static func probe(_ target: SnapcastTarget, timeout: Double = 1) throws(SinkError) {
        let connection: TCPConnection
        do {
            connection = try TCPConnection(to: target.address, peer: "the Snapcast server at \(target.endpoint.address)")
            try connection.waitEstablished(timeout: timeout)
        } catch { throw explainConnect(error, target) }
        connection.close()
    }

    // MARK: Pacing

    /// When the session's first frame will be heard, before the sync it waits for: after the
    /// two chunks of a new connection (plain), or the chunk after the resync (meta).
    private func plannedHeard(_ now: Double) -> Double {
        let c = timing.chunkSeconds
        let resume: Double
        switch phase {
        case .connecting:
            guard target.meta else { return timing.heardIfSynced(at: now) + 2 * c }
            resume = now + Self.leadIn(chunk: c) + Self.lead + c + Self.stallGap(chunk: c)
        case .leadIn(let until): resume = max(now, until) + Self.lead + c + Self.stallGap(chunk: c)
        case .stall(let resumeAt): resume = max(now, resumeAt)
        case .running, .stopped: resume = now
        }
        return timing.heardIfSynced(at: resume) + c
    }

    /// Does what is due now: finishes connecting, leads in, resyncs, sends. Errors are kept for
    /// the next `write`/`delay` (an `acknowledge` cannot throw).
    private func service() {
        guard pendingError == nil, let connection else { return }
        let now = clock()
        do throws(SinkError) {
            switch phase {
            case .connecting(let since):
                let established: Bool
                do { established = try connection.established() } catch { throw Self.explainConnect(error, target) }
                if established {
                    // A new connection: snapserver syncs on its first chunk.
                    try commitSilence(chunks: 2)
                    syncFrame = 0
                    try flush(now)
                    phase = target.meta ? .leadIn(until: now + Self.leadIn(chunk: timing.chunkSeconds)) : .running
                } else if now - since > Self.connectTimeout {
                    throw Self.explainConnect(
                        SinkError(.notFound, "Could not connect to the Snapcast server at \(target.endpoint.address): no answer within \(TCPConnection.seconds(Self.connectTimeout)) s."),
                        target)
                }
            case .leadIn(let until):
                try checkPeer()
                try flush(now)
                guard syncFrame == nil, let consumed = timing.consumed(by: now) else { break }
                if now >= until {
                    // Nothing more: snapserver's read of the chunk at `committed` comes late.
                    let due = timing.readTime(ofChunkAt: committed) ?? now
                    phase = .stall(resumeAt: max(now, due) + Self.stallGap(chunk: timing.chunkSeconds))
                } else {
                    while committed < consumed + leadFrames { try commitSilence(chunks: 1) }
                    try flush(now)
                }
            case .stall(let resumeAt):
                try checkPeer()
                try flush(now)
                if now >= resumeAt && outboxOffset == outbox.count {
                    // The late chunk, then the first of the new sync.
                    try commitSilence(chunks: 2)
                    syncFrame = committed - chunk
                    try flush(now)
                    phase = .running
                }
            case .running:
                try checkPeer()
                try flush(now)
                try send(now)
            case .stopped:
                break
            }
        } catch {
            pendingError = error
            stop()
        }
    }

    /// Commits whole chunks while pacing allows: from the queue, or silence when the owner has
    /// not supplied a chunk by the time snapserver needs it.
    private func send(_ now: Double) throws(SinkError) {
        guard syncFrame == nil, let consumed = timing.consumed(by: now) else { return }
        var didCommit = false
        while committed < consumed + leadFrames {
            let available = (queue.count - queuePosition) / outChannels
            let due = timing.readTime(ofChunkAt: committed) ?? now
            if available < chunk && due > now + 2 * Self.tick + timing.chunkSeconds {
                break  // not needed yet: wait for the owner's frames
            }
            if timing.resyncs(chunkAt: committed, sentAt: now) {
                // snapserver waited more than a chunk for this one: it resyncs on the next.
                try commitQueued()
                try commitQueued()
                syncFrame = committed - chunk
                resyncs += 1
                break
            }
            try commitQueued()
            didCommit = true
        }
        if didCommit || syncFrame != nil { try flush(now) }
        if queuePosition > 1 << 16 {
            queue.removeFirst(queuePosition)
            queuePosition = 0
        }
    }

    /// One chunk from the queue, padded with silence if the queue holds less.
    private func commitQueued() throws(SinkError) {
        let available = (queue.count - queuePosition) / outChannels
        let take = min(available, chunk)
        outbox.reserveCapacity(outbox.count + chunk * outChannels * 2)
        for i in queuePosition..<(queuePosition + take * outChannels) {
            let v = UInt16(bitPattern: queue[i])
            outbox.append(UInt8(v & 0xFF))
            outbox.append(UInt8(v >> 8))
        }
        queuePosition += take * outChannels
        let pad = chunk - take
        if pad > 0 {
            outbox.append(contentsOf: repeatElement(0, count: pad * outChannels * 2))
            if sessionStart != nil {
                padded += pad
                padFrames += pad
            }
        }
        committed += chunk
    }

    private func commitSilence(chunks: Int) throws(SinkError) {
        outbox.append(contentsOf: repeatElement(0, count: chunks * chunk * outChannels * 2))
        committed += chunks * chunk
    }

    /// Hands the outbox to the kernel; a sync is recorded when its chunk has gone out in full, at
    /// the instant just before the send that completed it (the data reaches snapserver inside
    /// that call; a clock read after it could come late if this thread is preempted).
    private func flush(_ now: Double) throws(SinkError) {
        guard let connection else { return }
        var sentAt = now
        while outboxOffset < outbox.count {
            sentAt = clock()
            let result = try connection.send(outbox, from: outboxOffset)
            guard case .sent(let n) = result, n > 0 else {
                let since = blockedSince ?? now
                blockedSince = since
                if now - since > Self.blockedLimit {
                    throw SinkError(
                        .failed,
                        "The Snapcast server at \(target.endpoint.address) stopped reading the clock's stream (it took nothing for "
                            + "\(TCPConnection.seconds(now - since)) s): snapserver hangs or is overloaded.")
                }
                return
            }
            outboxOffset += n
        }
        blockedSince = nil
        outbox.removeAll(keepingCapacity: true)
        outboxOffset = 0
        if let frame = syncFrame {
            timing.synced(frame: frame, at: sentAt)
            syncFrame = nil
        }
    }

    /// snapserver never sends on a source connection: readable means it closed.
    private func checkPeer() throws(SinkError) {
        guard let connection else { return }
        var byte = [UInt8](repeating: 0, count: 1)
        do { _ = try connection.receive(into: &byte) } catch {
            throw SinkError(
                .failed,
                "The Snapcast server at \(target.endpoint.address) closed the clock's connection (snapserver stopped or restarted)"
                    + "; \(error.message)")
        }
    }
}
