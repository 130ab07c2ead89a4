import Base64
import DevServerBase
import FoundationEssentials
import OAuthDevServer
import WebAuthn

/// The IDX subset's parsers of outside bytes, apart so the fuzz target
/// (idx-request) reaches them without an HTTP request: the JSON bodies of
/// introspect and the remediations, and the binary fields WebAuthn answers
/// carry in base64 (Okta's Swift SDK) or base64url (its JavaScript SDK).
package enum IDXWire {
    /// Bodies larger than this are refused before parsing.
    package static let maxBodySize = 64 * 1024

    /// Every member a form of this subset can post. Unknown members are
    /// ignored, as forms may carry fields this server does not use
    /// (`transports`, client parameters on introspect).
    package struct Body: Decodable, Sendable {
        package struct Credentials: Decodable, Sendable {
            package var passcode: String?
            package var attestation: String?
            package var clientData: String?
            package var authenticatorData: String?
            package var signatureData: String?
        }

        package struct Choice: Decodable, Sendable {
            package var id: String?
            package var methodType: String?
        }

        package var stateHandle: String?
        package var stateToken: String?
        package var interactionHandle: String?
        package var identifier: String?
        package var rememberMe: Bool?
        package var credentials: Credentials?
        package var authenticator: Choice?
    }

    package enum Problem: Error, Equatable, Sendable {
        case tooLarge
        /// Why the JSON does not fit the form: a member of the wrong type, or not JSON.
        case malformed(String)
    }

    package static func parseBody(_ bytes: [UInt8]) throws(Problem) -> Body {
        guard bytes.count <= maxBodySize else { throw .tooLarge }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw .malformed(RequestJSON.describe(error))
        } catch {
            throw .malformed("The body is not valid JSON.")
        }
    }

    /// Bytes from base64 or base64url (`Base64URL.decodeEitherAlphabet`: one
    /// alphabet per value, padding only at the end); nil beyond 64 KiB.
    package static func binary(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= maxBodySize else { return nil }
        return Base64URL.decodeEitherAlphabet(text)
    }

    /// The interact form's checks (`IDXServer.interaction`) for a known
    /// client; the accepted PKCE challenge and state, nil when refused.
    package static func interaction(form bytes: [UInt8], clients: OAuthClients) -> (codeChallenge: String, state: String)? {
        guard let fields = try? FormFields(parsing: bytes), let id = fields["client_id"], let client = clients[id],
              let interaction = try? IDXServer.interaction(fields, client: client) else { return nil }
        return (interaction.codeChallenge, interaction.state)
    }
}
