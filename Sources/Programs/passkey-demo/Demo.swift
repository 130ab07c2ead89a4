import AgentCore
import PasskeyCLI
import AgentProtocol
import ArgumentParser
import Passwordless
import DevServer
import HTTPTransport
import Settings

#if canImport(Glibc)
import Glibc
#endif

/// The narrated walk-through, separate from argument parsing.
struct Demo {
    var device: String?
    var pins: PINSource

    func run() async throws(AgentError) {
        let scratch = try Self.temporaryDirectory()
        defer { Self.remove(scratch) }
        say("passkey demo — register and sign in with a passkey, on this machine.")

        step(1, "Start passkey-devserver: a strict passwordless.dev-compatible API on loopback")
        let server: RunningDevServer
        do {
            server = try await DevServer.start(DevServerConfiguration(
                rpIds: ["localhost"], origins: ["https://localhost"],
                logger: DevServer.standardErrorLogger(level: .error)))
        } catch {
            throw AgentError(.internal, "could not start the demo server: \(error)")
        }
        detail("API \(server.apiURL), relying party \"\(server.rpId)\", origin \(server.origins.joined(separator: ", "))")
        detail("public key \(server.apiKey.prefix(24))…  (the secret key stays with the \"backend\" below)")

        let transport = HTTPTransport()
        let backend = PasswordlessBackend(apiURL: server.apiURL, apiSecret: server.apiSecret, transport: transport)
        var environment = ProcessEnvironment.current
        environment["XDG_CONFIG_HOME"] = scratch + "/config"  // the demo ignores your config.toml
        let core = try AgentCore(environment: environment, runningAsAgent: false)
        let choice = DeviceChoice(device: device ?? "virtual", virtualState: scratch + "/virtual-authenticator.json")
        let serverChoice = PasswordlessOverrides(apiUrl: server.apiURL, apiKey: server.apiKey,
                                                 rpId: server.rpId, origin: server.origins.first)
        let interaction = TerminalInteraction(pins: pins)

        step(2, device == nil
             ? "Use the software authenticator (temporary state; a USB key goes through the same libfido2 code)"
             : "Use the security key at \(device!)")

        step(3, "Backend: POST /register/token with its secret key, for user \"demo-user\" (alias alice@example.org)")
        let registerToken: String
        do {
            registerToken = try await backend.registerToken(.init(userId: "demo-user", username: "alice@example.org",
                                                                  displayName: "Alice", aliases: ["alice@example.org"]))
        } catch { throw AgentError(error) }
        detail("→ \(registerToken.prefix(32))…  the app hands this to its client")

        step(4, "Client: passkey register --token register_…")
        detail("/register/begin → makeCredential on the key (resident key, user verified) → /register/complete")
        let registration = try await core.call(PasskeyRegisterMethod.self,
                                               .init(token: registerToken, nickname: "demo key", server: serverChoice,
                                                     device: choice, interactive: interaction.canAnswer),
                                               interaction: interaction)
        detail("→ credential \(registration.credentialId.prefix(16))…, discoverable: \(registration.residentKey == true ? "yes" : "no"), transports \(registration.transports.joined(separator: ","))")
        try await verify(registration.token, backend: backend, proves: "the server verified the attestation and stored the credential")

        let signIns: [(String, PasskeySignInMethod.Params)] = [
            ("by alias alice@example.org", .init(alias: "alice@example.org")),
            ("by user id demo-user", .init(userId: "demo-user")),
            ("with a discoverable credential: no name given, the key offers its passkey", .init(discoverable: true)),
        ]
        var lastToken = registration.token
        for (index, (how, base)) in signIns.enumerated() {
            step(5 + index, "Client: sign in \(how)")
            var params = base
            params.server = serverChoice
            params.device = choice
            params.interactive = interaction.canAnswer
            let result = try await core.call(PasskeySignInMethod.self, params, interaction: interaction)
            if let handle = result.userHandle { detail("the key returned user handle \(handle)") }
            try await verify(result.token, backend: backend,
                             proves: "signature, challenge, origin and counter checked (WebAuthn L3 §7.2)")
            lastToken = result.token
        }

        step(8, "Backend: verify the last token again")
        do {
            _ = try await backend.verify(token: lastToken)
            throw AgentError(.internal, "the server accepted a replayed verify token")
        } catch let error as PasswordlessError {
            guard case .server(let problem) = error else { throw AgentError(error) }
            detail("→ refused: \(problem.errorCode ?? "HTTP \(problem.status)") — verify tokens are single-use")
        } catch let error as AgentError {
            throw error
        } catch {
            throw AgentError(error)
        }
        await server.shutdown()
        say("\nDone: one registration and three sign-ins, each verified by the server. Next: `passkey --help`.")
    }

    private func verify(_ token: String, backend: PasswordlessBackend, proves: String) async throws(AgentError) {
        detail("→ verify token \(token.prefix(24))…")
        do {
            let verified = try await backend.verify(token: token)
            guard verified.success, verified.userId == "demo-user" else {
                throw AgentError(.serverError, "the server did not confirm the token for demo-user")
            }
            detail("Backend: POST /signin/verify → success, userId \(verified.userId), type \(verified.type ?? "?"): \(proves)")
        } catch let error as PasswordlessError {
            throw AgentError(error)
        } catch let error as AgentError {
            throw error
        } catch {
            throw AgentError(error)
        }
    }

    private func say(_ text: String) { Output.line(text) }
    private func step(_ number: Int, _ text: String) { Output.line("\n\(number). \(text)") }
    private func detail(_ text: String) { Output.line("   \(text)") }

    static func temporaryDirectory() throws(AgentError) -> String {
        let base = ProcessEnvironment.current["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/passkey-demo.XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw AgentError(.internal, "cannot create a temporary directory in \(base)")
        }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func remove(_ directory: String) {
        // The demo's own scratch directory: its files, then the directory.
        if let handle = opendir(directory) {
            while let entry = readdir(handle) {
                // Read in place, up to its NUL: a readdir record can end before a whole dirent,
                // so copying d_name (a 256-byte tuple) reads past it (SecureFiles' DirectoryEntries).
                let field = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                let name = String(cString: field.assumingMemoryBound(to: CChar.self))
                if name != "." && name != ".." { removeTree(directory + "/" + name) }
            }
            closedir(handle)
        }
        rmdir(directory)
    }

    private static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR { remove(path) } else { unlink(path) }
    }
}
