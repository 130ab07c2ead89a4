import Crypto
import HTTPTypes
import Hummingbird

/// Checks the `ApiKey` (public API) or `ApiSecret` (secret API) header. A
/// refusal is a 401 whose detail names the usual mistake — a token sent as
/// the key, the public key where the secret belongs, the other header — as
/// the hosted API's does. Never echoes the key.
package struct KeyCheck: Sendable {
    package enum Header: String, Sendable {
        case apiKey = "ApiKey"
        case apiSecret = "ApiSecret"

        // Both names are valid header tokens, so the initialiser cannot fail.
        package var fieldName: HTTPField.Name { HTTPField.Name(rawValue)! }
        var other: Header { self == .apiKey ? .apiSecret : .apiKey }
        var kind: String { self == .apiKey ? "public" : "secret" }
        var described: String { self == .apiKey ? "public key" : "secret" }
    }

    let keys: AppKeys

    package init(keys: AppKeys) { self.keys = keys }

    package func check(_ request: Request, requires header: Header) throws(APIProblem) {
        guard let value = request.headers[header.fieldName], !value.isEmpty else {
            if request.headers[header.other.fieldName] != nil {
                throw .unauthorized(header: header.rawValue, detail:
                    "This endpoint takes your \(header.described) in the '\(header.rawValue)' header; the request has an '\(header.other.rawValue)' header instead.")
            }
            throw .unauthorized(header: header.rawValue, detail:
                "Send your \(header.described) (\(keys.appId):\(header.kind):…) in the '\(header.rawValue)' header.")
        }
        for prefix in ["register_", "verify_", "session_"] where value.hasPrefix(prefix) {
            throw .unauthorized(header: header.rawValue, detail:
                "The '\(header.rawValue)' header holds a \(prefix) token; tokens go in the request body, the header takes your \(header.described).")
        }
        if AppKeys.hasShape(value, kind: header.other.kind) {
            throw .unauthorized(header: header.rawValue, detail:
                "The '\(header.rawValue)' header holds a \(header.other.described); this endpoint needs your \(header.described) (\(keys.appId):\(header.kind):…).")
        }
        guard AppKeys.hasShape(value, kind: header.kind) else {
            throw .unauthorized(header: header.rawValue, detail:
                "The '\(header.rawValue)' header is not a \(header.described); expected the form <app>:\(header.kind):<32 hex digits>.")
        }
        let expected = header == .apiKey ? keys.apiKey : keys.apiSecret
        // Digest equality is constant-time in swift-crypto, so the comparison
        // does not leak how much of a guessed secret was right.
        guard SHA256.hash(data: Array(value.utf8)) == SHA256.hash(data: Array(expected.utf8)) else {
            throw .unauthorized(header: header.rawValue, detail:
                "The \(header.described) in '\(header.rawValue)' is not this server's; use the one passkey-devserver printed at start-up.")
        }
    }
}
