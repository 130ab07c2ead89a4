import Tokens
import URLPolicy

/// The three ways an authorization-code or device login reaches the
/// provider: a browser on this machine (a loopback redirect), the same
/// request with the final redirect pasted (SSH, a remote browser), or the
/// RFC 8628 device grant (a code entered on another device).
public enum OpenIDFlow: String, Sendable, CaseIterable {
    case browser
    case paste
    case device
}

/// What a login may ask of a provider, checked before anything is sent:
/// the scopes (RFC 6749 §3.3), the extra authorization parameters (never
/// one the request sets itself), a private-use redirect URI (RFC 8252
/// §7.1), a client secret, an endpoint given for one the provider does not
/// advertise, and the flow. Pure rules: no network, no state.
public enum LoginRequestRules {
    /// The scopes of a login that names none: an ID token with the profile,
    /// and a refresh token.
    public static let defaultScopes = ["openid", "profile", "email", "offline_access"]

    /// Authorization-request parameters the request sets itself
    /// (`AuthorizationRequest.url`): an extra parameter may not override them.
    public static var reservedParameters: Set<String> { AuthorizationRequest.ownParameters }

    /// 1 to 32 scopes, each an RFC 6749 §3.3 `scope-token` of at most 256 bytes.
    public static func checkScopes(_ scopes: [String]) throws(LoginRequestError) {
        guard !scopes.isEmpty, scopes.count <= 32 else { throw .scopeCount }
        for scope in scopes {
            // RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
            guard (1...256).contains(scope.utf8.count),
                  scope.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }) else {
                throw .scope
            }
        }
    }

    /// At most 16 extra parameters, each a 1 to 64 byte name and a value of
    /// at most 1024 bytes without control characters, none of the
    /// `reservedParameters`; sorted by name, as the request sends them.
    public static func checkExtra(_ extra: [String: String]) throws(LoginRequestError) -> [(String, String)] {
        guard extra.count <= 16 else { throw .extraCount }
        for (name, value) in extra {
            guard (1...64).contains(name.utf8.count), value.utf8.count <= 1024,
                  !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
                  !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw .extraParameter
            }
            guard !reservedParameters.contains(name) else { throw .reservedParameter(name) }
        }
        return extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// RFC 8252 §7.1: a private-use scheme in reverse domain-name form
    /// (`com.example.app:/callback`): a scheme with a dot, never http(s) —
    /// an https redirect would be a web page that could collect the code —
    /// without a query, a fragment, spaces or control characters.
    public static func checkPrivateUseRedirect(_ uri: String) throws(LoginRequestError) -> String {
        guard uri.utf8.count <= 2048, let colon = uri.firstIndex(of: ":") else { throw .notPrivateUseRedirect }
        let scheme = uri[..<colon].lowercased()
        guard scheme.contains("."), scheme.first?.isLetter == true,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }),
              !uri.contains("#"), !uri.contains("?"),
              !uri.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f }) else {
            throw .privateUseRedirectForm
        }
        return uri
    }

    /// A client secret: 1 to 1024 characters without control characters.
    public static func checkClientSecret(_ secret: String) throws(LoginRequestError) {
        guard (1...1024).contains(secret.utf8.count), !secret.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw .clientSecret
        }
    }

    /// An endpoint given for a provider that does not advertise it (or saved
    /// from such a login), named `option` in messages: the rule every
    /// discovered endpoint passes (Tokens' `Endpoint`), at most 2048 bytes,
    /// no fragment. nil stays nil.
    public static func checkEndpoint(_ url: String?, option: String) throws(LoginRequestError) -> String? {
        guard let url else { return nil }
        guard url.utf8.count <= 2048, !url.contains("#") else { throw .endpointForm(option: option) }
        if let problem = Endpoint.problem(url) {
            throw .unusableEndpoint(option: option, url: Endpoint.shown(url), problem: problem)
        }
        return url
    }

    /// The discovered metadata with the endpoints given in its place.
    public static func overriding(_ discovered: ProviderMetadata, deviceAuthorization: String?, revocation: String?) -> ProviderMetadata {
        var metadata = discovered
        metadata.deviceAuthorizationEndpoint = deviceAuthorization ?? metadata.deviceAuthorizationEndpoint
        metadata.revocationEndpoint = revocation ?? metadata.revocationEndpoint
        return metadata
    }

    /// The flow of a login. `asked` nil (auto): a browser where there is a
    /// display; without one the device grant when the provider has it, else
    /// paste (login.md §5.2). A login routed to an identity provider
    /// (`routed`: an `idp` parameter) needs the authorization request that
    /// carries it, which the device grant has not: paste then, and an
    /// explicit device flow is refused rather than routed nowhere.
    public static func chooseFlow(_ asked: OpenIDFlow?, display: Bool, metadata: ProviderMetadata,
                                  routed: Bool = false) throws(LoginRequestError) -> OpenIDFlow {
        switch asked {
        case nil:
            if display { return .browser }
            return metadata.deviceAuthorizationEndpoint != nil && !routed ? .device : .paste
        case .device?:
            guard !routed else { throw .deviceFlowRouted }
            guard metadata.deviceAuthorizationEndpoint != nil else { throw .noDeviceAuthorizationEndpoint(issuer: metadata.issuer) }
            return .device
        case let flow?:
            return flow
        }
    }
}

