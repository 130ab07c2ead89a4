import AgentProtocol
import Passwordless

/// Chapter 7: NFC. passkey-vcard's FIDO2 applet on the private pcscd's
/// reader is a security key on an NFC reader (`pcsc:Virtual PCD 00 00`):
/// CTAP over ISO 7816 APDUs, through the same libfido2 code as USB. The
/// same key operations as before: a passkey registered and used, and a
/// vault slot that opens the vault.
struct NFCChapter {
    let world: DemoWorld
    let say: DemoNarrator

    /// The one line said when there is no card: what would run, and how to enable it.
    static func unavailable(_ reason: String) -> String {
        "skipped (\(reason)): it would run `passkey devices`, `passkey register`/`signin` and `passkey vault add-slot fido2` "
            + "then `passkey unlock` with --device \"pcsc:\(DemoPCSC.reader)\"; enable it with "
            + "`sudo apt install pcscd vsmartcard-vpcd` (scripts/demo installs them: scripts/install-dependencies --demo)"
    }

    /// What was verified; empty when the chapter could not run here (it said why).
    func run() async throws(AgentError) -> String {
        guard world.pcsc != nil else {
            let line = Self.unavailable(world.pcscMissing ?? "no card")
            say.step(line)
            return ""
        }
        try await world.ensureVault()
        let device = "pcsc:" + DemoPCSC.reader
        say.step("passkey devices  (the key on the PC/SC reader is listed beside USB keys)")
        let listed = try await world.require(["devices"])
        guard let line = listed.standardOutput.split(separator: "\n").first(where: { $0.contains(device) && $0.contains("[nfc]") }) else {
            throw AgentError(.noDevice, "passkey devices does not list \(device) as an NFC key")
        }
        say.detail("→ \(line.trimmingCharacters(in: " "))")

        let server = world.server
        let backend = PasswordlessBackend(apiURL: server.apiURL, apiSecret: server.apiSecret, transport: world.transport)
        let options = ["--api-url", server.apiURL, "--api-key", server.apiKey, "--rp-id", server.rpId,
                       "--origin", server.origins.first ?? "https://localhost", "--device", device]
        let registerToken: String
        do {
            registerToken = try await backend.registerToken(.init(userId: "nfc-user", username: "nfc@example.org",
                                                                  aliases: ["nfc@example.org"]))
        } catch { throw AgentError(error) }
        say.step("passkey register --token register_… --device \"\(device)\"  (passwordless.dev, over NFC)")
        let registered = try await world.require(["register", "--token", registerToken] + options)
        try await verify(registered.output, backend: backend)
        say.step("passkey signin --alias nfc@example.org --device \"\(device)\"")
        let signedIn = try await world.require(["signin", "--alias", "nfc@example.org"] + options)
        try await verify(signedIn.output, backend: backend)

        say.step("passkey vault add-slot fido2 --device \"\(device)\"  (the vault's data key, wrapped for this key too)")
        try await world.require(["vault", "add-slot", "fido2", "--device", device])
        let secret = "AT-nfc-\(UInt64.random(in: .min ... .max))"
        try await world.require(["token", "put", "nfc"], input: """
            {"access_token":"\(secret)","token_type":"Bearer","expires_in":3600,"issuer":"https://id.example.org","client_id":"cli","token_endpoint":"https://id.example.org/token"}
            """)
        try await world.require(["lock"])
        say.step("passkey lock; passkey unlock --slot fido2 --device \"\(device)\"  (a tap on the reader)")
        try await world.require(["unlock", "--slot", "fido2", "--device", device])
        guard try await world.require(["token", "get", "nfc"]).output == secret else {
            throw AgentError(.internal, "the NFC key's slot opened another vault")
        }
        say.detail("→ unlocked over NFC; the stored token back")
        return "over \(device): listed as an NFC key, a passkey registered and used (both tokens verified by the server), "
            + "and its vault slot unlocked the vault"
    }

    private func verify(_ token: String, backend: PasswordlessBackend) async throws(AgentError) {
        do {
            let verified = try await backend.verify(token: token)
            guard verified.success, verified.userId == "nfc-user" else {
                throw AgentError(.serverError, "the server did not confirm the token for nfc-user")
            }
            say.detail("Backend: POST /signin/verify → success, userId \(verified.userId), type \(verified.type ?? "?")")
        } catch let error as AgentError {
            throw error
        } catch {
            throw AgentError(error)
        }
    }
}
