import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import FoundationEssentials
import Interaction
import OpenID
import Settings
import Tokens
import URLPolicy

/// `login.begin`: checks what it is given, discovers the provider, chooses
/// the flow, starts its first step, and leaves a task running that finishes
/// the login (LoginLanding.swift) while the client shows what to do.
/// What the request may ask is OpenID's rule (`LoginRequestRules`); this
/// file wires the params, the saved account and the vault to it.
extension LoginCapability {
    package func beginLogin(_ params: LoginBeginMethod.Params, interaction: any UserInteraction) async throws -> LoginStarted {
        let account = params.account
        try TokensCapability.checkAccount(account)
        let saved = try accounts.load(account)
        guard let issuer = params.issuer ?? saved?.issuer else {
            throw AgentError(.invalidInput, "the first login of \"\(account)\" needs --issuer URL and --client-id ID")
        }
        guard let clientId = params.clientId ?? saved?.clientId, !clientId.isEmpty, clientId.utf8.count <= 256 else {
            throw AgentError(.invalidInput, "the first login of \"\(account)\" needs --client-id ID (1 to 256 characters)")
        }
        if let problem = Endpoint.problem(issuer) {
            throw AgentError(.invalidInput, "the issuer must be an https:// URL (http:// only on loopback), not \"\(Endpoint.shown(issuer))\": \(problem)")
        }
        if let saved, saved.issuer != issuer, params.force != true {
            throw AgentError(.invalidInput, "\"\(account)\" signs in at \(saved.issuer), not \(Endpoint.shown(issuer)): "
                             + "use another account name, or --force to replace it")
        }
        let scopes = params.scopes ?? saved?.scopes ?? LoginRequestRules.defaultScopes
        try LoginRequestRules.checkScopes(scopes)
        // `--idp` is remembered: a later `passkey login ACCOUNT` routes to the same
        // identity provider; `--idp ''` stops routing.
        var extraParameters = params.extra ?? [:]
        if extraParameters["idp"] == nil, let idp = saved?.idp { extraParameters["idp"] = idp }
        if extraParameters["idp"] == "" { extraParameters["idp"] = nil }
        let idp = extraParameters["idp"]
        let extra = try LoginRequestRules.checkExtra(extraParameters)
        let username = params.username ?? saved?.username
        if let username {
            guard (1...256).contains(username.utf8.count), TokenError.sanitised(username) == username else {
                throw AgentError(.invalidInput, "--username is 1 to 256 characters without control characters")
            }
        }
        let timeout = params.timeout ?? 300
        guard (1...1800).contains(timeout) else { throw AgentError(.invalidParams, "`timeout` is 1 to 1800 seconds") }
        let port = params.port ?? 0
        guard (0...65535).contains(port) else { throw AgentError(.invalidParams, "`port` is 0 (any) to 65535") }
        let idx = params.flow == .oktaIDX || (params.flow == nil && saved?.flow == LoginFlow.oktaIDX.rawValue)
        let privateRedirect = idx ? nil : try params.redirectURI.map(LoginRequestRules.checkPrivateUseRedirect)
        if let secret = params.clientSecret { try LoginRequestRules.checkClientSecret(secret) }
        // The tokens land in the vault at the end: find out now that it is
        // locked, not after the person has been through the browser. A login
        // again with the same client reuses the secret stored with the tokens.
        let storedSecret = try await vault.withUnlocked { open in
            (try? TokensCapability.read(account, from: open)).flatMap { $0.clientId == clientId ? $0.clientSecret : nil }
        }
        let clientSecret = params.clientSecret ?? storedSecret

        let provider = openIDProvider(issuer)
        let deviceEndpoint = try LoginRequestRules.checkEndpoint(params.deviceAuthorizationEndpoint ?? saved?.deviceAuthorizationEndpoint,
                                                                 option: "--device-authorization-endpoint")
        let revocationEndpoint = try LoginRequestRules.checkEndpoint(params.revocationEndpoint ?? saved?.revocationEndpoint,
                                                                     option: "--revocation-endpoint")
        let metadata = LoginRequestRules.overriding(try await provider.metadata(), deviceAuthorization: deviceEndpoint,
                                                    revocation: revocationEndpoint)
        let flow = try Self.flow(params.flow ?? saved?.flow.flatMap(LoginFlow.init(rawValue:)) ?? .auto,
                                 display: params.display ?? false, metadata: metadata, routed: idp != nil)
        let deadline = OutsideSeconds.instant(Int64(timeout), after: TokenSet.now())
        let plan = LoginPlan(account: account, issuer: issuer, clientId: clientId, clientSecret: clientSecret, scopes: scopes, flow: flow,
                             force: params.force == true, previousSubject: saved?.subject, provider: provider,
                             metadata: metadata, timeout: .seconds(timeout),
                             endpoints: .init(deviceAuthorization: deviceEndpoint, revocation: revocationEndpoint),
                             idp: idp, username: flow == .oktaIDX ? username : nil)
        if flow == .oktaIDX {
            return try await beginIDX(plan, params: params, interaction: interaction)
        }
        let client = OpenIDClient(transport: http, metadata: metadata, clientId: clientId, clientSecret: clientSecret)
        let (pastes, pasteInput) = AsyncStream<Result<String, OpenIDError>>.makeStream()

        let login: PendingLogin
        switch flow {
        case .device:
            let authorization = try await client.startDeviceAuthorization(scopes: scopes)
            let started = LoginStarted(account: account, issuer: issuer, flow: flow, userCode: authorization.userCode,
                                       verificationURI: authorization.verificationURI,
                                       verificationURIComplete: authorization.verificationURIComplete,
                                       expiresAt: min(deadline, authorization.expiresAt))
            login = PendingLogin(account: account, started: started, request: nil, metadata: metadata, pastes: pasteInput)
            login.start { [self] in
                try await self.finish(plan, login: login) {
                    (try await client.pollDeviceToken(authorization), nonce: nil)
                }
            }
        case .oktaIDX:
            throw AgentError(.internal, "an okta-idx login has no pending redirect")
        case .browser, .paste, .auto:
            // The listener checks `state` before anything else, so it needs
            // the state before the request knows the listener's port: 32 random
            // octets in base64url, made as a PKCE verifier is.
            let state = PKCE().verifier
            // A private-use scheme redirect comes back through the scheme
            // handler (`invoke`), so no listener is needed then.
            let listener = try await privateRedirect == nil ? CallbackListener.start(expectedState: state, port: port) : nil
            let redirectURI = privateRedirect ?? listener?.redirectURI ?? ""
            let request = AuthorizationRequest(redirectURI: redirectURI, state: state, nonce: PKCE().verifier, pkce: PKCE())
            let url = request.url(metadata: metadata, clientId: clientId, scopes: scopes, extra: extra)
            // The browser flow's browser gets a page only this user can read,
            // never the URL itself (LaunchPage.swift says why).
            let (page, problem) = flow == .browser ? launchPage(for: url, issuer: issuer) : (nil, nil)
            let started = LoginStarted(account: account, issuer: issuer, flow: flow, authorizationURL: url,
                                       launchPage: page?.path, launchPageProblem: problem,
                                       redirectURI: redirectURI, expiresAt: deadline)
            login = PendingLogin(account: account, started: started, request: request, metadata: metadata, pastes: pasteInput,
                                 launchPage: page)
            login.start { [self] in
                // Done, failed, expired or cancelled: the page goes with the login.
                defer { listener?.close(); page?.remove() }
                return try await self.finish(plan, login: login) {
                    let code = try await Self.firstRedirect(listener: listener, pastes: pastes, request: request, metadata: metadata)
                    return (try await client.exchange(code: code, request: request), nonce: request.nonce)
                }
            }
        }
        logins.add(login)
        return login.started
    }

