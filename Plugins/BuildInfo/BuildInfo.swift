import Foundation
import PackagePlugin

/// Generates `GitCommit.swift` (`BuildInfo.commit`) for `talking-clock --version`, with
/// build-info.sh beside this file: `git rev-parse --short HEAD`, or "unknown" outside a git
/// checkout (a source tarball).
///
/// SwiftPM has no string defines, so the commit is generated source. In a git checkout it is a
/// build command whose inputs are `.git/HEAD` (a checkout changes it) and `.git/logs/HEAD` (every
/// commit, checkout or reset appends to it), so it runs again whenever HEAD moves, even when no
/// source file changed (a prebuild command did not: SwiftPM re-runs those only when it plans the
/// build again, so a build after a commit that changed only docs kept the commit before). Outside
/// a git checkout, or in a worktree (`.git` is a file), it is a prebuild command. The script
/// rewrites the file only when the commit differs, so an unchanged commit recompiles nothing.
/// Nothing runs at run time.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        let generated = output.appendingPathComponent("GitCommit.swift")
        let script = package.appendingPathComponent("Plugins/BuildInfo/build-info.sh")
        let arguments = [script.path, package.path, generated.path]
        let git = package.appendingPathComponent(".git")
        let inputs = [git.appendingPathComponent("HEAD"), git.appendingPathComponent("logs/HEAD")]
        if inputs.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) {
            return [
                .buildCommand(
                    displayName: "Reading the git commit for talking-clock --version",
                    executable: URL(fileURLWithPath: "/bin/sh"), arguments: arguments,
                    inputFiles: inputs + [script], outputFiles: [generated])
            ]
        }
        return [
            .prebuildCommand(
                displayName: "Reading the git commit for talking-clock --version",
                executable: URL(fileURLWithPath: "/bin/sh"), arguments: arguments,
                outputFilesDirectory: output)
        ]
    }
}
