import JWTKit

/// The request JWT's payload, in the shape of Beyond Identity's (okta-bi.md
/// §1.2), with the proof our IdP asks for under `authn.action.prove`: the
/// nonce is the WebAuthn challenge, `rp_id` and `origin` the ceremony's, and
/// `allow_credentials` the realm's passkeys ([] = discoverable).
struct BIRequestClaims: JWTPayload {
    struct Application: Codable { var id: String; var display_name: String }
    struct Prove: Codable {
        var transaction_id: String
        var nonce: String
        var bi_req: String
        var rp_id: String
        var origin: String
        var allow_credentials: [String]
    }
    struct Action: Codable { var prove: Prove }
    struct Authentication: Codable {
        var base_url: String
        var tid: String
        var rid: String
        var aid: String
        var action: Action
        var redirect_uri: String
        var state: String
    }
    struct OriginClaim: Codable { var ip: String; var ua: String; var geo: String; var ref: String }

    var iss: String
    var sub: String
    var aud: [String]
    var iat: Int64
    var nbf: Int64
    var exp: Int64
    var jti: String
    var cid: String
    var verb: String
    var app: Application
    var authn: Authentication
    var origin: OriginClaim
    var indirect_uri: String

    /// base64 of `[{"direct":{"id":"platform","arguments":[]}}]`, as BI's sample has it.
    static let biRequest = "W3siZGlyZWN0Ijp7ImlkIjoicGxhdGZvcm0iLCJhcmd1bWVudHMiOltdfX1d"

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// BI's ID token for its OIDC client.
package struct BIIDTokenClaims: JWTPayload {
    package var iss: String
    package var sub: String
    package var aud: String
    package var exp: Int64
    package var iat: Int64
    package var auth_time: Int64
    package var nonce: String?

    /// Claims are checked by the Okta-like server against its clock.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}
