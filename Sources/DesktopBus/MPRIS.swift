import FoundationEssentials
import Glibc

/// MPRIS media players (`org.mpris.MediaPlayer2.*` on the session bus): which are playing, and
/// pausing them for an announcement without resuming what the user paused.
public enum MPRIS {
    public static let prefix = "org.mpris.MediaPlayer2."
    static let path = "/org/mpris/MediaPlayer2"
    static let player = "org.mpris.MediaPlayer2.Player"

    /// The players whose `PlaybackStatus` is "Playing". A player that does not answer in time
    /// counts as not playing.
    public static func playing(on bus: SessionBus, timeout: Double) throws(SessionBus.Failure) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        return try bus.names(withPrefix: prefix, timeout: timeout).filter { name in
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            return (try? status(of: name, on: bus, timeout: left)) == "Playing"
        }
    }

    /// `PlaybackStatus`: "Playing", "Paused" or "Stopped".
    public static func status(of name: String, on bus: SessionBus, timeout: Double) throws(SessionBus.Failure) -> String {
        try bus.string(name, path, player, "PlaybackStatus", timeout: timeout)
    }

    /// Sends `Pause` to each player that is playing now; returns those it paused (the ones to
    /// resume later).
    public static func pause(_ names: [String], on bus: SessionBus, timeout: Double) -> [String] {
        names.filter { name in
            guard (try? status(of: name, on: bus, timeout: timeout)) == "Playing" else { return false }
            return (try? bus.call(name, path, player, "Pause", timeout: timeout)) != nil
        }
    }

    /// Sends `Play` to each player the clock paused that is still "Paused": a player the user
    /// stopped, or paused and played again, or that went away, is left alone (resuming a live
    /// stream the user paused meanwhile is a known bug of other clocks). Returns those resumed.
    @discardableResult
    public static func resume(_ paused: [String], on bus: SessionBus, timeout: Double) -> [String] {
        paused.filter { name in
            guard (try? status(of: name, on: bus, timeout: timeout)) == "Paused" else { return false }
            return (try? bus.call(name, path, player, "Play", timeout: timeout)) != nil
        }
    }
}
