import Playback
import TalkingClockCore

/// A sink that records every frame written and plays on a clock the test advances by hand.
///
/// `capacity` is the device buffer: `write` accepts at most `capacity − delay` frames, like a
/// real device. `advance(frames:)` "plays" frames, reducing the delay. With `paced == false` it
/// behaves like ALSA's file device: everything is accepted and the delay is always 0.
public final class RecordingSink: AudioSink {
    public let deviceName: String
    public let format: StreamFormat
    public let periodFrames: Int
    public let capacity: Int
    public let paced: Bool

    /// Every sample written, in order.
    public private(set) var samples: [Int16] = []
    /// Number of frames written but not yet played.
    public private(set) var queued = 0
    public private(set) var stopped = false
    public private(set) var closed = false
    /// Throws this from the next write/delay, to simulate a device that disappears.
    public var failNext: SinkError?

    public init(format: StreamFormat, capacity: Int = 2205, periodFrames: Int = 220, paced: Bool = true, name: String = "recording") {
        self.format = format
        self.capacity = capacity
        self.periodFrames = periodFrames
        self.paced = paced
        self.deviceName = name
    }

    public var writtenFrames: Int { samples.count / format.channels }

    public func write(_ frames: UnsafeBufferPointer<Int16>) throws(SinkError) -> Int {
        if let failNext { throw failNext }
        let offered = frames.count / format.channels
        let accepted = paced ? min(offered, capacity - queued) : offered
        samples.append(contentsOf: frames[0..<(accepted * format.channels)])
        if paced { queued += accepted }
        return accepted
    }

    public func delay() throws(SinkError) -> Int {
        if let failNext { throw failNext }
        return queued
    }

    /// Plays `frames` (or everything queued, if fewer).
    public func advance(frames: Int) { queued = max(0, queued - frames) }

    public func pollDescriptors() -> [PollDescriptor] { [] }
    public func acknowledge(revents: [Int16]) {}
    public func stop() {
        stopped = true
        queued = 0
    }
    public func close() { closed = true }
}
