import AgentClient
import AgentProtocol
import ArgumentParser
import Settings
import StandardError

extension LoginFlow: ExpressibleByArgument {}

/// `passkey login ACCOUNT`: signs in at an OpenID provider and puts the
/// tokens in the vault without anyone seeing them. The agent runs the flow
/// (discovery, PKCE, the loopback listener, polling, ID-token checks); this
/// command opens the browser, says what to do, and relays a pasted redirect.
struct LoginCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in at an OpenID provider; the tokens go straight into the vault.",
        discussion: """
        The first login of an account needs --issuer and --client-id; they are saved \
        (with the scopes, the flow that worked and the subject) in \
        $XDG_CONFIG_HOME/passkey-agent/accounts/ACCOUNT.toml, so `passkey login ACCOUNT` \
        signs in again and `passkey token get ACCOUNT` refreshes with no flags.

        Flows (--flow): browser — authorization code with PKCE, the provider redirects \
        to a listener on 127.0.0.1; device — a code to enter on any device (RFC 8628); \
        paste — as browser, but you paste the address the browser ends on (SSH sessions, \
        a browser on another machine). auto (the default, or the flow that worked last) \
        picks browser when there is a display, else device when the provider offers it, \
        else paste. In the browser and paste flows a pasted address and the browser's \
        return both work; whichever comes first wins.

        The revocation and device endpoints come from the provider's discovery document, \
        else from its RFC 8414 metadata (/.well-known/oauth-authorization-server); a \
        provider that advertises neither takes --revocation-endpoint and \
        --device-authorization-endpoint, saved with the account.

        A login that signs in another subject than the account's is refused unless \
        --force. Interrupting the command cancels the login.

        --via okta-idx signs in to Okta Identity Engine without a browser: the agent \
        runs IDX's forms and asks here only what they ask (--username, a password \
        without echo or from --password-stdin, a numbered choice); the security key is \
        chosen when Okta offers it — enrolled the first time, touched after that — \
        unless --authenticator names another. The account then signs in the same way \
        with `passkey login ACCOUNT`.
        """)

    @Argument(help: "The account name (your choice, e.g. work).", completion: AccountNameCompletion.kind)
    var account: String
    @Option(help: "The OpenID issuer URL (https://, or http:// on loopback).")
    var issuer: String?
    @Option(help: "The client id registered at the provider for this tool.")
    var clientId: String?
    @Flag(help: "Read the client secret from standard input (one line), for providers that give this tool's client one. It is kept in the vault.")
    var clientSecretStdin = false
    @Option(name: .customLong("scope"), parsing: .singleValue,
            help: "A scope to ask for (repeat it, or give several separated by spaces). Default: openid profile email offline_access.")
    var scopes: [String] = []
    @Option(help: "auto, browser, device or paste (okta-idx: as --via okta-idx).")
    var flow: LoginFlow?
    @Option(help: "A fixed loopback port for the redirect (e.g. for `ssh -L PORT:127.0.0.1:PORT`).")
    var port: Int?
    @Option(help: "A private-use-scheme redirect URI registered for the client (e.g. com.example.app:/callback), instead of the 127.0.0.1 listener: the browser hands it to `passkey invoke` (see `passkey install-handler`).")
    var redirectURI: String?
    @Flag(help: "Print the address instead of starting a browser.")
    var noBrowser = false
    @Option(help: "Who is signing in, as a hint to the provider (login_hint).")
    var loginHint: String?
    @Option(help: "An identity provider to route to (Okta's idp parameter). Saved with the account; --idp '' stops routing.")
    var idp: String?
    @Option(help: "The provider's RFC 8628 device authorization endpoint, when neither its discovery document nor its RFC 8414 metadata names one (https://, or http:// on loopback). Saved with the account.")
    var deviceAuthorizationEndpoint: String?
    @Option(help: "The provider's RFC 7009 revocation endpoint for `passkey logout`, when neither document names one. Saved with the account.")
    var revocationEndpoint: String?
    @Flag(help: "Replace the account even if the provider signs in another subject or is another issuer.")
    var force = false
    @Option(help: "Seconds the login may take (default 300).")
    var timeout: Int?
    @Flag(help: "Read a redirect address from standard input and hand it to the login of ACCOUNT in progress (e.g. started in another terminal).")
    var complete = false
    @Flag(help: "Cancel the login of ACCOUNT in progress.")
    var cancel = false
    @Option(help: ArgumentHelp("okta-idx: sign in through Okta Identity Engine's forms in the terminal, with a security key.",
                               discussion: "The agent runs IDX (interact, introspect, the remediation forms, the interaction_code grant); the security key is chosen when Okta offers it, enrolled if it is new, and touched to sign in."))
    var via: String?
    @Option(help: "okta-idx: the user name to sign in as (else the one the account's last sign-in used, else it is asked).")
    var username: String?
    @Flag(help: "okta-idx: read the password from standard input (one line) when Okta asks for one.")
    var passwordStdin = false
    @Option(help: "okta-idx: use this authenticator instead of the security key (as Okta names it, e.g. Password or okta_email).")
    var authenticator: String?
    @Flag(help: ArgumentHelp("okta-idx: read the security key's PIN from standard input (one line; after the password with --password-stdin).",
                             discussion: "For a PIN-protected key in a script: without it the PIN is asked on the terminal, or with pinentry."))
    var pinStdin = false
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: .interactive)
        if cancel {
            _ = try await backend.call(LoginCancelMethod.self, .init(account: account), interaction: interaction)
            if !runOptions.json { Output.line("Cancelled the login of \"\(account)\".") }
            return
        }
        if complete {
            if TerminalPrompt.isInteractive { StandardError.write("Paste the address the browser ended on: ") }
            guard let url = StandardInput.readLine(), !url.isEmpty else {
                throw AgentError(.invalidInput, "no address was given on standard input")
            }
            let accepted = try await backend.call(LoginCompleteMethod.self, .init(account: account, redirectURL: url),
                                                  interaction: interaction)
            if runOptions.json { Output.json(accepted) } else { Output.line("Accepted: the login of \"\(account)\" goes on.") }
            return
        }
        if let via, via != LoginFlow.oktaIDX.rawValue {
            throw AgentError(.invalidInput, "--via takes okta-idx (the other flows are --flow browser, device or paste)")
        }
        if clientSecretStdin && (passwordStdin || pinStdin) {
            throw AgentError(.invalidInput, "--client-secret-stdin and --password-stdin or --pin-stdin all read standard input: give one")
        }
        var password: String?
        if passwordStdin {
            guard let line = StandardInput.readLine(), !line.isEmpty else {
                throw AgentError(.invalidInput, "--password-stdin: no password on standard input")
            }
            password = line
        }
        // The PIN goes to the agent with each IDX call, as `webauthn.*`'s does; never on argv.
        var pin: String?
        if pinStdin {
            pin = try PINOptions.securityKeyPIN(from: PINSource(fromStandardInput: true, environment: ProcessEnvironment.current))
        }
        var clientSecret: String?
        if clientSecretStdin {
            guard let line = StandardInput.readLine(), !line.isEmpty else {
                throw AgentError(.invalidInput, "--client-secret-stdin: no secret on standard input")
            }
            clientSecret = line
        }
        let environment = ProcessEnvironment.current
        var extra: [String: String] = [:]
        if let loginHint { extra["login_hint"] = loginHint }
        if let idp { extra["idp"] = idp }
        let scopeList = scopes.flatMap { $0.split(separator: " ").map(String.init) }
        let params = LoginBeginMethod.Params(
            account: account, issuer: issuer, clientId: clientId, clientSecret: clientSecret, scopes: scopeList.isEmpty ? nil : scopeList,
            flow: via != nil ? .oktaIDX : flow,
            display: BrowserLauncher.hasDisplay(environment) && !noBrowser, port: port, redirectURI: redirectURI,
            extra: extra.isEmpty ? nil : extra, force: force ? true : nil, timeout: timeout, authenticator: authenticator,
            device: deviceOptions.choice, pin: pin, interactive: interaction.canAnswer,
            deviceAuthorizationEndpoint: deviceAuthorizationEndpoint, revocationEndpoint: revocationEndpoint, username: username)
        let started = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(LoginBeginMethod.self, params, interaction: interaction)
        }
        if started.flow == .oktaIDX, let first = started.idx {
            var conversation = IDXConversation(account: account, backend: backend, interaction: interaction,
                                               username: username ?? started.username,
                                               password: password, pin: pin, device: deviceOptions.choice)
            report(try await conversation.run(first))
            return
        }
        LoginInstructions.show(started, openBrowser: !noBrowser, environment: environment)
        if started.flow != .device { PastedRedirects.relay(account: account, through: backend) }
        while true {
            let waited = try await backend.call(LoginWaitMethod.self, .init(account: account), interaction: interaction)
            guard waited.done, let result = waited.login else { continue }
            report(result)
            return
        }
    }

    private func report(_ result: LoginResult) {
        if runOptions.json { Output.json(result); return }
        let who = [result.displayName, result.subject.map { "subject \($0)" }].compactMap { $0 }.joined(separator: ", ")
        Output.line("Signed in to \(result.issuer)\(who.isEmpty ? "" : " as \(who)"). "
                    + "The tokens of \"\(account)\" are in the vault: `passkey token get \(account)` prints an access token.")
    }
}
