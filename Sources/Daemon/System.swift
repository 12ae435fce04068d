import Foundation
import Glibc
import TalkingClockCore
import TimeZoneRules

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
    /// An empty explicit name and a `TZ` that does not say what `date` would say are errors.
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ZoneError) -> TimeZone
    {
        if let explicit {
            guard !explicit.isEmpty else {
                throw ZoneError(
                    description:
                        "--tz is empty: give an IANA time zone name such as Europe/London or America/New_York, or leave --tz out to follow the system zone."
                )
            }
            return try named(explicit, source: "--tz / zone")
        }
        if let tz = environment["TZ"] {
            let directory = environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultZoneinfo
            return try fromTZ(tz, zoneinfo: directory)
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
        return utc
    }

    public static func named(_ name: String, source: String) throws(ZoneError) -> TimeZone {
        guard let zone = TimeZone(identifier: name) else {
            throw ZoneError(
                description:
                    "Unknown time zone \"\(name)\" (\(source)): use an IANA name such as Europe/London or America/New_York ('timedatectl list-timezones' lists them)."
            )
        }
        return zone
    }

    static let defaultZoneinfo = "/usr/share/zoneinfo"
    static let utc = TimeZone(identifier: "UTC")!

    /// The zone a `TZ` value means, read the way glibc reads it so that the clock says what `date`
    /// says, or an error naming the value and the fix where it cannot (glibc silently uses UTC for
    /// a value it cannot read; the clock refuses instead).
    ///
    /// As glibc: empty (or a bare `:`) is UTC; a leading `:` is dropped; a zone file is looked for
    /// first (an absolute path, or a name under `zoneinfo`); otherwise the value is a POSIX TZ
    /// string. One without daylight time (`EST5`, `UTC+5`, `<+0530>-5:30`) is a fixed offset, west
    /// of Greenwich when positive. One with daylight-saving rules is only accepted when a tz
    /// database zone of its name (`EST5EDT`, or its standard name: `CET`) ends with the same rules.
    static func fromTZ(_ value: String, zoneinfo: String) throws(ZoneError) -> TimeZone {
        var text = value
        if text.hasPrefix(":") { text.removeFirst() }
        if text.isEmpty { return utc }
        let fix =
            "Set TZ (or `zone` in the config) to a zone name such as Europe/London ('timedatectl list-timezones' lists them), or unset TZ to follow /etc/localtime."
        let path = text.hasPrefix("/") ? text : zoneinfo + "/" + text
        if isZoneFile(path) {
            let given = text.hasPrefix("/") ? zoneName(fromPath: path, zoneinfo: zoneinfo) : text
            let resolved = zoneName(
                fromPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path, zoneinfo: zoneinfo)
            for name in [given, resolved].compactMap({ $0 }) {
                if let zone = TimeZone(identifier: name.hasPrefix("posix/") ? String(name.dropFirst(6)) : name) {
                    return zone
                }
            }
            throw ZoneError(
                description:
                    "TZ='\(value)' names the zone file \(path), which is not a zone talking-clock knows by name. \(fix)"
            )
        }
        if let rule = try? POSIXTZString(text) {
            if let offset = rule.fixedOffset {
                guard let zone = TimeZone(secondsFromGMT: offset) else {
                    throw ZoneError(
                        description:
                            "TZ='\(value)' is an offset of \(abs(offset) / 3600) hours from Greenwich, more than any time zone has. \(fix)"
                    )
                }
                return zone
            }
            // A zone of the tz database whose rules are the same: "EST5EDT" itself, or "CET" for
            // "CET-1CEST,M3.5.0,M10.5.0/3". Its past may differ; its present and future do not.
            let prefix = String(text.prefix { $0 != "," })
            for name in [prefix, rule.standard.name] where !name.contains("/") && !name.hasPrefix(".") {
                let file = zoneinfo + "/" + name
                if isZoneFile(file), let footer = footer(ofZoneFile: file), (try? POSIXTZString(footer)) == rule,
                    let zone = TimeZone(identifier: name)
                {
                    return zone
                }
            }
            throw ZoneError(
                description:
                    "TZ='\(value)' is a POSIX rule string with daylight-saving rules, which talking-clock does not read yet; set TZ (or `zone` in the config) to a zone name such as America/New_York."
            )
        }
        // A zone name with no file for it (no tzdata installed): Foundation's own data still knows it.
        if !text.hasPrefix("/"), let zone = TimeZone(identifier: text) { return zone }
        throw ZoneError(
            description:
                "TZ='\(value)' is not a time zone: there is no zone file \(path) and it is not a POSIX TZ string such as EST5 (the C library would use UTC without a word). \(fix)"
        )
    }

    /// Whether `path` is a regular file (after symlinks) that starts like a TZif file.
    static func isZoneFile(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data("TZif".utf8)
    }

    /// The POSIX TZ string a TZif file (version 2 or later) ends with, between its last two newlines.
    static func footer(ofZoneFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count < 1 << 20, data.count > 6,
            data.prefix(4) == Data("TZif".utf8), data[data.startIndex + 4] >= UInt8(ascii: "2"), data.last == 0x0A
        else { return nil }
        let body = data.dropLast()
        guard let newline = body.lastIndex(of: 0x0A) else { return nil }
        return String(data: body[(newline + 1)...], encoding: .utf8)
    }

    /// The zone name of a file under `zoneinfo` (or any `…/zoneinfo/` directory).
    static func zoneName(fromPath path: String, zoneinfo: String) -> String? {
        if path.hasPrefix(zoneinfo + "/") { return String(path.dropFirst(zoneinfo.count + 1)) }
        return zoneName(fromPath: path)
    }

    static func zoneName(fromPath path: String) -> String? {
        guard let range = path.range(of: "zoneinfo/") else { return nil }
        return String(path[range.upperBound...])
    }
}
