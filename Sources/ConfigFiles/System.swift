import FoundationEssentials
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

/// Finds the zone to use, re-reading the system setting each time it is asked (a long-running
/// daemon follows `timedatectl set-timezone` and `tzdata` updates). Zone rules come from the
/// system's tz database: TZif files under `$TZDIR` (default `/usr/share/zoneinfo`), read here and
/// parsed by `TimeZoneRules`.
public enum ZoneResolver {
    /// What ends every refusal.
    static let fix =
        "Set TZ (or `zone` in the config, or --tz) to a zone name such as Europe/London ('timedatectl list-timezones' lists them) or a POSIX TZ string such as CET-1CEST,M3.5.0,M10.5.0/3, or unset TZ to follow /etc/localtime."

    /// The system's tz database: `$TZDIR`, else /usr/share/zoneinfo.
    public static func lookup(environment: [String: String] = ProcessInfo.processInfo.environment) -> ZoneLookup {
        ZoneLookup(tzdir: environment["TZDIR"], read: readZoneFile)
    }

    /// `--tz` (or another explicit value, same syntax as `TZ`) → `$TZ` → `/etc/localtime` → UTC.
    /// An empty explicit value and a `TZ` that cannot be read as glibc reads it are errors.
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ZoneError) -> Zone
    {
        let zones = lookup(environment: environment)
        if let explicit {
            guard !explicit.isEmpty else {
                throw ZoneError(
                    "--tz is empty: give a time zone name such as Europe/London or America/New_York (or anything TZ takes, such as EST5EDT,M3.2.0,M11.1.0), or leave --tz out to follow the system zone."
                )
            }
            return try suggesting(explicit, label: "--tz '\(explicit)'", zones: zones)
        }
        if let tz = environment["TZ"] {
            return try suggesting(tz, label: "TZ='\(tz)'", zones: zones)
        }
        return try systemZone(zones: zones)
    }

    /// `zones.zone`, with the nearest zone name of the database in the refusal of a value that
    /// looks like a misspelt name (`Europe/Londn`: did you mean 'Europe/London'?), as the
    /// config's `zone` already has.
    static func suggesting(_ value: String, label: String, zones: ZoneLookup) throws(ZoneError) -> Zone {
        do { return try zones.zone(value, label: label, fix: fix) } catch {
            let name = value.hasPrefix(":") ? String(value.dropFirst()) : value
            let prefix = "\(label) is not a time zone"
            guard !name.hasPrefix("/"), name.contains(where: \.isLetter), error.description.hasPrefix(prefix),
                let near = Suggestion.closest(to: name, in: zones.knownNames()), near != name
            else { throw error }
            throw ZoneError(prefix + " (did you mean '\(near)'?)" + error.description.dropFirst(prefix.count))
        }
    }

    /// `/etc/localtime`, as glibc reads it with `TZ` unset; UTC without it. Shown by the name its
    /// symlink points to (`/usr/share/zoneinfo/Europe/London` → Europe/London), else the name in
    /// `/etc/timezone`, else "localtime".
    static func systemZone(zones: ZoneLookup, localtime: String = "/etc/localtime") throws(ZoneError) -> Zone {
        // Something that is there but is no file (a named pipe, a directory, a device) is an
        // error by name, not UTC without a word; only nothing at all (or a dangling link) is UTC.
        var st = stat()
        if stat(localtime, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            let kind: String
            switch st.st_mode & S_IFMT {
            case S_IFIFO: kind = "a named pipe"
            case S_IFDIR: kind = "a directory"
            case S_IFCHR, S_IFBLK: kind = "a device"
            case S_IFSOCK: kind = "a socket"
            default: kind = "not a regular file"
            }
            throw ZoneError(
                "The system zone file \(localtime) is \(kind), not a zone file. Fix it with 'timedatectl set-timezone NAME' (or link it to a file under /usr/share/zoneinfo), or set TZ.")
        }
        switch readZoneFile(localtime) {
        case .missing: return .utc
        case .unreadable(let reason):
            throw ZoneError("The system zone file \(localtime) cannot be read (\(reason)). Fix it with 'timedatectl set-timezone NAME', or set TZ.")
        case .bytes(let bytes):
            let rules: ZoneRules
            do { rules = try ZoneRules(TZif(bytes: bytes)) } catch {
                throw ZoneError(
                    "The system zone file \(localtime) is not a usable zone file (\(error)). Fix it with 'timedatectl set-timezone NAME', or set TZ.")
            }
            var name = "localtime"
            if let target = symlinkTarget(localtime), let zone = ZoneLookup.zoneName(fromPath: target) {
                name = zone
            } else if case .bytes(let text) = readZoneFile("/etc/timezone") {
                let trimmed = text.split(whereSeparator: { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }).first
                if let trimmed { name = String(decoding: trimmed, as: UTF8.self) }
            }
            return Zone(identifier: name, rules: rules, file: localtime)
        }
    }

    /// A regular file's bytes (at most `ZoneFile.maximumSize`); `.missing` if nothing is at
    /// `path`; `.unreadable` with the reason for something that is there but no file to read (a
    /// device such as /dev/zero, a named pipe, a directory, a loop of symbolic links, no
    /// permission). glibc reads the value as a POSIX string in each case, and so does the caller;
    /// the reason only makes the refusal name the right cause ("there is no zone file /dev/zero"
    /// was wrong).
    @Sendable static func readZoneFile(_ path: String) -> ZoneFileLookup {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: return .missing
            case ELOOP: return .unreadable("a loop of symbolic links")
            default: return .unreadable(String(cString: strerror(code)))
            }
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .unreadable("it is a directory, not a file")
        case S_IFCHR, S_IFBLK: return .unreadable("it is a device, not a file")
        case S_IFIFO: return .unreadable("it is a named pipe, not a file")
        case S_IFSOCK: return .unreadable("it is a socket, not a file")
        default: return .unreadable("it is not a regular file")
        }
        do { return .bytes(try ZoneFile.read(path: path)) } catch { return .unreadable(error.reason) }
    }

    static func symlinkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The file the daemon watches for `zone`: its zone file with every symlink resolved (a
    /// `tzdata` update replaces /usr/share/zoneinfo/Europe/London, not /etc/localtime).
    public static func realFile(of zone: Zone) -> String? {
        guard let file = zone.file, let resolved = realpath(file, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
