import FoundationEssentials
import Hummingbird

/// What a client presents at a token endpoint to say who it is (RFC 6749
/// §2.3.1): `client_secret_basic` (an HTTP Basic Authorization header),
/// `client_secret_post` (`client_secret` in the form), or a bare
/// `client_id`. More than one way at once is refused, as is an assertion.
/// Which of them a client must use is the endpoint's business.
package enum ClientCredentials {
    package static func presented(_ request: Request, _ fields: FormFields) throws(OAuthError) -> (clientId: String, secret: String?) {
        guard fields["client_assertion"] == nil, fields["client_assertion_type"] == nil else {
            throw .invalidClient("Client assertions are not supported here.")
        }
        if let authorization = request.headers[.authorization] {
            guard fields["client_secret"] == nil else { throw .invalidRequest("Use one client authentication method, not two.") }
            guard let (id, secret) = Self.basicCredentials(authorization) else {
                throw .invalidClient("The Authorization header is not HTTP Basic with client id and secret.")
            }
            guard fields["client_id"] == nil || fields["client_id"] == id else {
                throw .invalidClient("client_id differs from the Authorization header's.")
            }
            return (id, secret)
        }
        guard let id = fields["client_id"] else { throw .invalidClient("client_id is required.") }
        return (id, fields["client_secret"])
    }

    /// `Basic base64(form-encoded id ":" form-encoded secret)` (RFC 6749
    /// §2.3.1); nil for anything else. At most 1 KiB.
    package static func basicCredentials(_ header: String) -> (id: String, secret: String)? {
        guard header.hasPrefix("Basic "), header.utf8.count <= 1024,
              let decoded = Data(base64Encoded: String(header.dropFirst(6))),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":"),
              let id = FormFields.decode(text[..<colon]), let secret = FormFields.decode(text[text.index(after: colon)...]) else {
            return nil
        }
        return (id, secret)
    }
}
