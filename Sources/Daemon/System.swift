import Foundation
import Glibc
import TalkingClockCore

/// The real wall clock (`CLOCK_REALTIME`), in seconds since the epoch.
public enum WallClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A bad `--tz`, config zone or system zone setting.
public struct ZoneError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// Finds the zone to use, re-reading the system setting each time (a long-running daemon must
/// not rely on `TimeZone.current`, which is cached for the life of the process).
public enum ZoneResolver {
    /// Explicit name (option or config) → `$TZ` → `/etc/localtime` → `/etc/timezone` → UTC.
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ZoneError) -> TimeZone {
        if let explicit, !explicit.isEmpty {
            return try named(explicit, source: "--tz / zone")
        }
        if var tz = environment["TZ"], !tz.isEmpty {
            if tz.hasPrefix(":") { tz.removeFirst() }
            if tz.hasPrefix("/") { tz = zoneName(fromPath: tz) ?? tz }
            if let zone = TimeZone(identifier: tz) { return zone }
        }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime"),
            let name = zoneName(fromPath: target), let zone = TimeZone(identifier: name)
        {
            return zone
        }
        if let text = try? String(contentsOfFile: "/etc/timezone", encoding: .utf8),
            let zone = TimeZone(identifier: text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            return zone
        }
        return TimeZone(identifier: "UTC")!
    }

    public static func named(_ name: String, source: String) throws(ZoneError) -> TimeZone {
        guard let zone = TimeZone(identifier: name) else {
            throw ZoneError(description: "Unknown time zone \"\(name)\" (\(source)): use an IANA name such as Europe/London or America/New_York ('timedatectl list-timezones' lists them).")
        }
        return zone
    }

    static func zoneName(fromPath path: String) -> String? {
        guard let range = path.range(of: "zoneinfo/") else { return nil }
        return String(path[range.upperBound...])
    }
}
