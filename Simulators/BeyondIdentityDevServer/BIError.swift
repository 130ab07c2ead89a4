import DevServerBase
import HTTPTypes
import Hummingbird

/// An error of the IdP's API: `{"error","error_description"}` with a 4xx,
/// the codes the contract names (credential_not_found, policy_denied, …).
struct BIError: Error, Sendable {
    var code: String
    var description: String
    var status: HTTPResponse.Status = .badRequest

    static func invalidRequest(_ description: String) -> BIError { BIError(code: "invalid_request", description: description) }
    static func notFound(_ what: String) -> BIError { BIError(code: "not_found", description: "\(what) is not known here.", status: .notFound) }
    static let busy = BIError(code: "temporarily_unavailable", description: "The devserver holds too many BI records; try again later.",
                              status: .serviceUnavailable)

    var response: Response {
        OAuthResponse.json(["error": code, "error_description": description], status: status)
    }
}
