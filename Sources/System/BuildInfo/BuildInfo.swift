/// What a program says to `--version`: the release it is and the git commit
/// it was built from. `generatedCommit` is written at build time by the
/// BuildCommit plugin (Plugins/BuildCommit): 12 hex digits, with "+" when the
/// tree had uncommitted changes, or "unknown" for a build outside a git
/// checkout.
public enum BuildInfo {
    /// The release. `agent.status` reports it as `version`.
    public static let version = "0.1.0"

    /// The commit this build was made from, or "unknown".
    public static let commit = generatedCommit

    /// `passkey 0.1.0 (commit 1a2b3c4d5e6f)`: the line `--version` prints.
    public static func versionLine(program: String) -> String {
        "\(program) \(version) (commit \(commit))"
    }
}
