/// A wall clock advanced by hand. `pending` lists what still waits on it, so a test can assert
/// at the end that nothing is left waiting (swift-clocks' `TestClock`).
public final class ManualClock {
    public private(set) var now: Double
    public private(set) var pending: [(id: Int, at: Double)] = []
    private var nextID = 0

    public init(_ start: Double) { now = start }

    /// Registers a wait until `instant`; returns its id.
    @discardableResult
    public func schedule(at instant: Double) -> Int {
        nextID += 1
        pending.append((nextID, instant))
        return nextID
    }

    public func cancel(_ id: Int) { pending.removeAll { $0.id == id } }

    /// Advances to `instant` (never backwards) and returns the ids whose time has come.
    public func advance(to instant: Double) -> [Int] {
        now = max(now, instant)
        let due = pending.filter { $0.at <= now }.map(\.id)
        pending.removeAll { $0.at <= now }
        return due
    }

    /// Steps the clock like `date -s` or NTP: backwards allowed.
    public func set(_ instant: Double) { now = instant }
}
