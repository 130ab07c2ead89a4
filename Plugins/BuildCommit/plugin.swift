import FoundationEssentials
import PackagePlugin

/// Writes the git commit the package is built from into the target it is
/// applied to (`BuildInfo`), as `let generatedCommit = "…"`, by running the
/// shell script `build-commit` beside this file.
///
/// A prebuild command, so it runs at the start of every build: the commit
/// changes without any source file changing, and SwiftPM evaluates the
/// manifest once and caches it (`Context.gitInformation` would keep the
/// first commit it saw). The script rewrites the file only when its text
/// changes, so an unchanged commit rebuilds nothing.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        return [.prebuildCommand(
            displayName: "Recording the git commit of this build",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: [package.appending(path: "Plugins/BuildCommit/build-commit").path, package.path, output.path],
            outputFilesDirectory: output)]
    }
}
