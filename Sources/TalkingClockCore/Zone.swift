import TimeZoneRules

/// The zone the clock speaks in: the rules of the system's tz database (or of a POSIX `TZ`
/// string) and the name it is shown by in messages and `status`.
///
/// A pure value: the core never reads a zone file. The edges (the daemon's `ZoneResolver`, the
/// command line's `--tz`) read `$TZDIR` and hand the bytes to `ZoneLookup`.
public struct Zone: Hashable, Sendable, CustomStringConvertible {
    /// `Europe/London`, or the `TZ` string itself (`EST5EDT,M3.2.0,M11.1.0`).
    public var identifier: String
    public var rules: ZoneRules
    /// The TZif file the rules were read from; nil for a POSIX `TZ` string. The daemon watches it
    /// so that a `tzdata` update is picked up without a restart.
    public var file: String?

    public init(identifier: String, rules: ZoneRules, file: String? = nil) {
        self.identifier = identifier
        self.rules = rules
        self.file = file
    }

    /// Coordinated Universal Time: what an empty `TZ` means.
    public static let utc = Zone(
        identifier: "UTC", rules: ZoneRules(POSIXTZString(standard: .init(name: "UTC", utcOffset: 0))))

    /// Seconds east of UTC in force at `instant`.
    @inline(__always) public func offset(at instant: Int) -> Int { rules.offset(at: instant).utcOffset }

    public var description: String { identifier }
}

/// A zone setting (`TZ`, `--tz`, `zone` in the config) that cannot be read, phrased for the user:
/// it names the value and the fix.
public struct ZoneError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// What reading a zone file found: the edge reads, the core interprets.
public enum ZoneFileLookup: Sendable {
    case bytes([UInt8])
    /// No regular file at that path.
    case missing
    /// A file that could not be read, and why.
    case unreadable(String)
}

/// Turns a zone setting into a `Zone` the way glibc's `tzset` reads `TZ`, with the file reading
/// injected so that the interpretation stays pure:
///
/// - empty, or a bare `:`, is UTC; a leading `:` is dropped;
/// - an absolute path, or a name under `tzdir` (`$TZDIR`, default `/usr/share/zoneinfo`), that
///   holds a TZif file is that zone (its transitions, then the POSIX rule of its footer);
/// - otherwise a POSIX TZ string: `EST5`, `UTC+5` (5 hours WEST), `<+0330>-3:30`,
///   `CET-1CEST,M3.5.0,M10.5.0/3`; one with a daylight name and no rules (`XXX5YYY`) follows
///   the US rules (second Sunday of March to first Sunday of November, 02:00);
/// - anything else is refused (glibc would silently use UTC).
public struct ZoneLookup: Sendable {
    /// `$TZDIR`, or `ZoneDirectory.defaultPath` when it is unset or empty.
    public var tzdir: String
    private let read: @Sendable (String) -> ZoneFileLookup

    public init(tzdir: String?, read: @escaping @Sendable (String) -> ZoneFileLookup) {
        self.tzdir = tzdir.flatMap { $0.isEmpty ? nil : $0 } ?? ZoneDirectory.defaultPath
        self.read = read
    }

    /// Knows no zone files: only POSIX strings resolve.
    public static let none = ZoneLookup(tzdir: nil) { _ in .missing }

