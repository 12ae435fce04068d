import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// Where sound packs are found, so the binary works both from the repository and installed.
public enum PackLocator {
    /// Directories searched for a pack given by name, in order, each once.
    public static func searchPaths(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        var paths: [URL] = []
        if let installed = UserPaths.packsDirectory(environment: environment) { paths.append(installed) }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
            // Installed: PREFIX/bin/talking-clock with packs in PREFIX/share/talking-clock/packs.
            paths.append(dir.deletingLastPathComponent().appendingPathComponent("share/talking-clock/packs"))
            // From a checkout: .build/<config>/talking-clock, with the packs in Sounds/ above it.
            for _ in 0..<5 {
                paths.append(dir.appendingPathComponent("Sounds"))
                dir = dir.deletingLastPathComponent()
            }
        }
        // The system's (the Debian package's /usr/share/talking-clock/packs): after the checkout's
        // Sounds/, so a binary built in a checkout speaks with the packs of that checkout.
        paths += UserPaths.systemPacksDirectories(environment: environment)
        paths.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Sounds"))
        // Run from the repository, the working directory's Sounds/ is also one above the binary.
        var seen = Set<String>()
        return paths.map(\.standardizedFileURL).filter { seen.insert($0.path).inserted }
    }

    /// A pack given as a directory path (contains "/" or exists) or as a name.
    public static func locate(_ pack: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<URL, LocateError> {
        var isDir = false
        if pack.contains("/") || (FileManager.default.fileExists(atPath: pack, isDirectory: &isDir) && isDir) {
            return .success(URL(fileURLWithPath: pack))
        }
        let searched = searchPaths(environment: environment)
        // A regional variant with no pack of its own speaks with its base language's pack
        // (de-AT with "de"): every directory is searched for the variant's pack first.
        let fallback = SpokenLanguages.packFallback(of: pack)
        for name in [pack] + (fallback.map { [$0] } ?? []) {
            for base in searched {
                let candidate = base.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("pack.json").path) {
                    return .success(candidate)
                }
            }
        }
        return .failure(LocateError(pack: pack, searched: searched.map(\.path), fallback: fallback))
    }

    public struct LocateError: Error, CustomStringConvertible {
        public var pack: String
        public var searched: [String]
        /// The base language's pack also looked for (de-AT: "de").
        public var fallback: String?
        public init(pack: String, searched: [String], fallback: String? = nil) {
            self.pack = pack
            self.searched = searched
            self.fallback = fallback
        }
        public var description: String {
            if let language = SpokenLanguages.canonical(pack), language == pack, language != SpokenLanguages.defaultTag {
                let names = "'\(pack)'" + (fallback.map { " or '\($0)' (the pack of the language it is a variant of)" } ?? "")
                let build = fallback ?? language
                return "No sound pack for language \(language) was found (looked for a pack named \(names) in \(searched.joined(separator: ", "))); install the language packs with scripts/install or the Debian package, build this one with 'scripts/make-pack --language \(build) --out ~/.local/share/talking-clock/packs/\(build)' (its voice packages: scripts/install-deps --packs), record your own with 'talking-clock record-pack ~/.local/share/talking-clock/packs/\(language) --language \(language)', or set 'pack' (or --pack) to a pack that speaks \(language)."
            }
            return "No sound pack named '\(pack)' was found (looked in \(searched.joined(separator: ", "))); pass --pack with the pack's directory, or install packs with scripts/install or the Debian package."
        }
    }
}
