import StandardError

#if canImport(Glibc)
import Glibc
#endif

/// `git-credential-passkey` and `docker-credential-passkey`: the names git
/// (for `credential.helper = passkey`) and docker (for `"passkey"` in
/// credHelpers or credsStore) run. Each becomes `passkey credential TOOL`
/// with its own arguments, so there is one implementation, and with no agent
/// `passkey` hands over to passkey-local as for any verb.
public enum CredentialHelperProgram {
    public enum Tool: String, Sendable {
        case git, docker
    }

    public static func run(_ tool: Tool) -> Never {
        let error = SiblingProgram.exec("passkey", arguments: ["passkey", "credential", tool.rawValue]
                                           + CommandLine.arguments.dropFirst())
        // docker reads a helper's errors from stdout; git shows stderr.
        if tool == .docker {
            CredentialInput.writeOut(error.message + "\n")
        } else {
            StandardError.writeLine("git-credential-passkey: \(error.message)")
        }
        exit(1)
    }
}
