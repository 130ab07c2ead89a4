import HTTPTransport
import OpenID
import Tokens
import URLPolicy

/// Why an Okta Identity Engine sign-in step failed, as something the person
/// can act on. No message carries a `stateHandle`, an interaction handle or
/// code, a PKCE verifier, a password or a WebAuthn answer; what the server
/// wrote is one short line (`TokenError.sanitised`), URLs without their query.
public enum IDXError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The discovery document's `authorization_endpoint` gives no interact URL.
    case noInteractEndpoint(String)
    /// `/v1/interact` refused (an OAuth error: `{error, error_description}`).
    case interactRefused(status: Int, errorCode: String?, description: String?)
    /// An answer that is not the IDX we read: which URL, and why.
    case malformed(url: String, reason: String)
    /// A server error (5xx), or a 4xx without an IDX body.
    case server(url: String, status: Int, errorCode: String?, description: String?)
    /// A form's `href` points away from the issuer's origin: passwords and
    /// WebAuthn answers go only to the server we started with.
    case foreignHref(String)
    /// A required field has no value.
    case missingValue(field: String, label: String?)
    /// A value given for a field does not fit it (unknown field, option out of range).
    case badValue(field: String, reason: String)
    /// The server offered no form this step can continue with.
    case noRemediation(String)
    /// The server offers no form with this name now.
    case noSuchRemediation(String, offered: [String])
    /// WebAuthn data the server sent cannot be used.
    case webauthn(String)
    /// The IDX transaction expired (`idx.session.expired`).
    case sessionExpired
    /// The server ended the sign-in with an error message and nothing to continue with.
    case refused(String)
    /// A step of the sign-in is running: a form is sent only on the answer it came from.
    case stepRunning
    /// The loop went round too many steps without finishing (`IDXSignIn`'s limits).
    case tooManySteps
    /// The sign-in was cancelled or ended (its tokens are not fetched).
    case signInEnded
    /// The token request after IDX, or its validation, failed.
    case token(OpenIDError)
    case network(HTTPTransportError)

    public var description: String {
        switch self {
        case .noInteractEndpoint(let url):
            return "cannot derive the IDX interact endpoint from the authorization endpoint \(Endpoint.shown(url))"
        case .interactRefused(let status, let code, let text):
            return "Okta refused to start an IDX sign-in (HTTP \(status)\(Self.detail(code, text)))"
                + (code == "unauthorized_client" || code == "invalid_request"
                   ? ": is the Interaction Code grant enabled for the app and its authorization server?" : "")
        case .malformed(let url, let reason):
            return "\(url) sent an answer that is not IDX: \(reason)"
        case .server(let url, let status, let code, let text):
            return "\(url) answered HTTP \(status)\(Self.detail(code, text))"
        case .foreignHref(let url):
            return "the server asked to send a form to \(Endpoint.shown(url)), which is not the issuer's origin; nothing was sent"
        case .missingValue(let field, let label):
            return "the form needs \(label.map { "\($0) (`\(field)`)" } ?? "`\(field)`")"
        case .badValue(let field, let reason):
            return "`\(field)`: \(reason)"
        case .noRemediation(let reason):
            return reason
        case .noSuchRemediation(let name, let offered):
            return "the server offers no `\(name)` now (it offers: \(offered.isEmpty ? "nothing" : offered.joined(separator: ", ")))"
        case .webauthn(let reason):
            return "the server's WebAuthn data cannot be used: \(reason)"
        case .sessionExpired:
            return "the IDX sign-in expired at the server (idx.session.expired); start it again"
        case .refused(let message):
            return "the sign-in failed: \(message)"
        case .stepRunning:
            return "a step of the IDX sign-in is already running; wait for its answer"
        case .tooManySteps:
            return "the IDX sign-in went round too many steps without finishing; it was stopped"
        case .signInEnded:
            return "the IDX sign-in was cancelled or has ended; start it again"
        case .token(let error):
            return error.description
        case .network(let error):
            return "\(error)"
        }
    }

    private static func detail(_ code: String?, _ text: String?) -> String {
        [code, text].compactMap { $0 }.isEmpty ? "" : ": " + [code, text].compactMap { $0 }.joined(separator: " — ")
    }
}
