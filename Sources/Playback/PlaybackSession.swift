import TalkingClockCore

/// How a clip ended.
public enum ClipResult: Hashable, Sendable {
    /// Its last sample was played (by the device's own delay accounting).
    case finished
    /// The announcement was cut (skip, shutdown) before its last sample played.
    case interrupted
    /// The device failed; the clip did not finish.
    case failed(SinkError)
}

/// What the owner of a session should do next.
public enum PumpResult: Hashable, Sendable {
    /// Wait until the sink's descriptors are ready, or at most `timeout` seconds (nil: no limit).
    case wait(timeout: Double?)
    /// Every clip has reported; the session is over.
    case done
}

/// Plays one rendered announcement on a sink as one continuous stream and reports each clip's
/// completion when its last frame has been played.
///
/// With `anchorAt`, the session first feeds the device silence and places the timeline's anchor
/// frame so that it plays at that wall-clock instant: the next frame written plays `delay/rate`
/// seconds from now, so the silence still owed is `(anchorAt − now)·rate − delay − anchorFrame`,
/// re-estimated on every write until the first real frame goes out.
///
/// A stream the device stops consuming (a sound server corks it when a call starts, and the
/// program is not told) would hold the announcement forever: when the frames played have not
/// advanced for `stallLimit` seconds while frames are queued, the session stops the sink and fails
/// the clips left with a `.stalled` error. `pump()`'s timeouts never exceed what is left of that
/// limit, so the owner's loop notices without any device event.
///
/// Single-threaded: the owner calls `pump()` when the sink's descriptors are ready or the
/// returned timeout expires, and `cancel()` to cut. Never sleeps.
public final class PlaybackSession {
    public enum State: Hashable, Sendable { case priming, playing, tail, finished }

    public let timeline: Timeline
    private let sink: any AudioSink
    private var pcm: [Int16]
    private let anchorAt: Double?
    private let clock: () -> Double
    private let onClip: (TimelineItem, ClipResult) -> Void
    private let channels: Int
    private let rate: Double
    /// Seconds without progress (no frame played and none taken) before the session gives up.
    public let stallLimit: Double
    /// The played-frame count last seen to advance, and when.
    private var progress: (frames: Int, written: Int, at: Double)?
    /// When `pump()` last ran, to tell a stall from a step of the wall clock.
    private var lastPump: Double?

    public private(set) var state: State
    /// Frames handed to the sink so far (silence included).
    public private(set) var written = 0
    /// Stream frame at which the timeline starts (the silence written before it).
    public private(set) var timelineStart: Int?
    /// When the anchor frame was due to play, by the device's delay at the moment it was written.
    public private(set) var predictedAnchorTime: Double?
    /// The first error, if the device failed.
    public private(set) var failure: SinkError?
    /// Frames the device had played (silence included) when last asked, at the last `pump()`.
    public private(set) var playedFrames = 0
    /// Whether the anchor frame had been played at the last `pump()` (by the device's delay).
    public var anchorPlayed: Bool {
        timelineStart.map { playedFrames > $0 + timeline.anchorFrame } ?? false
    }
    /// Whether the sink plays without a clock (ALSA's `null` and `file:` devices take any number
    /// of frames at once and report no delay). Such a sink gets no silence ahead of the anchor:
    /// the session waits for the anchor's instant and then writes the announcement, instead of
    /// feeding it silence as fast as it takes it (a busy loop, and hours of padding in a file).
    public private(set) var clockless = false
    /// Writes that were followed by a delay of 0 (a clocked device reports at least what it holds).
    private var zeroDelayWrites = 0
    /// Whether the owner should wait on the sink's descriptors now. A clockless sink is always
    /// ready, so while the session waits for the anchor only its timeout counts.
    public var wantsDeviceEvents: Bool { !(clockless && state == .priming) }
    private var pcmPosition = 0
    private var pending: [Int]  // indices into timeline.items not yet reported, by end frame
    private let silence: [Int16]

