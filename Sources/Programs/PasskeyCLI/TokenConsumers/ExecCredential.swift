import AgentProtocol
import FoundationEssentials
import Settings

/// `passkey token get ACCOUNT --format exec-credential`: a Kubernetes
/// client-go credential plugin (kubectl's `users[].user.exec`). kubectl
/// describes the call in KUBERNETES_EXEC_INFO, an ExecCredential whose
/// `apiVersion` the answer must repeat and whose `spec.interactive` says
/// whether the plugin may ask anyone anything; the answer is an
/// ExecCredential with `status.token` and `status.expirationTimestamp`
/// (RFC 3339), until which kubectl reuses the token without running us.
package struct ExecCredential: Encodable {
    struct Status: Encodable {
        var token: String
        var expirationTimestamp: String?
    }

    var apiVersion: String
    var kind = "ExecCredential"
    var status: Status

    /// The API versions of client.authentication.k8s.io that have this shape.
    package static let apiVersions = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"]

    /// What kubectl said about this call.
    package struct Call: Equatable {
        package var apiVersion: String
        /// nil when kubectl did not say (v1beta1 may leave it out): then a terminal decides.
        package var interactive: Bool?
    }

    /// Reads KUBERNETES_EXEC_INFO; without it (run by hand, or an old
    /// client), v1 and no word on interactivity.
    package static func call(environment: [String: String]) throws(AgentError) -> Call {
        guard let text = environment["KUBERNETES_EXEC_INFO"], !text.isEmpty else {
            return Call(apiVersion: apiVersions[0], interactive: nil)
        }
        struct Info: Decodable {
            struct Spec: Decodable { var interactive: Bool? }
            var apiVersion: String?
            var kind: String?
            var spec: Spec?
        }
        // kubectl's own document is a few hundred bytes (more with cluster info).
        guard text.utf8.count <= 1 << 20,
              let info = try? JSONDecoder().decode(Info.self, from: Data(text.utf8)) else {
            throw AgentError(.invalidInput, "KUBERNETES_EXEC_INFO is not an ExecCredential JSON document")
        }
        guard let version = info.apiVersion, apiVersions.contains(version) else {
            throw AgentError(.invalidInput, "KUBERNETES_EXEC_INFO asks for apiVersion \(info.apiVersion ?? "(none)"); "
                             + "passkey answers \(apiVersions.joined(separator: " or "))")
        }
        guard info.kind == nil || info.kind == "ExecCredential" else {
            throw AgentError(.invalidInput, "KUBERNETES_EXEC_INFO is a \(info.kind ?? ""), not an ExecCredential")
        }
        return Call(apiVersion: version, interactive: info.spec?.interactive)
    }

    /// How the person may be asked: never when kubectl says the call is not
    /// interactive; else on the controlling terminal, as a credential helper
    /// (kubectl keeps the plugin's stdout, and shows its stderr only on failure).
    static func prompting(for call: Call) -> Prompting {
        call.interactive == false ? .never : .controllingTerminal
    }

    init(apiVersion: String, token: AccessTokenResult) {
        self.apiVersion = apiVersion
        status = Status(token: token.accessToken, expirationTimestamp: token.expiresAt.flatMap(Self.rfc3339))
    }

    /// `2026-05-01T12:00:00Z`; nil outside years 1970–9999, where kubectl then treats the token as not expiring.
    static func rfc3339(_ seconds: Int64) -> String? {
        guard (0...253_402_300_799).contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }

    /// Prints the ExecCredential for ACCOUNT's fresh token.
    static func print(account: String, minValid: Int, on backend: Backend) async throws(AgentError) {
        let call = try call(environment: ProcessEnvironment.current)
        let token = try await FreshToken.get(account: account, minValid: minValid, prompting: prompting(for: call), on: backend)
        Output.json(ExecCredential(apiVersion: call.apiVersion, token: token))
    }
}