    /// A launch page for `url` in the runtime directory, after removing the
    /// pages of logins whose process died; or why there is none.
    private func launchPage(for url: String, issuer: String) -> (LaunchPage?, String?) {
        guard let directory = LaunchPage.directory(paths) else {
            return (nil, "XDG_RUNTIME_DIR is not set, so there is no private place for a launch page")
        }
        LaunchPage.removeStale(in: directory)
        do throws(LaunchPage.Problem) {
            return (try LaunchPage.write(url, issuer: issuer, in: directory), nil)
        } catch {
            return (nil, error.description)
        }
    }

    /// The flow `LoginRequestRules.chooseFlow` picks for what was asked;
    /// okta-idx is never chosen by it, only asked for.
    package static func flow(_ asked: LoginFlow, display: Bool, metadata: ProviderMetadata, routed: Bool) throws(LoginRequestError) -> LoginFlow {
        let choice: OpenIDFlow?
        switch asked {
        case .oktaIDX: return .oktaIDX
        case .auto: choice = nil
        case .browser: choice = .browser
        case .paste: choice = .paste
        case .device: choice = .device
        }
        switch try LoginRequestRules.chooseFlow(choice, display: display, metadata: metadata, routed: routed) {
        case .browser: return .browser
        case .paste: return .paste
        case .device: return .device
        }
    }

    /// The code from whichever comes first: the browser's callback on the
    /// loopback listener (when there is one), or a redirect URL handed over
    /// through `login.complete` or the scheme handler.
    package static func firstRedirect(listener: CallbackListener?, pastes: AsyncStream<Result<String, OpenIDError>>,
                              request: AuthorizationRequest, metadata: ProviderMetadata) async throws -> String {
        try await withThrowingTaskGroup(of: String.self) { group in
            if let listener {
                group.addTask {
                    let url = try await listener.callback()
                    return try request.code(fromRedirect: url, metadata: metadata)
                }
            }
            group.addTask {
                for await pasted in pastes { return try pasted.get() }
                throw CancellationError()
            }
            defer { group.cancelAll() }
            guard let code = try await group.next() else { throw CancellationError() }
            return code
        }
    }
}

/// What a login needs from its start to its landing.
package struct LoginPlan: Sendable {
    package let account: String
    package let issuer: String
    package let clientId: String
    package let clientSecret: String?
    package let scopes: [String]
    package let flow: LoginFlow
    package let force: Bool
    package let previousSubject: String?
    package let provider: OpenIDProvider
    package let metadata: ProviderMetadata
    package let timeout: Duration
    /// The endpoints given instead of the provider's (saved with the account).
    package var endpoints = EndpointOverrides()
    /// Saved with the account: the `idp` routed to, and okta-idx's identifier.
    package var idp: String?
    package var username: String?
}

/// `--device-authorization-endpoint` / `--revocation-endpoint`, checked.
package struct EndpointOverrides: Sendable {
    package var deviceAuthorization: String?
    package var revocation: String?
}
