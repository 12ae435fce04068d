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
    /// The running executable (`/proc/self/exe`), nil when it cannot be read.
    public static var executable: String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") }

    /// Directories searched for a pack given by name, in order, each once:
    /// `$XDG_DATA_HOME/talking-clock/packs`; `PREFIX/share/talking-clock/packs` for an executable in
    /// `PREFIX/bin`; the checkout's `Sounds/` only for an executable SwiftPM built inside a checkout
    /// (`CHECKOUT/.build…/…/talking-clock`, `CHECKOUT/Package.swift` present); then `$XDG_DATA_DIRS`
    /// and `/usr/share`. Never a `Sounds/` beside an installed binary (`/usr/Sounds`, `/Sounds`) nor
    /// the working directory's: a directory someone else put there must not speak instead.
    public static func searchPaths(
        environment: [String: String] = ProcessInfo.processInfo.environment, executable: String? = PackLocator.executable
    ) -> [URL] {
        var paths: [URL] = []
        if let installed = UserPaths.packsDirectory(environment: environment) { paths.append(installed) }
        if let executable {
            let dir = URL(fileURLWithPath: executable).deletingLastPathComponent()
            // Installed: PREFIX/bin/talking-clock with packs in PREFIX/share/talking-clock/packs.
            paths.append(dir.deletingLastPathComponent().appendingPathComponent("share/talking-clock/packs"))
            // From a checkout: the packs of the checkout the binary was built in, and no other.
            if let checkout = checkout(ofBuildProduct: executable) { paths.append(checkout.appendingPathComponent("Sounds")) }
        }
        // The system's (the Debian package's /usr/share/talking-clock/packs): after the checkout's
        // Sounds/, so a binary built in a checkout speaks with the packs of that checkout.
        paths += UserPaths.systemPacksDirectories(environment: environment)
        var seen = Set<String>()
        return paths.map(\.standardizedFileURL).filter { seen.insert($0.path).inserted }
    }

    /// The checkout whose SwiftPM build directory holds `executable`: the parent of the nearest
    /// ancestor (at most 4 levels up) named `.build` or `.build-*`, if it has a `Package.swift`.
    /// (`.build/release/x`, `.build/x86_64-unknown-linux-gnu/debug/x`.)
    static func checkout(ofBuildProduct executable: String) -> URL? {
        var dir = URL(fileURLWithPath: executable).standardizedFileURL.deletingLastPathComponent()
        for _ in 0..<4 {
            let name = dir.lastPathComponent
            if name == ".build" || name.hasPrefix(".build-") {
                let checkout = dir.deletingLastPathComponent()
                let manifest = checkout.appendingPathComponent("Package.swift").path
                return FileManager.default.fileExists(atPath: manifest) ? checkout : nil
            }
            if dir.path == "/" { return nil }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// A pack given as a directory path (contains "/" or exists) or as a name.
    /// - Parameter executable: the binary whose place decides the search path (tests pass one
    ///   outside any checkout).
    public static func locate(
        _ pack: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String? = PackLocator.executable
    ) -> Result<URL, LocateError> {
        var isDir = false
        if pack.contains("/") || (FileManager.default.fileExists(atPath: pack, isDirectory: &isDir) && isDir) {
            return .success(URL(fileURLWithPath: pack))
        }
        let searched = searchPaths(environment: environment, executable: executable)
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
        return .failure(
            LocateError(
                pack: pack, searched: searched.map(\.path), fallback: fallback,
                userPacks: UserPaths.packsDirectory(environment: environment)?.path))
    }

    public struct LocateError: Error, CustomStringConvertible {
        public var pack: String
        public var searched: [String]
        /// The base language's pack also looked for (de-AT: "de").
        public var fallback: String?
        /// The user's own packs directory, resolved (`$XDG_DATA_HOME/talking-clock/packs`), where the
        /// message says to build or record a pack.
        public var userPacks: String
        public init(pack: String, searched: [String], fallback: String? = nil, userPacks: String? = nil) {
            self.pack = pack
            self.searched = searched
            self.fallback = fallback
            self.userPacks = userPacks ?? "$XDG_DATA_HOME/talking-clock/packs"
        }
        public var description: String {
            if let language = SpokenLanguages.canonical(pack), language == pack, language != SpokenLanguages.defaultTag {
                let names = "'\(pack)'" + (fallback.map { " or '\($0)' (the pack of the language it is a variant of)" } ?? "")
                let build = fallback ?? language
                return "No sound pack for language \(language) was found (looked for a pack named \(names) in \(searched.joined(separator: ", "))); install the language packs with scripts/install or the Debian package, build this one with 'scripts/make-pack --language \(build) --out \(userPacks)/\(build)' (its voice packages: scripts/install-deps --packs), record your own with 'talking-clock record-pack \(userPacks)/\(language) --language \(language)', or set 'pack' (or --pack) to a pack that speaks \(language)."
            }
            return "No sound pack named '\(pack)' was found (looked in \(searched.joined(separator: ", "))); pass --pack with the pack's directory, or install packs with scripts/install or the Debian package."
        }
    }
}
