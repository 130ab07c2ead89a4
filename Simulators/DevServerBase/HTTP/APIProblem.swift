import HTTPTypes

/// An error answer: RFC 7807 problem details as the passwordless.dev API
/// writes them — `type`, `title`, `status`, `errorCode`, and extras such as
/// `credentialId`. Titles tell a developer what to fix; none contains a key,
/// a secret or a token.
package struct APIProblem: Error, Sendable {
    var status: HTTPResponse.Status
    /// The passwordless.dev error code; nil for answers the hosted API sends without one.
    var errorCode: String?
    package var title: String
    var detail: String?
    /// The fragment of the `type` URL; defaults to the error code.
    var typeAnchor: String?
    /// The `credentialId` extra of `unknown_credential`.
    var credentialId: String?
    /// The challenge of a 401: `ApiKey` or `ApiSecret`.
    var wwwAuthenticate: String?

    var type: String {
        if let anchor = typeAnchor ?? errorCode { return "https://docs.passwordless.dev/guide/errors.html#\(anchor)" }
        return "about:blank"
    }

    package init(_ status: HTTPResponse.Status, _ errorCode: String?, _ title: String, detail: String? = nil) {
        self.status = status
        self.errorCode = errorCode
        self.title = title
        self.detail = detail
    }
}

// The answers the endpoints give. Codes and statuses follow the hosted API
// (reference/passwordless-api.md §4); the ones it lacks are marked.
extension APIProblem {
    package static func missingToken(_ what: String) -> APIProblem {
        APIProblem(.badRequest, "missing_token", "A \(what) is required.")
    }

    package static func invalidToken(_ title: String) -> APIProblem {
        APIProblem(.badRequest, "invalid_token", title)
    }

    package static func invalidTokenFormat(_ title: String) -> APIProblem {
        APIProblem(.badRequest, "invalid_token_format", title)
    }

    package static func expiredToken(secondsAgo: Int) -> APIProblem {
        APIProblem(.forbidden, "expired_token", "The token expired \(secondsAgo) seconds ago.")
    }

    /// Not in the hosted API, whose sessions and verify tokens can be replayed.
    package static func tokenAlreadyUsed(_ what: String) -> APIProblem {
        APIProblem(.forbidden, "token_already_used",
                   "This \(what) was already used; each one is accepted once.")
    }

    package static let missingUserId = APIProblem(.badRequest, "missing_userid", "A userId is required.")

    package static func invalidArgument(_ title: String) -> APIProblem {
        APIProblem(.badRequest, "invalid_argument", title)
    }

    package static func invalidAttestation(_ value: String) -> APIProblem {
        APIProblem(.badRequest, "invalid_attestation",
                   "Attestation \"\(value)\" is not supported; use none, indirect or direct.")
    }

    package static let aliasConflict = APIProblem(.conflict, "alias_conflict", "An alias is already in use by another user.")

    package static func registrationFailed(_ why: String) -> APIProblem {
        APIProblem(.badRequest, "fido2_invalid_registration", why)
    }

    package static func unknownCredential(_ credentialId: String) -> APIProblem {
        var problem = APIProblem(.badRequest, "unknown_credential", "Unknown credential.")
        problem.credentialId = credentialId
        return problem
    }

    package static func signInFailed(_ why: String) -> APIProblem {
        APIProblem(.badRequest, "signin_complete_error", why)
    }

    /// As the hosted API answers an empty `Origin`: 400 without an error code.
    static let originRequired = APIProblem(.badRequest, nil, "Origin is required.")

    /// Not in the hosted API, which has no allow-list.
    static func originNotAllowed(_ origin: String, allowed: [String]) -> APIProblem {
        APIProblem(.badRequest, "origin_not_allowed",
                   "Origin \"\(origin)\" is not on this app's allow-list.",
                   detail: "Allowed origins: \(allowed.joined(separator: ", ")). Start passkey-devserver with --origin to add one.")
    }

    /// Not in the hosted API, which has no allow-list.
    static func rpIdNotAllowed(_ rpId: String, allowed: [String]) -> APIProblem {
        APIProblem(.badRequest, "rpid_not_allowed",
                   "RPID \"\(rpId)\" is not on this app's allow-list.",
                   detail: "Allowed RP IDs: \(allowed.joined(separator: ", ")). Start passkey-devserver with --rp-id to add one.")
    }

    /// A missing or wrong key: 401 with the challenge naming the header.
    static func unauthorized(header: String, detail: String) -> APIProblem {
        var problem = APIProblem(.unauthorized, nil, "A valid '\(header)' header is required.", detail: detail)
        problem.typeAnchor = header
        problem.wwwAuthenticate = header
        return problem
    }

    package static func notFound(_ path: String) -> APIProblem {
        APIProblem(.notFound, nil, "No endpoint \(path) for this method.")
    }

    package static func bodyTooLarge(limit: Int) -> APIProblem {
        APIProblem(.contentTooLarge, nil, "The request body is larger than \(limit) bytes.")
    }

    package static let internalError = APIProblem(.internalServerError, nil, "The api has encountered an error",
                                          detail: "The api has encountered an error")
}
