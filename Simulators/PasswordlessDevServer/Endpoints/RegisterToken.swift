import DevServerBase
import FoundationEssentials
import Hummingbird
import WebAuthn

/// POST /register/token (secret): the backend asks for a `register_` token
/// for one user, choosing the registration options.
extension DevServerAPI {
    struct RegisterTokenRequest: Decodable {
        var userId: String?
        var username: String?
        var displayName: String?
        var attestation: String?
        var authenticatorType: String?
        var discoverable: Bool?
        var userVerification: String?
        var aliases: [String]?
        var aliasHashing: Bool?
        var hints: [String]?
        var expiresAt: String?

        private enum CodingKeys: String, CodingKey {
            case userId, username, displayName, attestation, authenticatorType, discoverable
            case userVerification, aliases, aliasHashing, hints, expiresAt
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            userId = try c.decodeLenientString(forKey: .userId)
            username = try c.decodeLenientString(forKey: .username)
            displayName = try c.decodeLenientString(forKey: .displayName)
            attestation = try c.decodeIfPresent(String.self, forKey: .attestation)
            authenticatorType = try c.decodeIfPresent(String.self, forKey: .authenticatorType)
            discoverable = try c.decodeIfPresent(Bool.self, forKey: .discoverable)
            userVerification = try c.decodeIfPresent(String.self, forKey: .userVerification)
            aliases = try c.decodeIfPresent([String].self, forKey: .aliases)
            aliasHashing = try c.decodeIfPresent(Bool.self, forKey: .aliasHashing)
            hints = try c.decodeIfPresent([String].self, forKey: .hints)
            expiresAt = try c.decodeIfPresent(String.self, forKey: .expiresAt)
        }
    }

    func registerToken(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(RegisterTokenRequest.self, from: request)
        let userId = try Validation.userId(body.userId)
        guard let username = body.username, !username.isEmpty else {
            throw .invalidArgument("username is required.")
        }
        let attestationText = (body.attestation ?? "none").lowercased()
        guard let attestation = AttestationConveyancePreference(rawValue: attestationText), attestation != .enterprise else {
            throw .invalidAttestation(body.attestation ?? "")
        }
        let authenticatorType = (body.authenticatorType ?? "any").lowercased()
        guard ["any", "platform", "cross-platform"].contains(authenticatorType) else {
            throw .invalidArgument("authenticatorType \"\(body.authenticatorType ?? "")\" is not one of any, platform, cross-platform.")
        }
        let userVerification = try Validation.userVerification(body.userVerification)
        let aliases = try Validation.aliases(body.aliases)
        let hints = try Validation.hints(body.hints)
        var expiresAt = expiry(after: configuration.registerTokenLifetime)
        if let text = body.expiresAt {
            guard let date = Timestamp.parse(text) else {
                throw .invalidArgument("expiresAt \"\(text)\" is not an ISO 8601 UTC time such as 2030-01-31T12:00:00Z.")
            }
            expiresAt = date
        }
        let aliasHashing = body.aliasHashing ?? true
        if await store.aliasesConflict(aliases.map { AliasHash.of($0, appId: keys.appId) }, userId: userId) {
            throw .aliasConflict
        }
        let claims = RegisterTokenClaims(
            tokenId: TokenID.make(), expiresAt: expiresAt, userId: userId, username: username,
            displayName: body.displayName.flatMap { $0.isEmpty ? nil : $0 } ?? username,
            attestation: attestation, authenticatorType: authenticatorType,
            discoverable: body.discoverable ?? true, userVerification: userVerification,
            aliases: aliases, aliasHashing: aliasHashing, hints: hints)
        return JSONResponse.ok(TokenEnvelope(token: tokens.seal(claims, as: .register)))
    }
}

/// The hosted API's input rules, shared by the endpoints that take these fields.
enum Validation {
    /// A userId becomes the WebAuthn user handle, which is at most 64 bytes.
    static func userId(_ userId: String?) throws(APIProblem) -> String {
        guard let userId, !userId.isEmpty else { throw .missingUserId }
        guard userId.utf8.count <= 64 else {
            throw .invalidArgument("userId is \(userId.utf8.count) bytes; at most 64 are allowed (it becomes the WebAuthn user handle).")
        }
        return userId
    }

    static func userVerification(_ text: String?) throws(APIProblem) -> UserVerificationRequirement {
        guard let text else { return .preferred }
        guard let value = UserVerificationRequirement(rawValue: text.lowercased()) else {
            throw .invalidArgument("userVerification \"\(text)\" is not one of preferred, required, discouraged.")
        }
        return value
    }

    /// At most 10 aliases of 1 to 250 characters.
    static func aliases(_ aliases: [String]?) throws(APIProblem) -> [String] {
        let aliases = aliases ?? []
        guard aliases.count <= 10 else { throw .invalidArgument("At most 10 aliases are allowed; got \(aliases.count).") }
        for alias in aliases where alias.isEmpty || alias.count > 250 {
            throw .invalidArgument("Each alias must be 1 to 250 characters long.")
        }
        return aliases
    }

    /// At most 3 hints, each security-key, client-device or hybrid.
    static func hints(_ hints: [String]?) throws(APIProblem) -> [PublicKeyCredentialHint] {
        let texts = hints ?? []
        guard texts.count <= 3 else { throw .invalidArgument("At most 3 hints are allowed; got \(texts.count).") }
        var result: [PublicKeyCredentialHint] = []
        for text in texts {
            guard let hint = PublicKeyCredentialHint(rawValue: text.lowercased()) else {
                throw .invalidArgument("Hint \"\(text)\" is not one of security-key, client-device, hybrid.")
            }
            result.append(hint)
        }
        return result
    }
}