/// A login request the rules refuse, worded for the person who typed it
/// (the `passkey login` options it came from).
public enum LoginRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    case scopeCount
    case scope
    case extraCount
    case extraParameter
    /// An extra parameter the request sets itself.
    case reservedParameter(String)
    /// A redirect URI that is no URI with a scheme.
    case notPrivateUseRedirect
    /// A scheme that is not a private-use one in reverse domain-name form, or a query or fragment.
    case privateUseRedirectForm
    case clientSecret
    /// An endpoint that is too long or has a fragment.
    case endpointForm(option: String)
    /// An endpoint tokens may not go to: `problem` says why.
    case unusableEndpoint(option: String, url: String, problem: String)
    /// The device flow asked for a login routed to an identity provider.
    case deviceFlowRouted
    /// The device flow asked for where the provider advertises no endpoint for it.
    case noDeviceAuthorizationEndpoint(issuer: String)

    public var description: String {
        switch self {
        case .scopeCount:
            return "give 1 to 32 scopes"
        case .scope:
            return "a scope is 1 to 256 printable ASCII characters without spaces, quotes or backslashes"
        case .extraCount:
            return "at most 16 extra authorization parameters"
        case .extraParameter:
            return "an extra authorization parameter has a 1 to 64 character name and a value of at most 1024"
        case .reservedParameter(let name):
            return "`\(name)` is set by the agent itself and cannot be given as an extra parameter"
        case .notPrivateUseRedirect:
            return "--redirect-uri must be a private-use scheme URI such as com.example.app:/callback"
        case .privateUseRedirectForm:
            return "--redirect-uri must be a private-use scheme in reverse domain-name form "
                + "(RFC 8252 §7.1), such as com.example.app:/callback, without a query or fragment"
        case .clientSecret:
            return "a client secret is 1 to 1024 characters without control characters"
        case .endpointForm(let option):
            return "\(option) must be a URL of at most 2048 characters without a fragment"
        case .unusableEndpoint(let option, let url, let problem):
            return "\(option) must be an https:// URL (http:// only on loopback), not \"\(url)\": \(problem)"
        case .deviceFlowRouted:
            return "--idp routes the browser's authorization request, which the device flow does not have: "
                + "use --flow browser or --flow paste (or --idp '' to stop routing)"
        case .noDeviceAuthorizationEndpoint(let issuer):
            return "\(issuer) advertises no device authorization endpoint: give it with "
                + "--device-authorization-endpoint URL, or use --flow browser or --flow paste"
        }
    }
}
