/// What `talking-clock --version` prints: `talking-clock 0.1.0 (commit 1a2b3c4, release)`.
///
/// `commit` is generated at build time by Plugins/BuildInfo ("unknown" when the source is not a
/// git checkout); the build type is the compiler's: SwiftPM defines DEBUG for `-c debug` only.
/// All constants: `--version` and start-up never run git.
enum BuildInfo {
    static let version = "0.1.0"

    #if DEBUG
        static let buildType = "debug"
    #else
        static let buildType = "release"
    #endif

    static var versionLine: String { "talking-clock \(version) (commit \(commit), \(buildType))" }
}
