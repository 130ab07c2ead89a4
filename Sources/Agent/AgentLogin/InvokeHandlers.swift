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
import URLPolicy
import WebAuthn
import WebAuthnClient

/// `invoke.check` and `invoke`: the URL-scheme handler's side of a login,
/// wiring config.toml → BeyondIdentity → the agent. Every rule and every
/// step's order is BeyondIdentity's `InvokeFlow` (verify the request JWT
/// against the trusted applications, ask, prove, follow the redirects
/// through the application's hosts; or bind a passkey); the agent lends it
/// the person and the key (`KeyCeremony`) and hands the redirect
/// reached to the login in flight it belongs to.
extension LoginCapability {
    package func registerInvoke(into table: inout MethodTable.Builder) {
        table.register(InvokeCheckMethod.self) { params, _ in
            try await self.checkInvoke(params)
        }
        table.register(InvokeMethod.self) { params, interaction in
            try await self.invoke(params, interaction: interaction)
        }
    }

    private var invokeFlow: InvokeFlow {
        InvokeFlow(trust: invokeTrust, transport: http)
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
            let request = try await invokeFlow.verify(jwt).request
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
            let credential = try params.passkeyId.map { passkeyId throws(AgentError) in
                guard let id = Base64URLBytes(base64URL: passkeyId) else {
                    throw AgentError(.invalidInput, "--passkey-id is a credential id in base64url")
                }
                return id
            }
            let (request, reached) = try await invokeFlow.authenticate(jwt, credential: credential, ceremony: keyCeremony(params, guarded)) {
                !logins.logins(awaiting: $0).isEmpty
            }
            return InvokeResult(kind: .authenticate, account: try deliverRedirect(reached), application: request.applicationName)
        case .bind(let bind)?:
            return InvokeResult(kind: .bind, passkey: Self.report(try await invokeFlow.bind(bind, ceremony: keyCeremony(params, guarded))))
        case .bindingLink(let link)?:
            return InvokeResult(kind: .bind, passkey: Self.report(try await invokeFlow.bind(link: link, ceremony: keyCeremony(params, guarded))))
        case nil:
            return InvokeResult(kind: .redirect, account: try deliverRedirect(params.url))
        }
    }

    private func keyCeremony(_ params: InvokeMethod.Params, _ interaction: GuardedInteraction) -> KeyCeremony {
        KeyCeremony(devices: devices, device: params.device, pin: params.pin, interaction: interaction)
    }

    private static func report(_ bound: BoundPasskey) -> BoundPasskeyReport {
        BoundPasskeyReport(passkeyId: bound.passkeyId, identityId: bound.identityId, username: bound.username,
                           displayName: bound.displayName, postBindingRedirectURI: bound.postBindingRedirectURI)
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
