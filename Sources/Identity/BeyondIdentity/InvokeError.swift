import HTTPTransport
import Tokens

/// Why an invoke URL was not carried out, one case per failure a user of
/// Beyond Identity's SDK knows (`InvalidUrl`, `CredentialNotFound`,
/// `PolicyDenied`, …) plus the checks of the request JWT their SDK leaves
/// out. Each says what to do. No message carries a token, a nonce, a binding
/// token or a query string; a server's own text is shown shortened and
/// without control characters.
public enum InvokeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an authenticate URL, a bind URL or a binding link (or one whose
    /// URLs cannot be used).
    case invalidURL
    /// The request JWT's `jku` is not an https URL (http only on loopback)
    /// under a trusted application: which host it named.
    case untrustedJWKSHost(String)
    /// A binding's realm belongs to no trusted application: which realm.
    case untrustedApplication(String)
    /// The request asks the key to sign for an RP ID that is not one of its
    /// application's (or with an origin that RP ID may not use): a trusted
    /// tenant phishing for another site's assertion.
    case foreignRelyingParty(rpId: String, application: String)
    /// The request sends the proof or the redirect to a host that is not its application's.
    case foreignHost(what: String, url: String, application: String)
    /// The person did not allow the sign-in or binding when asked.
    case notConfirmed
    /// The signature does not verify with the key its `kid` names.
    case badSignature
    /// No key of the `jku` key set has the request's `kid` (even after fetching it again).
    case unknownKey
    /// The header's `alg` is not RS256 or ES256 (`none` and HS* never verify).
    case algorithmNotAllowed
    /// `exp` (plus 60 s of clock skew) has passed: start the sign-in again.
    case requestExpired
    /// `nbf` is more than 60 s in the future: check the clock.
    case requestNotYetValid
    /// `iss` is not the application the key set belongs to.
    case wrongIssuer
    /// `verb` is not "authenticate".
    case wrongVerb
    /// The request is not a JWT of the expected shape: what is wrong.
    case malformedRequest(String)
    /// The identity provider has no passkey of this realm on this key (`credential_not_found`).
    case credentialNotFound
    /// The identity provider's policy refused (a suspended identity): its reason.
    case policyDenied(String?)
    /// The transaction was already used: start the sign-in again.
    case transactionUsed
    /// The transaction expired at the identity provider: start the sign-in again.
    case transactionExpired
    /// Another answer from the identity provider: status, its `error` and description.
    case server(status: Int, code: String?, description: String?)
    /// The identity provider (or the key set's host) could not be reached.
    case network(HTTPTransportError)
    /// The redirect the identity provider answered is not to the request's
    /// `redirect_uri` with its `state`.
    case redirectMismatch
    /// A binding link or bind URL could not be redeemed: why.
    case bindingFailed(String)
    /// The `state` that came back matches no sign-in this agent started.
    case stateMismatch
    /// The person cancelled (or the key refused) the passkey ceremony.
    case cancelled

    public var description: String {
        switch self {
        case .invalidURL:
            return "not a Beyond Identity invoke URL (…/bi-authenticate?request=…, …/bind?…, or a …:invokeAuthenticator?token=… binding link)"
        case .untrustedJWKSHost(let host):
            return "the request's key set is at \(host), which is under no trusted application: if this sign-in is yours, add its application to config.toml (`[invoke.application.NAME]` with its `issuer`; https only, plain http only to 127.0.0.1, [::1] or localhost)"
        case .untrustedApplication(let realm):
            return "\(realm) belongs to no trusted application: if this identity provider is yours, add its application to config.toml (`[invoke.application.NAME]` with its `issuer`)"
        case .foreignRelyingParty(let rpId, let application):
            return "the request asks your security key to sign for \(TokenError.sanitised(rpId) ?? "an RP ID"), which is not one of \(application)'s RP IDs (`rp-ids` in its config.toml table): refused, nothing was signed"
        case .foreignHost(let what, let url, let application):
            return "\(what) \(url) is not on a host of \(application) (`hosts` in its config.toml table): refused, nothing was signed"
        case .notConfirmed:
            return "you did not allow it: the security key was not used and nothing was sent"
        case .badSignature:
            return "the request's signature does not verify: it was altered or not made by the identity provider; start the sign-in again"
        case .unknownKey:
            return "the request is signed with a key its key set does not publish; start the sign-in again"
        case .algorithmNotAllowed:
            return "the request is not signed with RS256 or ES256, so it is refused"
        case .requestExpired:
            return "the request has expired: start the sign-in again (or check this machine's clock)"
        case .requestNotYetValid:
            return "the request is not valid yet: check this machine's clock"
        case .wrongIssuer:
            return "the request's issuer is not the application whose keys signed it"
        case .wrongVerb:
            return "the request is not an authentication request (its verb is not \"authenticate\")"
        case .malformedRequest(let why):
            return "the request cannot be used: \(why)"
        case .credentialNotFound:
            return "this security key holds no passkey for the identity provider's realm: bind one first (a binding link from the administrator)"
        case .policyDenied(let text):
            return "the identity provider's policy denied the sign-in" + (TokenError.sanitised(text).map { ": \($0)" } ?? "")
        case .transactionUsed:
            return "this sign-in request was already used: start the sign-in again"
        case .transactionExpired:
            return "this sign-in request expired at the identity provider: start the sign-in again"
        case .server(let status, let code, let text):
            var line = "the identity provider answered HTTP \(status)"
            if let code = TokenError.sanitised(code) { line += " with \(code)" }
            if let text = TokenError.sanitised(text) { line += ": \(text)" }
            return line
        case .network(let error):
            return error.description
        case .redirectMismatch:
            return "the identity provider redirected somewhere other than the request's redirect_uri with its state: refused"
        case .bindingFailed(let why):
            return "the passkey could not be bound: \(why)"
        case .stateMismatch:
            return "the state that came back matches no sign-in in progress: start the sign-in again"
        case .cancelled:
            return "the passkey ceremony was cancelled"
        }
    }

    /// A stable code, as the SDK's error names and the IdP's `error` values go.
    public var errorCode: String? {
        switch self {
        case .invalidURL: return "invalid_url"
        case .untrustedJWKSHost: return "untrusted_jku_host"
        case .untrustedApplication: return "untrusted_application"
        case .foreignRelyingParty: return "foreign_rp_id"
        case .foreignHost: return "foreign_host"
        case .notConfirmed: return "not_confirmed"
        case .badSignature: return "bad_signature"
        case .unknownKey: return "unknown_key"
        case .algorithmNotAllowed: return "algorithm_not_allowed"
        case .requestExpired: return "request_expired"
        case .requestNotYetValid: return "request_not_yet_valid"
        case .wrongIssuer: return "wrong_issuer"
        case .wrongVerb: return "wrong_verb"
        case .malformedRequest: return "malformed_request"
        case .credentialNotFound: return "credential_not_found"
        case .policyDenied: return "policy_denied"
        case .transactionUsed: return "transaction_used"
        case .transactionExpired: return "transaction_expired"
        case .server(_, let code, _): return TokenError.sanitised(code).map { String($0.prefix(64)) }
        case .network: return "network"
        case .redirectMismatch: return "redirect_mismatch"
        case .bindingFailed: return "binding_failed"
        case .stateMismatch: return "state_mismatch"
        case .cancelled: return "cancelled"
        }
    }
}
