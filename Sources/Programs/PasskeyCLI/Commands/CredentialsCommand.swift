import AgentProtocol
import ArgumentParser

struct CredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "List or delete the passkeys stored on a security key.",
        subcommands: [CredentialsList.self, CredentialsRemove.self])
}

struct CredentialsList: Verb {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the discoverable credentials (passkeys) on a security key.",
        discussion: """
        Shows each passkey's site, user name and display name, credProtect level, whether \
        it has a large-blob key, and its credential id (base64url, as `passkey credentials rm` \
        takes it), then how many the key holds and how many more fit. Needs the key's PIN \
        (or its fingerprint); with --pin-stdin, standard input holds the PIN on one line.
        """)

    @Option(name: .customLong("rp"), help: "Only the passkeys for this relying party (site), e.g. example.org.")
    var rpId: String?
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: pinOptions.source)
        let pin = try pinOptions.securityKeyPIN()
        let list = try await backend.call(
            CredentialsListMethod.self,
            .init(device: deviceOptions.choice, rpId: rpId, pin: pin, interactive: interaction.canAnswer),
            interaction: interaction)
        if runOptions.json { Output.json(list); return }
        let scope = rpId.map { " for \($0)" } ?? ""
        if list.credentials.isEmpty {
            Output.line("No passkeys\(scope) on this security key.")
        } else {
            TableOutput.print(
                header: ["SITE", "USER", "DISPLAY NAME", "CREDPROTECT", "LARGE BLOB", "CREDENTIAL ID"],
                rows: list.credentials.map { credential in
                    [credential.rpId, credential.userName ?? "-", credential.userDisplayName ?? "-",
                     CredentialsList.protection(credential.credProtect), credential.largeBlobKey ? "yes" : "no",
                     credential.credentialId]
                })
        }
        Output.line("Discoverable credentials: \(list.existing) on the key, room for \(list.remaining) more.")
    }

    /// credProtect in a table cell: short, with the level people look up.
    static func protection(_ policy: String?) -> String {
        switch policy {
        case "userVerificationOptional": return "1 (uv optional)"
        case "userVerificationOptionalWithCredentialIDList": return "2 (uv or id list)"
        case "userVerificationRequired": return "3 (uv required)"
        default: return "-"
        }
    }
}

struct CredentialsRemove: Verb {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete one passkey from a security key, by its credential id.",
        discussion: """
        The credential id is the base64url one `passkey credentials list` shows. Asks before \
        deleting, on a terminal; elsewhere pass --yes. The sites that know this passkey can no \
        longer sign you in with it. Needs the key's PIN (or its fingerprint). A base64url id         may begin with "-"; put such an id after "--", as in `passkey credentials rm --yes -- -17Cl…`,         or it is read as an option.
        """)

    @Argument(help: "The credential id (base64url), as `passkey credentials list` shows it (after -- if it begins with -).")
    var credentialId: String
    @Flag(name: .long, help: "Delete without asking.")
    var yes = false
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions
    @OptionGroup var runOptions: RunOptions

    func validate() throws {
        guard yes || TerminalPrompt.isInteractive else {
            throw ValidationError("not on a terminal, so nothing can ask before deleting: pass --yes to delete the passkey")
        }
    }

    func execute(on backend: Backend) async throws(AgentError) {
        if !yes, !CardSecrets.confirm("Delete the passkey with credential id \(credentialId) from the security key? This cannot be undone.") {
            throw AgentError(.cancelled, "nothing was deleted")
        }
        let interaction = TerminalInteraction(pins: pinOptions.source)
        let pin = try pinOptions.securityKeyPIN()
        let deleted = try await backend.call(
            CredentialsDeleteMethod.self,
            .init(device: deviceOptions.choice, credentialId: credentialId, pin: pin, interactive: interaction.canAnswer),
            interaction: interaction)
        if runOptions.json { Output.json(deleted); return }
        Output.line("Deleted the passkey with credential id \(deleted.credentialId).")
    }
}
