import Foundation

/// A seeded generator (SplitMix64): the same answers in every run, chosen by the test's seed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Waits until `condition` holds, looking every `poll` seconds, at most `timeout` seconds; returns
/// whether it held. For tests that wait for an event another process or thread makes happen (a
/// log line, a reply, a file), never for a fixed time.
@discardableResult
public func waitUntil(timeout: Double, poll: Double = 0.005, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        guard Date() < deadline else { return false }
        usleep(useconds_t(max(1, poll * 1_000_000)))
    }
}