    /// - Parameters:
    ///   - pcm: `Mixer.render(timeline)` output (interleaved, `timeline.format`).
    ///   - anchorAt: wall-clock instant (seconds since the epoch) for the anchor frame; nil = now.
    ///   - clock: the wall clock (`CLOCK_REALTIME`), injected for tests.
    ///   - onClip: called once per timeline item, in order of their end frames.
    public init(
        sink: any AudioSink, timeline: Timeline, pcm: [Int16], anchorAt: Double? = nil, clock: @escaping () -> Double,
        stallLimit: Double = 2, onClip: @escaping (TimelineItem, ClipResult) -> Void = { _, _ in }
    ) {
        self.sink = sink
        self.stallLimit = stallLimit
        self.timeline = timeline
        self.pcm = pcm
        self.anchorAt = anchorAt
        self.clock = clock
        self.onClip = onClip
        self.channels = timeline.format.channels
        self.rate = Double(timeline.format.sampleRate)
        self.state = anchorAt == nil ? .playing : .priming
        self.pending = timeline.items.indices.sorted { timeline.items[$0].end < timeline.items[$1].end }
        self.silence = [Int16](repeating: 0, count: max(1, sink.periodFrames) * timeline.format.channels)
        if anchorAt == nil { timelineStart = 0 }
    }

    /// Writes what the device will take, reports finished clips, and says what to wait for.
    public func pump() -> PumpResult {
        guard state != .finished else { return .done }
        do throws(SinkError) {
            try fill()
            let delay = try sink.delay()
            playedFrames = written - delay
            reportFinished(played: playedFrames)
            if state == .tail && pending.isEmpty {
                sink.stop()
                state = .finished
                return .done
            }
            let now = clock()
            // The owner pumps again within the stall limit (the timeouts say so): a longer gap,
            // or time going backwards, is the wall clock being stepped (or a suspend), not the
            // device stalling. Start counting again.
            let stepped = lastPump.map { now < $0 || now - $0 > stallLimit + 1 } ?? false
            lastPump = now
            // Progress is a frame played or a frame taken. A device that does neither (its queue
            // frozen, or empty and refusing more: a sound server that stopped answering) stalls;
            // a clockless device waiting for the anchor is not expected to do either.
            let waiting = clockless && state == .priming
            if progress == nil || waiting || stepped || playedFrames > progress!.frames || written > progress!.written {
                progress = (playedFrames, written, now)
            } else if now - progress!.at >= stallLimit {
                sink.stop()
                fail(
                    SinkError(
                        .stalled,
                        "The sound device \"\(sink.deviceName)\" stopped taking audio for \(Self.seconds(now - progress!.at)) s "
                            + "(the sound server paused the stream, e.g. for a call, or stopped answering); the announcement was cut."))
                return .done
            }
            let stallIn = max(0, progress!.at + stallLimit - now)
            let timeout = nextTimeout(played: written - delay).map { min($0, stallIn) } ?? (waiting ? nil : stallIn)
            return .wait(timeout: timeout)
        } catch {
            fail(error)
            return .done
        }
    }

    /// Ends the announcement softly (SIGTERM, not a click): what the device already holds plays,
    /// then the next `frames` frames fall linearly to silence and nothing after them is written.
    /// Clips that end after that report `.interrupted`. Pump until `.done` to play the ramp.
    public func fadeOut(frames: Int) {
        guard state == .playing || state == .priming else { return cancel() }
        if state == .priming {
            // Not started: nothing of it has been heard; end on the silence already written.
            return cancel()
        }
        let end = min(pcm.count, pcmPosition + max(0, frames) * channels)
        let rampFrames = (end - pcmPosition) / max(1, channels)
        for frame in 0..<rampFrames {
            let gain = Float(rampFrames - frame) / Float(max(1, rampFrames + 1))
            for c in 0..<channels {
                let i = pcmPosition + frame * channels + c
                pcm[i] = Int16((Float(pcm[i]) * gain).rounded())
            }
        }
        pcm.removeSubrange(end...)
        let lastFrame = (timelineStart ?? 0) + end / max(1, channels)
        let cutOff = pending.filter { timeline.items[$0].end + (timelineStart ?? 0) > lastFrame }
        for index in cutOff { onClip(timeline.items[index], .interrupted) }
        pending.removeAll { cutOff.contains($0) }
    }

