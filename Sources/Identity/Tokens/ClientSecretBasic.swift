import FoundationEssentials
import HTTPTransport
import URLPolicy

/// How a confidential client proves itself at a token, device or revocation
/// endpoint: HTTP Basic with the form-encoded client id and secret
/// (client_secret_basic, RFC 6749 §2.3.1). It is the method every
/// authorization server MUST accept; client_secret_post is optional, and
/// some servers (Authlib's refresh grant, for one) take only Basic.
public enum ClientSecretBasic {
    /// The `Authorization` header for `clientId` and `secret`.
    public static func header(clientId: String, secret: String) -> (String, String) {
        let credentials = PercentEncoding.encode(clientId) + ":" + PercentEncoding.encode(secret)
        return ("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString())
    }

    /// The header when there is a secret; none for a public client.
    public static func headers(clientId: String, secret: String?) -> [(String, String)] {
        secret.map { [header(clientId: clientId, secret: $0)] } ?? []
    }
}
