import ConfigFiles
import TalkingClockCore
import TimeZoneRules

extension Zone {
    /// A zone of the system's tz database (`/usr/share/zoneinfo`), or anything `TZ` takes, for
    /// tests: `Zone(identifier: "America/New_York")!`. Nil if it cannot be resolved.
    public init?(identifier: String) {
        guard let zone = try? TestZones.lookup.zone(identifier, label: identifier, fix: "") else { return nil }
        self = zone
    }
}

public enum TestZones {
    /// Reads `/usr/share/zoneinfo` (tests pass it where the daemon passes `ZoneResolver.lookup()`).
    public static let lookup = ZoneLookup(tzdir: nil) { path in
        do { return .bytes(try ZoneFile.read(path: path)) } catch { return .missing }
    }
}
