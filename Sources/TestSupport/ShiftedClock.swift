import Foundation

/// A simulated boundary chosen by the test, not by the hour the test happens to run at: the
/// daemon is started with `--clock-offset` so that its clock reads `boundary` at `realInstant`,
/// a few seconds from now. Tests that measure real time pick the hardest instant explicitly
/// (twelve strokes, the longest phrase), so they pass or fail the same way at 03:00 and at 21:00.
public struct ShiftedClock: Sendable {
    /// 2026-07-01T12:00:00Z: in UTC, twelve hour strokes and "noon" (the longest hour chime).
    public static let noon = 1_782_907_200
    /// 2026-07-01T12:45:00Z: in UTC, "twelve forty-five PM", the longest quarter phrase.
    public static let twelveFortyFive = 1_782_909_900
    /// 2026-07-01T12:07:30Z: in UTC, 7.5 minutes from the nearest boundary either way.
    public static let betweenQuarters = 1_782_907_650

    /// The simulated instant (Unix seconds) the test is about.
    public let boundary: Int
    /// The real CLOCK_REALTIME instant at which the shifted clock reads `boundary`.
    public let realInstant: Double

    /// The simulated clock minus the real one, in seconds rounded to the millisecond (as passed to
    /// the daemon).
    public let offset: Double

    /// Puts `boundary` `secondsAhead` seconds from now (negative: that long ago).
    public init(boundary: Int, secondsAhead: Double, now: Double = Date().timeIntervalSince1970) {
        self.boundary = boundary
        // Rounded to what `arguments` prints, so the test measures against the very instant the
        // daemon computes.
        offset = ((Double(boundary) - (now + secondsAhead)) * 1000).rounded() / 1000
        realInstant = Double(boundary) - offset
    }

    /// Seconds from now to `realInstant` (negative once it passed).
    public var secondsLeft: Double { realInstant - Date().timeIntervalSince1970 }

    /// `--clock-offset=N`, with the `=` so that a negative offset is not taken for an option.
    public var arguments: [String] { ["--clock-offset=" + String(format: "%.3f", offset)] }
}
