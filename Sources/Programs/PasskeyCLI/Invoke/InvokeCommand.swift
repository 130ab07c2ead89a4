import AgentProtocol
import ArgumentParser
import StandardError
#if canImport(Glibc)
import Glibc
#endif

/// `passkey invoke -`: hands an invoke URL, read from standard input, to the
/// agent, where the login it belongs to waits, and says what happened. The
/// desktop reaches the agent without it, over D-Bus (Sources/Agent/DesktopBus);
/// this command is for scripts, and the .desktop file's `Exec=` fallback,
/// where a URL with a query on the command line is refused: every local user
/// can read a command line, and the query holds the secret.
struct InvokeCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "invoke",
        abstract: "Finish what an invoke URL asks: a passkey sign-in, a passkey binding, or a login's redirect.",
        discussion: """
        Authenticate URLs (…/bi-authenticate?request=<JWT>, Beyond Identity's shape): the \
        request JWT is checked first against a trusted application of config.toml \
        ([invoke.application.NAME]: its key set under the application's URL, the site \
        your key signs for one of its rp-ids, the proof and redirects on its hosts), with \
        its signature, expiry, issuer and verb. Then you are asked — on the terminal, \
        else through pinentry — seeing the site, the application and, labelled as the \
        request's own words, who it says is asking; only a yes lets the passkey sign the \
        identity provider's challenge. The redirect chain is followed, through the \
        application's hosts only, to the `passkey login` waiting for it, which stores the tokens.

        Binding URLs and links (…/bind?…, …/credential-binding-jobs/…:invokeAuthenticator): \
        the realm must be a trusted application's; after your yes, a discoverable passkey \
        is made on the key for the identity provider.

        A login's redirect to a private-use scheme (`passkey login --redirect-uri \
        com.example.app:/callback`) is handed to that login; a URL that belongs to no \
        login in progress is refused. --check only says what kind of URL it is (exit 0) \
        or that it is none (exit 1).

        Give the URL as - and write it on standard input (`passkey invoke - <<<"$url"`; \
        with --pin-stdin the PIN follows on the next line). A URL with a query or fragment \
        is refused as an argument: a binding token, a request or a login's state would be \
        on the command line, which every user of this machine can read. Links opened on \
        the desktop (`passkey install-handler`) reach the agent over D-Bus, without this command.
        """)

    @Argument(help: "The URL, or - to read it from standard input (required for a URL with a query).")
    var url: String
    @Flag(help: "Only say whether this is an invoke URL, and which kind (exit status 0 or 1).")
    var check = false
    @Option(help: "The passkey (credential id, base64url) to use when the key holds several for the site.")
    var passkeyId: String?
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions
    @OptionGroup var runOptions: RunOptions

    func validate() throws {
        if url != "-" && InvokeArgument.mayHoldSecret(url) {
            throw ValidationError("""
                an invoke URL with a query (its binding token, request or state) must not be on the command line, \
                where every user of this machine can read it: write it on standard input instead, \
                as in `passkey invoke - <<<"$url"` (links opened on the desktop go to the agent over D-Bus: \
                `passkey install-handler`)
                """)
        }
    }

    func execute(on backend: Backend) async throws(AgentError) {
        let url = try InvokeArgument.resolve(self.url)
        let interaction = TerminalInteraction(pins: pinOptions.source)
        if check {
            let shape = try await backend.call(InvokeCheckMethod.self, .init(url: url), interaction: interaction)
            if runOptions.json { Output.json(shape) } else { Output.line(Self.describe(shape)) }
            // Exit status 1, as a test (`if passkey invoke --check "$url"`) reads it.
            if shape.kind == nil { Glibc.exit(1) }
            return
        }
        // Who asks, and for which site, is the agent's confirmation question
        // (answered by `interaction`), asked before the key is touched.
        let pin = try pinOptions.securityKeyPIN()
        let result = try await backend.call(
            InvokeMethod.self,
            .init(url: url, device: deviceOptions.choice, passkeyId: passkeyId, pin: pin, interactive: interaction.canAnswer),
            interaction: interaction)
        if runOptions.json { Output.json(result); return }
        switch result.kind {
        case .authenticate, .redirect:
            Output.line("Done: the login of \"\(result.account ?? "?")\" is finishing in the agent.")
        case .bind:
            let passkey = result.passkey
            Output.line("Bound a passkey for \(passkey?.displayName ?? passkey?.username ?? "the identity"): \(passkey?.passkeyId ?? "?")")
        }
    }

    static func describe(_ shape: InvokeCheck) -> String {
        switch shape.kind {
        case .authenticate?: return "an authenticate URL (a passkey sign-in)"
        case .bind?: return "a bind URL (makes a passkey)"
        case .redirect?: return "the redirect of the login of \"\(shape.account ?? "?")\""
        case nil: return "not an invoke URL"
        }
    }
}