    /// The zone `value` means. `label` names the value in errors (`TZ='Mars/Olympus'`); `fix`
    /// ends them.
    public func zone(_ value: String, label: String, fix: String) throws(ZoneError) -> Zone {
        var text = value
        if text.hasPrefix(":") { text.removeFirst() }
        if text.isEmpty { return .utc }
        var path: String?
        var fileProblem: String?
        if text.hasPrefix("/") {
            path = text
        } else {
            do { path = try ZoneDirectory.path(ofZone: text, tzdir: tzdir) } catch {
                var why = error.description
                if why.hasSuffix(".") { why.removeLast() }
                fileProblem = "it names no file inside the zone directory (\(why))"
            }
        }
        if let path {
            switch read(path) {
            case .bytes(let bytes) where bytes.starts(with: Array("TZif".utf8)):
                let rules: ZoneRules
                do { rules = try ZoneRules(TZif(bytes: bytes)) } catch let error as TZifError {
                    throw ZoneError("\(label) names the zone file \(path), which is damaged (\(error.description)). \(fix)")
                } catch let error as ZoneRulesError {
                    throw ZoneError("\(label) names the zone file \(path): \(error.description) \(fix)")
                } catch {
                    throw ZoneError("\(label) names the zone file \(path), which cannot be read (\(error)). \(fix)")
                }
                return Zone(identifier: Self.name(ofPath: path, given: text, tzdir: tzdir), rules: rules, file: path)
            case .bytes:
                fileProblem = "\(path) is not a zone file (it does not start with \"TZif\")"
            case .missing:
                fileProblem = "there is no zone file \(path)"
            case .unreadable(let reason):
                fileProblem = "the zone file \(path) cannot be read (\(reason))"
            }
        }
        let rule: POSIXTZString
        do { rule = try POSIXTZString(text) } catch {
            throw ZoneError(
                "\(label) is not a time zone: \(fileProblem ?? "there is no such zone file"), and it is not a POSIX TZ "
                    + "string such as EST5 or CET-1CEST,M3.5.0,M10.5.0/3 either: \(error.description). The C library "
                    + "would use UTC without a word; talking-clock refuses. \(fix)")
        }
        return Zone(identifier: text, rules: ZoneRules(rule))
    }

    /// The rules of `zone`'s file read again (after a `tzdata` update); nil if the zone has no
    /// file or the file cannot be read now.
    public func reread(_ zone: Zone) -> Zone? {
        guard let path = zone.file, case .bytes(let bytes) = read(path),
            let tzif = try? TZif(bytes: bytes), let rules = try? ZoneRules(tzif)
        else { return nil }
        return Zone(identifier: zone.identifier, rules: rules, file: path)
    }

    /// The zone and link names of the database (`tzdata.zi`), for "did you mean"; empty if it
    /// cannot be read.
    public func knownNames() -> [String] {
        guard case .bytes(let bytes) = read(tzdir + "/tzdata.zi") else { return [] }
        var names: [String] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard let kind = fields.first?.first else { continue }
            if kind == UInt8(ascii: "Z"), fields.count > 1 {
                names.append(String(decoding: fields[1], as: UTF8.self))
            } else if kind == UInt8(ascii: "L"), fields.count > 2 {
                names.append(String(decoding: fields[2], as: UTF8.self))
            }
        }
        return names
    }

    /// How a zone read from `path` is shown: the name as given, or for a path the part after
    /// the zone directory (`/usr/share/zoneinfo/Asia/Kathmandu` → `Asia/Kathmandu`).
    static func name(ofPath path: String, given: String, tzdir: String) -> String {
        guard given.hasPrefix("/") else { return given }
        let directory = tzdir.hasSuffix("/") ? tzdir : tzdir + "/"
        if path.hasPrefix(directory) { return String(path.dropFirst(directory.count)) }
        return Self.zoneName(fromPath: path) ?? path
    }

    /// The zone name in a path under any `…/zoneinfo/` directory (`/usr/share/zoneinfo/Etc/UTC`
    /// → `Etc/UTC`), as `/etc/localtime` links name the system zone.
    public static func zoneName(fromPath path: String) -> String? {
    let marker = Array("zoneinfo/".utf8)
    let bytes = Array(path.utf8)
    guard bytes.count > marker.count else { return nil }
    for start in 0...(bytes.count - marker.count) where bytes[start..<(start + marker.count)].elementsEqual(marker) {
        let rest = bytes[(start + marker.count)...]
        return rest.isEmpty ? nil : String(decoding: rest, as: UTF8.self)
    }
    return nil
}
}
