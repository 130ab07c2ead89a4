import FoundationEssentials

/// What an invoke URL asks for, told by its shape alone — as the SDK's
/// `isAuthenticateUrl` / `isBindPasskeyUrl` do: any scheme and host (the
/// invoke URL is the application's: a private-use scheme, a loopback or a web
/// URL), the last path segment `bi-authenticate` with a `request`, or `bind`
/// with the six binding fields; plus the binding link a RETURN binding job
/// hands out, which is fetched to get the bind URL.
///
/// Nothing here is verified: the request JWT is `RequestVerifier`'s, and the
/// URLs inside a bind URL are checked before anything is sent to them. A
/// query field given twice makes the URL ambiguous, so it is refused.
public enum InvokeURL: Sendable, Equatable {
    /// `…/bi-authenticate?request=<JWT>`.
    case authenticate(url: String, request: String)
    /// `…/bind?api_base_url&tenant_id&realm_id&identity_id&job_id&token`.
    case bind(BindParameters)
    /// `http(s)://…/credential-binding-jobs/<job>:invokeAuthenticator?token=…`.
    case bindingLink(url: String)

    /// Longer URLs are refused unread (a request JWT is a few KiB).
    public static let limit = 16 << 10

    public init?(_ url: String) {
        guard url.utf8.count <= Self.limit, !url.isEmpty,
              url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
              let parts = URLComponents(string: url), let scheme = parts.scheme, !scheme.isEmpty,
              let fields = Self.fields(parts) else { return nil }
        let segments = parts.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = segments.last else { return nil }
        switch last {
        case "bi-authenticate":
            guard let request = fields["request"], !request.isEmpty else { return nil }
            self = .authenticate(url: url, request: request)
        case "bind":
            guard let bind = BindParameters(fields) else { return nil }
            self = .bind(bind)
        default:
            let lower = scheme.lowercased()
            guard lower == "https" || lower == "http", let host = parts.percentEncodedHost, !host.isEmpty,
                  segments.count >= 2, segments[segments.count - 2] == "credential-binding-jobs",
                  last.hasSuffix(":invokeAuthenticator"), last.utf8.count > ":invokeAuthenticator".utf8.count,
                  let token = fields["token"], !token.isEmpty else { return nil }
            self = .bindingLink(url: url)
        }
    }

    /// The query's fields, percent-decoded; nil when a name comes twice.
    static func fields(_ parts: URLComponents) -> [String: String]? {
        var fields: [String: String] = [:]
        for item in parts.queryItems ?? [] {
            guard fields[item.name] == nil else { return nil }
            fields[item.name] = item.value ?? ""
        }
        return fields
    }
}

/// The fields of a bind URL (`$invoke_url/bind?…`), as Beyond Identity's
/// EMAIL delivery and a redeemed binding link send them. `token` is a secret:
/// it never appears in a message.
public struct BindParameters: Sendable, Equatable {
    public var apiBaseURL: String
    public var tenantId: String
    public var realmId: String
    public var identityId: String
    public var jobId: String
    public var token: String

    public init(apiBaseURL: String, tenantId: String, realmId: String, identityId: String, jobId: String, token: String) {
        self.apiBaseURL = apiBaseURL
        self.tenantId = tenantId
        self.realmId = realmId
        self.identityId = identityId
        self.jobId = jobId
        self.token = token
    }

    /// Nil unless all six fields are there and none is empty.
    init?(_ fields: [String: String]) {
        guard let apiBaseURL = fields["api_base_url"], let tenantId = fields["tenant_id"], let realmId = fields["realm_id"],
              let identityId = fields["identity_id"], let jobId = fields["job_id"], let token = fields["token"],
              ![apiBaseURL, tenantId, realmId, identityId, jobId, token].contains(where: \.isEmpty) else { return nil }
        self.init(apiBaseURL: apiBaseURL, tenantId: tenantId, realmId: realmId, identityId: identityId, jobId: jobId, token: token)
    }
}
