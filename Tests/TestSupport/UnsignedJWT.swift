import Foundation

/// A compact JWS whose payload is `payload`, written as raw JSON, signed by
/// no one (`alg: none`, signature "sig"): what a token document's access
/// token looks like to a reader of its claims.
public func unsignedJWT(_ payload: String) -> String {
    func part(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return part(#"{"alg":"none"}"#) + "." + part(payload) + ".sig"
}
