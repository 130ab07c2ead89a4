import AgentProtocol
import BeyondIdentity
import FoundationEssentials
import Interaction
import OpenID
import Tokens
import WebAuthn
import WebAuthnClient

/// `invoke.check` and `invoke`: the URL-scheme handler's side of a login.
/// An authenticate URL is verified (its request JWT's key set only from
/// `[invoke] trusted-hosts`), proved with a WebAuthn assertion, and its
/// redirect chain followed to the login in flight; a binding makes a
/// passkey; a login's own redirect is handed to it.
extension CoreServices {
    func registerInvoke(into table: inout MethodTable.Builder) {
        table.register(InvokeCheckMethod.self) { params, _ in
            try await self.checkInvoke(params)
        }
        table.register(InvokeMethod.self) { params, interaction in
            try await self.invoke(params, interaction: interaction)
        }
    }

    private var requestVerifier: RequestVerifier {
        RequestVerifier(trustedHosts: settings.invoke.trustedHosts, transport: http)
    }

    private func checkInvoke(_ params: InvokeCheckMethod.Params) async throws -> InvokeCheck {
        try Self.checkInvokeURL(params.url)
        switch InvokeURL(params.url) {
        case .authenticate(_, let jwt)?:
            guard params.verify == true else { return InvokeCheck(kind: .authenticate) }
            let request = try await requestVerifier.verify(jwt)
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
            let request = try await requestVerifier.verify(jwt)
            var options = request.assertionOptions
            if let passkeyId = params.passkeyId {
                guard let id = Base64URLBytes(base64URL: passkeyId) else {
                    throw AgentError(.invalidInput, "--passkey-id is a credential id in base64url")
                }
                options.allowCredentials = [PublicKeyCredentialDescriptorJSON(id: id)]
            }
            let ceremony = GetCredential(options: options, origin: try WebAuthnOrigin(request.origin))
            let assertion = try await devices.withDevice(params.device) { device in
                try await ceremony.run(on: device, pin: params.pin, interaction: guarded)
            }
            let redirect = try await BIClient(transport: http).prove(request, credential: assertion)
            let account = try await followRedirects(from: redirect)
            return InvokeResult(kind: .authenticate, account: account, application: request.applicationName)
        case .bind(let bind)?:
            return InvokeResult(kind: .bind, passkey: try await bindPasskey(bind, params, guarded))
        case .bindingLink(let link)?:
            try checkTrustedHost(link)
            let bind = try await BIClient(transport: http).resolveBindingLink(link)
            return InvokeResult(kind: .bind, passkey: try await bindPasskey(bind, params, guarded))
        case nil:
            return InvokeResult(kind: .redirect, account: try deliverRedirect(params.url))
        }
    }

    /// A discoverable passkey for the identity the binding job names, made
    /// on the key and registered with the IdP.
    private func bindPasskey(_ bind: BindParameters, _ params: InvokeMethod.Params,
                             _ interaction: any UserInteraction) async throws -> BoundPasskeyReport {
        // The IdP that gets the new passkey must be one the person trusts too.
        try checkTrustedHost(bind.apiBaseURL)
        let client = BIClient(transport: http)
        let (options, origin) = try await client.beginBinding(bind)
        let webOrigin = try WebAuthnOrigin(origin)
        let registration = try await devices.withDevice(params.device) { device in
            try await CreateCredential(options: options, origin: webOrigin).run(on: device, pin: params.pin, interaction: interaction)
        }
        let bound = try await client.completeBinding(bind, credential: registration)
        return BoundPasskeyReport(passkeyId: bound.passkeyId, identityId: bound.identityId, username: bound.username,
                                  displayName: bound.displayName, postBindingRedirectURI: bound.postBindingRedirectURI)
    }

    /// The IdP's redirect (Okta's callback with the IdP's code), followed
    /// with plain GETs — https, or http on loopback, at most 10 hops —
    /// until it reaches the redirect URI of a login in flight.
    private func followRedirects(from start: String) async throws -> String {
        var url = start
        for _ in 0..<10 {
            if !logins.logins(awaiting: url).isEmpty { return try deliverRedirect(url) }
            if let problem = Endpoint.problem(url) {
                throw AgentError(.serverError, "the sign-in was redirected to \(Endpoint.shown(url)), which is no login in progress "
                                 + "and no page to follow (\(problem)); start `passkey login` before opening the sign-in")
            }
            let response = try await http.send("GET", url)
            guard (300..<400).contains(response.status), let location = response.header("Location"), location.utf8.count <= 16_384,
                  let next = URL(string: location, relativeTo: URL(string: url))?.absoluteString else {
                throw AgentError(.serverError, "\(Endpoint.shown(url)) answered HTTP \(response.status) where a redirect back to the login was expected")
            }
            url = next
        }
        throw AgentError(.serverError, "the sign-in was redirected more than 10 times without reaching the login")
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

    private func checkTrustedHost(_ url: String) throws(AgentError) {
        guard let host = URLComponents(string: url).flatMap({ parts in parts.host.map { $0 + (parts.port.map { ":\($0)" } ?? "") } }),
              settings.invoke.trustedHosts.contains(host) else {
            throw AgentError(.denied, "\(Endpoint.shown(url)) is not on a trusted host: add its host to [invoke] trusted-hosts "
                             + "in config.toml if you trust that identity provider")
        }
    }

    static func checkInvokeURL(_ url: String) throws(AgentError) {
        guard (1...16_384).contains(url.utf8.count), !url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw AgentError(.invalidInput, "an invoke URL has 1 to 16384 characters and no control characters")
        }
    }
}
