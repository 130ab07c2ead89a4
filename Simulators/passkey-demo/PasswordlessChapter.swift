import AgentCore
import AgentProtocol
import Passwordless
import PasskeyCLI
import Settings

/// Chapter 1: passkeys with passwordless.dev — a register token from the
/// backend, registration, a sign-in with a discoverable credential, each
/// verify token checked by the backend, and a replayed one refused. It runs
/// the same core every verb uses, in this process.
struct PasswordlessChapter {
    let world: DemoWorld
    let say: DemoNarrator

    func run() async throws(AgentError) -> String {
        let server = world.server
        say.step("Backend: POST /register/token with its secret key, for user \"demo-user\" (alias alice@example.org)")
        say.detail("API \(server.apiURL), relying party \"\(server.rpId)\"; the secret key stays with the backend")
        let backend = PasswordlessBackend(apiURL: server.apiURL, apiSecret: server.apiSecret, transport: world.transport)
        var environment = ProcessEnvironment.current
        environment["XDG_CONFIG_HOME"] = world.scratch + "/config-chapter1"  // the demo ignores your config.toml
        let core = try AgentCore(environment: environment, runningAsAgent: false)
        let choice = DeviceChoice(device: world.device, virtualState: world.scratch + "/passwordless-authenticator.json")
        let serverChoice = PasswordlessOverrides(apiUrl: server.apiURL, apiKey: server.apiKey,
                                                 rpId: server.rpId, origin: server.origins.first)
        let interaction = TerminalInteraction(pins: world.pins)
        if let keyPIN = world.keyPIN, world.device == "virtual" {
            // --pin-stdin with the software authenticator: this chapter's key gets the PIN too.
            _ = try await core.methods.call(PINSetMethod.self, .init(device: choice, newPin: keyPIN), interaction: interaction)
        }
        let registerToken: String
        do {
            registerToken = try await backend.registerToken(.init(userId: "demo-user", username: "alice@example.org",
                                                                  displayName: "Alice", aliases: ["alice@example.org"]))
        } catch { throw AgentError(error) }
        say.detail("→ \(registerToken.prefix(32))…  the app hands this to its client")

        say.step("Client: passkey register --token register_…  (\(world.device == "virtual" ? "the software authenticator" : world.device))")
        say.detail("/register/begin → makeCredential on the key (resident key, user verified) → /register/complete")
        let registration = try await core.methods.call(PasskeyRegisterMethod.self,
                                               .init(token: registerToken, nickname: "demo key", server: serverChoice,
                                                     device: choice, pin: world.keyPIN, interactive: interaction.canAnswer),
                                               interaction: interaction)
        say.detail("→ credential \(registration.credentialId.prefix(16))…, discoverable: \(registration.residentKey == true ? "yes" : "no")")
        try await verify(registration.token, backend: backend, proves: "attestation checked, credential stored")

        say.step("Client: passkey signin --discoverable  (no name given: the key offers its passkey)")
        let signIn = try await core.methods.call(PasskeySignInMethod.self,
                                         .init(discoverable: true, server: serverChoice, device: choice,
                                               pin: world.keyPIN, interactive: interaction.canAnswer),
                                         interaction: interaction)
        try await verify(signIn.token, backend: backend, proves: "signature, challenge, origin and counter checked (WebAuthn L3 §7.2)")

        say.step("Backend: verify the same token again")
        do {
            _ = try await backend.verify(token: signIn.token)
            throw AgentError(.internal, "the server accepted a replayed verify token")
        } catch let error as PasswordlessError {
            guard case .server(let problem) = error else { throw AgentError(error) }
            say.detail("→ refused: \(problem.errorCode ?? "HTTP \(problem.status)") — verify tokens are single-use")
        } catch let error as AgentError {
            throw error
        } catch {
            throw AgentError(error)
        }
        return "a registration and a discoverable sign-in, each token verified by the server as demo-user; the replay refused"
    }

    private func verify(_ token: String, backend: PasswordlessBackend, proves: String) async throws(AgentError) {
        do {
            let verified = try await backend.verify(token: token)
            guard verified.success, verified.userId == "demo-user" else {
                throw AgentError(.serverError, "the server did not confirm the token for demo-user")
            }
            say.detail("Backend: POST /signin/verify → success, userId \(verified.userId), type \(verified.type ?? "?"): \(proves)")
        } catch let error as PasswordlessError {
            throw AgentError(error)
        } catch let error as AgentError {
            throw error
        } catch {
            throw AgentError(error)
        }
    }
}
