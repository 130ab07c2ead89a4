import FoundationEssentials
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

    /// Bytes from base64 (`+/`, padded or not) or base64url (`-_`); nil for
    /// anything else, for text mixing both alphabets, and beyond 64 KiB.
    package static func binary(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= maxBodySize else { return nil }
        var body = Substring(text)
        while body.last == "=" { body.removeLast() }
        let bytes = Array(body.utf8)
        // Only the two alphabets; padding only at the end (Foundation's decoder
        // would take "=" inside the text).
        guard bytes.allSatisfy(isBase64Character) else { return nil }
        let url = bytes.contains(UInt8(ascii: "-")) || bytes.contains(UInt8(ascii: "_"))
        let standard = bytes.contains(UInt8(ascii: "+")) || bytes.contains(UInt8(ascii: "/"))
        guard !(url && standard), bytes.count % 4 != 1 else { return nil }
        guard url || standard else { return Base64URL.decode(String(body)) }
        var normalised = bytes.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): return UInt8(ascii: "+")
            case UInt8(ascii: "_"): return UInt8(ascii: "/")
            default: return byte
            }
        }
        normalised += [UInt8](repeating: UInt8(ascii: "="), count: (4 - normalised.count % 4) % 4)
        return Data(base64Encoded: String(decoding: normalised, as: UTF8.self)).map(Array.init)
    }

    /// The interact form's checks (`IDXServer.interaction`) for a known
    /// client; the accepted PKCE challenge and state, nil when refused.
    package static func interaction(form bytes: [UInt8], clients: OAuthClients) -> (codeChallenge: String, state: String)? {
        guard let fields = try? FormFields(parsing: bytes), let id = fields["client_id"], let client = clients[id],
              let interaction = try? IDXServer.interaction(fields, client: client) else { return nil }
        return (interaction.codeChallenge, interaction.state)
    }

    private static func isBase64Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
