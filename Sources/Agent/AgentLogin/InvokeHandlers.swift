import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import BeyondIdentity
import FoundationEssentials
import Interaction
import OpenID
import Tokens
import WebAuthn
import WebAuthnClient

/// `invoke.check` and `invoke`: the URL-scheme handler's side of a login,
/// wiring config.toml, BeyondIdentity and the agent's devices and logins.
/// Every rule is BeyondIdentity's: an authenticate URL is verified
/// (`RequestVerifier`: its request JWT only from a trusted application, and
/// everything it names that application's, `InvokeTrust`), confirmed by the
/// person, proved with a WebAuthn assertion (`BIClient`), and its redirect
/// chain followed (`RedirectChain`, through the application's hosts only)
/// to the login in flight; a binding (confirmed the same way, its RP ID the
/// application's) makes a passkey; a login's own redirect is handed to it.
extension LoginCapability {
    package func registerInvoke(into table: inout MethodTable.Builder) {
        table.register(InvokeCheckMethod.self) { params, _ in
            try await self.checkInvoke(params)
        }
        table.register(InvokeMethod.self) { params, interaction in
            try await self.invoke(params, interaction: interaction)
        }
    }

    private var requestVerifier: RequestVerifier {
        RequestVerifier(trust: invokeTrust, transport: http)
    }

    /// The trusted applications of config.toml (`[invoke.application.NAME]`
    /// tables, then `[invoke] trusted-hosts`); an entry that cannot be used
    /// trusts nothing (`InvokeTrust.ignored`).
    package var invokeTrust: InvokeTrust {
        let invoke = settings.invoke
        return InvokeTrust(entries: invoke.applications.map {
            TrustedApplication.Entry(name: $0.name, issuer: $0.issuer, relyingParties: $0.rpIds, hosts: $0.hosts)
        }, trustedHosts: invoke.trustedHosts)
    }

    private func checkInvoke(_ params: InvokeCheckMethod.Params) async throws -> InvokeCheck {
        try Self.checkInvokeURL(params.url)
        switch InvokeURL(params.url) {
        case .authenticate(_, let jwt)?:
            guard params.verify == true else { return InvokeCheck(kind: .authenticate) }
            let request = try await requestVerifier.verify(jwt).request
            return InvokeCheck(kind: .authenticate, application: request.applicationName, requestIP: request.requestOrigin.ip,
                               requestUserAgent: request.requestOrigin.userAgent)
        case .bind?, .bindingLink?:
            return InvokeCheck(kind: .bind)
        case nil:
            return InvokeCheck(kind: logins.logins(awaiting: params.url).isEmpty ? nil : .redirect,
                               account: logins.logins(awaiting: params.url).first?.account)
        }
    }

    private func invoke(_ params: InvokeMethod.Params, interaction: any UserInteraction) async throws -> InvokeResult {
        try Self.checkInvokeURL(params.url)
        let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
        switch InvokeURL(params.url) {
        case .authenticate(_, let jwt)?:
            let verified = try await requestVerifier.verify(jwt)
            let request = verified.request
            var options = request.assertionOptions
            if let passkeyId = params.passkeyId {
                guard let id = Base64URLBytes(base64URL: passkeyId) else {
                    throw AgentError(.invalidInput, "--passkey-id is a credential id in base64url")
                }
                options.allowCredentials = [PublicKeyCredentialDescriptorJSON(id: id)]
            }
            let ceremony = GetCredential(options: options, origin: try WebAuthnOrigin(request.origin))
            try await confirm(InvokeConfirmation.signIn(request, application: verified.application), guarded)
            let assertion = try await devices.withDevice(params.device) { device in
                try await ceremony.run(on: device, pin: params.pin, interaction: guarded)
            }
            let redirect = try await BIClient(transport: http).prove(request, credential: assertion)
            let account = try await followRedirects(from: redirect, application: verified.application)
            return InvokeResult(kind: .authenticate, account: account, application: request.applicationName)
        case .bind(let bind)?:
            return InvokeResult(kind: .bind, passkey: try await bindPasskey(bind, params, guarded))
        case .bindingLink(let link)?:
            // The link's realm must be a trusted application's before its secret goes anywhere.
            _ = try invokeTrust.application(forBindingLink: link)
            let bind = try await BIClient(transport: http).resolveBindingLink(link)
            return InvokeResult(kind: .bind, passkey: try await bindPasskey(bind, params, guarded))
        case nil:
            return InvokeResult(kind: .redirect, account: try deliverRedirect(params.url))
        }
    }

    /// A discoverable passkey for the identity the binding job names, made
    /// on the key and registered with the IdP — only for a realm of a
    /// trusted application, for one of its RP IDs, once the person allowed it.
    private func bindPasskey(_ bind: BindParameters, _ params: InvokeMethod.Params,
                             _ interaction: any UserInteraction) async throws -> BoundPasskeyReport {
        let trust = invokeTrust
        let application = try trust.application(forRealm: bind.apiBaseURL, tenantId: bind.tenantId, realmId: bind.realmId)
        let client = BIClient(transport: http)
        let (options, origin) = try await client.beginBinding(bind)
        try trust.check(binding: options, origin: origin, application: application)
        let webOrigin = try WebAuthnOrigin(origin)
        try await confirm(InvokeConfirmation.binding(options, application: application), interaction)
        let registration = try await devices.withDevice(params.device) { device in
            try await CreateCredential(options: options, origin: webOrigin).run(on: device, pin: params.pin, interaction: interaction)
        }
        let bound = try await client.completeBinding(bind, credential: registration)
        return BoundPasskeyReport(passkeyId: bound.passkeyId, identityId: bound.identityId, username: bound.username,
                                  displayName: bound.displayName, postBindingRedirectURI: bound.postBindingRedirectURI)
    }

    /// The person's yes, asked before any key is touched; a no ends the invoke.
    private func confirm(_ request: ConfirmationRequest, _ interaction: any UserInteraction) async throws {
        guard try await interaction.confirm(request) else { throw InvokeError.notConfirmed }
    }

    /// The IdP's redirect chain, through the application's hosts only
    /// (`RedirectChain`), to the login in flight it belongs to.
    private func followRedirects(from start: String, application: TrustedApplication) async throws -> String {
        let chain = RedirectChain(application: application, transport: http)
        let reached = try await chain.follow(from: start) { !logins.logins(awaiting: $0).isEmpty }
        return try deliverRedirect(reached)
    }

    /// Hands `url` to the login in flight it belongs to (its `state` decides
    /// among several); the account of that login.
    private func deliverRedirect(_ url: String) throws -> String {
        let candidates = logins.logins(awaiting: url)
        guard !candidates.isEmpty else {
            throw AgentError(.notFound, "\(Endpoint.shown(url)) belongs to no login in progress: run `passkey login` first, then open the sign-in")
        }
        for login in candidates {
            do {
                try login.paste(url)
                return login.account
            } catch OpenIDError.stateMismatch {
                continue
            }
        }
        throw OpenIDError.stateMismatch
    }

    package static func checkInvokeURL(_ url: String) throws(AgentError) {
        guard (1...16_384).contains(url.utf8.count), !url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw AgentError(.invalidInput, "an invoke URL has 1 to 16384 characters and no control characters")
        }
    }
}
