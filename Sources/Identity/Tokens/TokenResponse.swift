import DecodingErrors
import FoundationEssentials

/// An OAuth 2.0 token response (RFC 6749 §5.1) — from a token endpoint, or
/// given to `token put` together with `issuer`, `client_id` and
/// `token_endpoint` so the agent can refresh it later.
public struct TokenResponse: Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    /// Seconds the access token lives, when the server says.
    public var expiresIn: Int64?
    public var refreshToken: String?
    public var idToken: String?
    public var scope: String?

    /// Parses the JSON object; `access_token` and `token_type` are required.
    /// `origin` names where the JSON came from, for errors.
    static func parse(_ body: Body, origin: (String) -> TokenError) throws(TokenError) -> TokenResponse {
        guard let access = body.access_token, !access.isEmpty else { throw origin("`access_token` is missing or empty") }
        guard let type = body.token_type, !type.isEmpty else { throw origin("`token_type` is missing or empty") }
        if let lifetime = body.expires_in, lifetime < 0 { throw origin("`expires_in` is negative") }
        return TokenResponse(accessToken: access, tokenType: type, expiresIn: body.expires_in,
                             refreshToken: body.refresh_token.flatMap { $0.isEmpty ? nil : $0 },
                             idToken: body.id_token.flatMap { $0.isEmpty ? nil : $0 },
                             scope: body.scope.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// When the access token expires: `expires_in` after `now`, else the
    /// access token's own `exp` claim when it is a JWT, else unknown.
    func expiry(now: Int64) -> Int64? {
        if let expiresIn { return OutsideSeconds.instant(expiresIn, after: now) }
        return JWTClaims(jwt: accessToken)?.expiresAt
    }

    /// The members of a token response (and of `token put`'s document), as sent.
    struct Body: Decodable {
        var access_token: String?
        var token_type: String?
        var expires_in: Int64?
        var refresh_token: String?
        var id_token: String?
        var scope: String?
        var issuer: String?
        var client_id: String?
        var token_endpoint: String?
        var error: String?
        var error_description: String?

        enum CodingKeys: String, CodingKey {
            case access_token, token_type, expires_in, refresh_token, id_token, scope, issuer, client_id,
                 token_endpoint, error, error_description
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func text(_ key: CodingKeys) throws -> String? {
                guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
                do {
                    return try container.decode(String.self, forKey: key)
                } catch {
                    throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "should be a string")
                }
            }
            access_token = try text(.access_token)
            token_type = try text(.token_type)
            refresh_token = try text(.refresh_token)
            id_token = try text(.id_token)
            scope = try text(.scope)
            issuer = try text(.issuer)
            client_id = try text(.client_id)
            token_endpoint = try text(.token_endpoint)
            error = try text(.error)
            error_description = try text(.error_description)
            // Some servers send expires_in as a string; RFC 6749 says a number.
            // Either may be beyond Int64 (a lifetime of 1e300 s): it saturates,
            // and `expiry(now:)` adds it to the clock without overflowing.
            if container.contains(.expires_in), try !container.decodeNil(forKey: .expires_in) {
                if let exact = try? container.decode(Int64.self, forKey: .expires_in) {
                    expires_in = exact
                } else if let number = try? container.decode(Double.self, forKey: .expires_in),
                          let seconds = OutsideSeconds.whole(number) {
                    expires_in = seconds
                } else if let string = try? container.decode(String.self, forKey: .expires_in),
                          let seconds = OutsideSeconds.whole(string) {
                    expires_in = seconds
                } else {
                    throw DecodingError.dataCorruptedError(forKey: .expires_in, in: container,
                                                           debugDescription: "should be a number of seconds")
                }
            }
        }

        static func decode(_ bytes: [UInt8]) -> Result<Body, Problem> {
            do {
                return .success(try JSONDecoder().decode(Body.self, from: Data(bytes)))
            } catch {
                if let problem = DecodingProblem(error), case .invalid(let reason) = problem.kind, !problem.path.isEmpty {
                    return .failure(Problem(text: "`\(problem.path)` \(reason)"))
                }
                return .failure(Problem(text: "not a JSON object"))
            }
        }

        /// Why a body does not decode: which member, and why.
        struct Problem: Error {
            let text: String
        }
    }
}
