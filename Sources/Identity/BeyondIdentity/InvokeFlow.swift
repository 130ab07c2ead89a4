import HTTPTransport
import Tokens
import WebAuthnJSON

/// What an invoke needs from whoever runs it (the agent): the person's yes
/// before the key is touched, and the key itself. BeyondIdentity decides
/// what is asked, in which order, and where the answers go; it never
/// touches a device or a person.
public protocol InvokeCeremony: Sendable {
    /// Asks the person; false ends the invoke (`.notConfirmed`): nothing is signed or sent.
    func allow(_ question: InvokeQuestion) async throws -> Bool
    /// `navigator.credentials.get()` at `origin`, for an authentication's proof.
    func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON
    /// `navigator.credentials.create()` at `origin`, for a binding.
    func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON
}

/// What the person is asked before the key is touched, with the trusted
/// application the checks found.
public enum InvokeQuestion: Sendable {
    /// Sign in: the verified request.
    case signIn(AuthenticateRequest, application: TrustedApplication)
    /// Add a passkey: the binding's checked creation options.
    case binding(PublicKeyCredentialCreationOptionsJSON, application: TrustedApplication)
}

/// An invoke URL's protocol from verification to its end, every step in
/// the order that keeps the key and its secrets safe:
///
/// - an authentication: the request JWT verified (`RequestVerifier`, against
///   `InvokeTrust`), the person's yes, the key's assertion, the proof
///   (`BIClient.prove`), then the identity provider's redirects followed
///   through the application's hosts only (`RedirectChain`) to the URL a
///   login in flight waits for — handed back, never fetched;
/// - a binding: the realm a trusted application's, the creation options'
///   RP ID the application's (`InvokeTrust.check(binding:)`), the person's
///   yes, the new credential, the binding completed; a binding link's realm
///   is checked before the link (and its secret) is fetched.
public struct InvokeFlow: Sendable {
    public let trust: InvokeTrust
    private let transport: HTTPTransport
    private let now: @Sendable () -> Int64

    public init(trust: InvokeTrust, transport: HTTPTransport, now: @escaping @Sendable () -> Int64 = TokenSet.now) {
        self.trust = trust
        self.transport = transport
        self.now = now
    }

    /// The request of an authenticate URL, verified, with its application.
    public func verify(_ requestJWT: String) async throws(InvokeError) -> RequestVerifier.Verified {
        try await RequestVerifier(trust: trust, transport: transport, now: now).verify(requestJWT)
    }

    /// An authentication: verified, allowed, proved with the key's assertion
    /// (only for `credential` when given), then followed to the first URL
    /// `isLoginRedirect` accepts, which is returned with the request.
    public func authenticate(_ requestJWT: String, credential: Base64URLBytes? = nil, ceremony: some InvokeCeremony,
                             isLoginRedirect: (String) -> Bool) async throws -> (request: AuthenticateRequest, redirect: String) {
        let verified = try await verify(requestJWT)
        let request = verified.request
        var options = request.assertionOptions
        if let credential { options.allowCredentials = [PublicKeyCredentialDescriptorJSON(id: credential)] }
        guard try await ceremony.allow(.signIn(request, application: verified.application)) else { throw InvokeError.notConfirmed }
        let assertion = try await ceremony.get(options, origin: request.origin)
        let proved = try await BIClient(transport: transport).prove(request, credential: assertion)
        let reached = try await RedirectChain(application: verified.application, transport: transport)
            .follow(from: proved, isLoginRedirect: isLoginRedirect)
        return (request, reached)
    }

    /// A binding link (`…:invokeAuthenticator?token=…`): its realm must be a
    /// trusted application's before it is fetched; then the bind it names.
    public func bind(link: String, ceremony: some InvokeCeremony) async throws -> BoundPasskey {
        _ = try trust.application(forBindingLink: link)
        return try await bind(try await BIClient(transport: transport).resolveBindingLink(link), ceremony: ceremony)
    }

    /// A discoverable passkey for the identity the binding job names, made
    /// on the key and registered with the identity provider — only for a
    /// realm of a trusted application, for one of its RP IDs, once the
    /// person allowed it.
    public func bind(_ bind: BindParameters, ceremony: some InvokeCeremony) async throws -> BoundPasskey {
        let application = try trust.application(forRealm: bind.apiBaseURL, tenantId: bind.tenantId, realmId: bind.realmId)
        let client = BIClient(transport: transport)
        let (options, origin) = try await client.beginBinding(bind)
        try trust.check(binding: options, origin: origin, application: application)
        guard try await ceremony.allow(.binding(options, application: application)) else { throw InvokeError.notConfirmed }
        let registration = try await ceremony.create(options, origin: origin)
        return try await client.completeBinding(bind, credential: registration)
    }
}
