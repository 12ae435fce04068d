/// Where the tz database keeps a zone's TZif file: `$TZDIR/<name>`, by default under
/// `/usr/share/zoneinfo`, as glibc and Go look it up.
///
/// Pure: the caller passes `TZDIR`'s value. Only names inside the directory are resolved: a
/// name cannot climb out of it (`..`), start at the root, or hide a NUL.
public enum ZoneDirectory {
    /// Where Debian's `tzdata` installs the database.
    public static let defaultPath = "/usr/share/zoneinfo"

    /// The path of zone `name` (`Europe/Berlin`) under `tzdir` (`TZDIR`; nil or empty for
    /// `defaultPath`). Whether a file is there is the caller's question.
    public static func path(ofZone name: String, tzdir: String? = nil) throws(ZoneNameError) -> String {
        func refuse(_ why: String) -> ZoneNameError {
            ZoneNameError(description: "The zone name \"\(name)\" \(why); use a name such as Europe/Berlin.")
        }
        guard !name.isEmpty else {
            throw ZoneNameError(description: "The zone name is empty; use a name such as Europe/Berlin.")
        }
        guard !name.utf8.contains(0) else { throw refuse("contains a NUL byte") }
        guard !name.hasPrefix("/") else { throw refuse("is an absolute path, not a name inside the zone directory") }
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            switch component {
            case "": throw refuse("has an empty path component")
            case ".", "..": throw refuse("has a '\(component)' component, which would leave the zone directory")
            default: continue
            }
        }
        var directory = tzdir.flatMap { $0.isEmpty ? nil : $0 } ?? defaultPath
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        return directory == "/" ? "/" + name : directory + "/" + name
    }
}

/// Why a string cannot name a zone file.
public struct ZoneNameError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
}
