/// When a frame written to snapserver's TCP source is heard at the snapclients: the model the
/// sink's `delay()` comes from. Pure (no clock, no socket): times are passed in.
///
/// What snapserver 0.26 does with a TCP source (read from its `AsioStream`/`PcmStream`, and
/// measured with `scripts/harness/snapcast`, docs/outputs.md):
/// - it reads whole chunks of `chunk_ms`. The first chunk after a (re)sync is stamped with the
///   instant its read completed minus one chunk; every later chunk is stamped one chunk after the
///   one before, and read one chunk after it (a timer, not the data, paces the reads);
/// - a client plays the sample stamped S at S + buffer (its own `latency` compensates its
///   speaker, not the stream);
/// - a (re)sync happens on a new connection (the first chunk sent), and when a read completes more
///   than one chunk after it was due (the source ran dry): then the chunk after the late one is
///   the first of the new sync. A meta stream does the same with the chunks it forwards.
///
/// So after a sync at wall time W on stream frame F (the first frame of the chunk read at W),
/// frame f is heard at `W − chunk + (f − F)/rate + buffer + latency`, and the server has read the
/// chunks up to `F + C·(⌊(now − W)/chunk⌋ + 1)` by `now`.
public struct SnapcastTiming: Hashable, Sendable {
    /// The stream's frame rate.
    public let rate: Int
    /// Frames per chunk (`chunk_ms` at `rate`).
    public let chunkFrames: Int
    /// Seconds from a sample's stamp to the moment it is heard (buffer + latency).
    public let playout: Double
    /// A sync: `frame` (a chunk start) was read at `time` and stamped `time − chunk`.
    public struct Sync: Hashable, Sendable {
        public var time: Double
        public var frame: Int
    }

    /// The last sync.
    public private(set) var sync: Sync?

    public init(rate: Int, chunkMs: Int, bufferMs: Int, latencyMs: Int = 0) {
        self.rate = rate
        chunkFrames = max(1, rate * chunkMs / 1000)
        playout = Double(bufferMs + latencyMs) / 1000
    }

    public var chunkSeconds: Double { Double(chunkFrames) / Double(rate) }

    /// Records that the read of the chunk starting at `frame` completed at `time` as the first of
    /// a sync (a new connection's first chunk, or the chunk after a late one).
    public mutating func synced(frame: Int, at time: Double) {
        sync = Sync(time: time, frame: frame)
    }

    /// When `frame` is heard at the clients (nil before the first sync).
    public func heard(frame: Int) -> Double? {
        guard let sync else { return nil }
        return sync.time - chunkSeconds + Double(frame - sync.frame) / Double(rate) + playout
    }

    /// When a frame sent as the first of a new sync at `time` is heard: `time − chunk + buffer`.
    public func heardIfSynced(at time: Double) -> Double { time - chunkSeconds + playout }

    /// When the server reads (at the earliest) the chunk that starts at `frame` (a chunk start
    /// after the sync frame).
    public func readTime(ofChunkAt frame: Int) -> Double? {
        guard let sync else { return nil }
        return sync.time + Double((frame - sync.frame) / chunkFrames) * chunkSeconds
    }

    /// Frames the server has read by `now` (chunk starts ≤ now since the sync, whole chunks).
    public func consumed(by now: Double) -> Int? {
        guard let sync else { return nil }
        let ticks = max(0, Int(((now - sync.time) / chunkSeconds).rounded(.down)) + 1)
        return sync.frame + ticks * chunkFrames
    }

    /// Whether sending the chunk that starts at `frame` at `now` makes the server resync: its read
    /// was due at `readTime` and completes more than one chunk later.
    public func resyncs(chunkAt frame: Int, sentAt now: Double) -> Bool {
        guard let due = readTime(ofChunkAt: frame) else { return false }
        return now > due + chunkSeconds
    }
}