    /// Cuts the announcement: unplayed clips report `.interrupted`; queued frames are discarded.
    public func cancel() {
        guard state != .finished else { return }
        let played = written - ((try? sink.delay()) ?? 0)
        reportFinished(played: played)
        sink.stop()
        for index in pending { onClip(timeline.items[index], .interrupted) }
        pending.removeAll()
        state = .finished
    }

    static func seconds(_ s: Double) -> String {
        let tenths = Int((s * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private func fail(_ error: SinkError) {
        failure = error
        for index in pending { onClip(timeline.items[index], .failed(error)) }
        pending.removeAll()
        state = .finished
    }

    private func fill() throws(SinkError) {
        while true {
            switch state {
            case .priming:
                // Nothing written yet: the stream has not started and has no delay to report
                // (and some plugins answer an error rather than 0 then).
                let delay = written == 0 ? 0 : try sink.delay()
                if written > 0 && delay == 0 && !clockless {
                    zeroDelayWrites += 1
                    clockless = zeroDelayWrites >= 2
                }
                let owed = Int((((anchorAt ?? 0) - clock()) * rate).rounded()) - delay - timeline.anchorFrame
                if owed <= 0 {
                    startTimeline(delay: delay)
                    continue
                }
                if clockless { return }  // nothing to feed: wait for the anchor's instant
                // One period at a time, so that an early estimate (before the stream runs and
                // reports its true delay) can never commit more silence than is owed.
                if try writeSilence(max: min(owed, sink.periodFrames)) == 0 { return }
            case .playing:
                let remaining = pcm.count - pcmPosition
                if remaining == 0 {
                    state = .tail
                    continue
                }
                let accepted = try pcm.withUnsafeBufferPointer { buffer throws(SinkError) in
                    try sink.write(UnsafeBufferPointer(rebasing: buffer[pcmPosition...]))
                }
                if timelineStart == 0 && written == 0 && accepted > 0 {
                    predictedAnchorTime = clock() + Double(timeline.anchorFrame) / rate
                }
                pcmPosition += accepted * channels
                written += accepted
                if accepted == 0 { return }
            case .tail:
                // Keep a device with a clock fed with silence until the last clip has been heard:
                // letting it underrun would make its delay meaningless. A clockless sink is done.
                if pending.isEmpty { return }
                if try sink.delay() == 0 { return }
                if try writeSilence(max: sink.periodFrames) == 0 { return }
            case .finished:
                return
            }
        }
    }

    private func startTimeline(delay: Int) {
        timelineStart = written
        predictedAnchorTime = clock() + Double(delay + timeline.anchorFrame) / rate
        state = .playing
    }

    private func writeSilence(max frames: Int) throws(SinkError) -> Int {
        let count = min(frames, silence.count / channels)
        let accepted = try silence.withUnsafeBufferPointer { buffer throws(SinkError) in
            try sink.write(UnsafeBufferPointer(rebasing: buffer[0..<(count * channels)]))
        }
        written += accepted
        return accepted
    }

    private func reportFinished(played: Int) {
        guard let start = timelineStart else { return }
        while let first = pending.first, start + timeline.items[first].end <= played {
            pending.removeFirst()
            onClip(timeline.items[first], .finished)
        }
    }

    private func nextTimeout(played: Int) -> Double? {
        guard let start = timelineStart, let first = pending.first else {
            guard state == .priming else { return nil }
            if clockless, let anchorAt {
                // Wake at the anchor's instant (less the frames before the anchor).
                return max(0, anchorAt - clock() - Double(timeline.anchorFrame) / rate)
            }
            // Priming: wake in time to re-estimate before the anchor.
            return 0.05
        }
        let framesLeft = start + timeline.items[first].end - played
        return max(0, Double(framesLeft) / rate)
    }
}
