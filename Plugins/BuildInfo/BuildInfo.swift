import Foundation
import PackagePlugin

/// Generates `GitCommit.swift` (`BuildInfo.commit`) for `talking-clock --version`, with
/// build-info.sh beside this file: `git rev-parse --short HEAD`, or "unknown" outside a git
/// checkout (a source tarball).
///
/// SwiftPM has no string defines, so the commit is generated source. It is a prebuild command:
/// the commit changes without any file SwiftPM tracks changing (a commit, a checkout), so it
/// runs at every build (one `sh` and one `git`, a few milliseconds); the script rewrites the file
/// only when the commit differs, so an unchanged commit recompiles nothing. Nothing runs at run
/// time.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        return [
            .prebuildCommand(
                displayName: "Reading the git commit for talking-clock --version",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    package.appendingPathComponent("Plugins/BuildInfo/build-info.sh").path, package.path,
                    output.appendingPathComponent("GitCommit.swift").path,
                ],
                outputFilesDirectory: output)
        ]
    }
}
