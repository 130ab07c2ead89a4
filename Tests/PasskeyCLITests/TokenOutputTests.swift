import AgentProtocol
import Foundation
import Testing
import TestSupport
@testable import PasskeyCLI

/// What `passkey token get --format …` prints is built by pure functions
/// (Output writes to fd 1, which a test must not take over): the shell
/// quoting of `--format env`, and kubectl's ExecCredential.
@Suite(.ownThreads) struct TokenOutputTests {
    /// Reads one POSIX shell word made only of single-quoted parts and `\'`
    /// (the shell's own rule: nothing inside '…' is special), or nil when the
    /// word has anything a shell would expand or split.
    static func unquote(_ word: String) -> String? {
        var out = "", index = word.startIndex
        while index < word.endIndex {
            switch word[index] {
            case "'":
                guard let close = word[word.index(after: index)...].firstIndex(of: "'") else { return nil }
                out += word[word.index(after: index)..<close]
                index = word.index(after: close)
            case "\\":
                let next = word.index(after: index)
                guard next < word.endIndex, word[next] == "'" else { return nil }
                out += "'"
                index = word.index(after: next)
            default:
                return nil
            }
        }
        return out
    }

    @Test("shellQuoted gives one word that eval reads back exactly, whatever the token holds")
    func shellQuoting() {
        #expect(TokenGet.shellQuoted("abc") == "'abc'")
        #expect(TokenGet.shellQuoted("") == "''")
        #expect(TokenGet.shellQuoted("it's") == #"'it'\''s'"#)
        for token in ["eyJhbGciOi.J9.x-_", "'", "''", "'a'", "$(rm -rf ~)", "`id`", "a b\tc\nd", "\\'", "$HOME;export X=1", "*?[]{}~#&|<>!\"%"] {
            let quoted = TokenGet.shellQuoted(token)
            #expect(Self.unquote(quoted) == token, "\(token) → \(quoted)")
        }
    }

    static func call(_ info: String?) -> Result<ExecCredential.Call, AgentError> {
        do throws(AgentError) {
            return .success(try ExecCredential.call(environment: info.map { ["KUBERNETES_EXEC_INFO": $0] } ?? [:]))
        } catch {
            return .failure(error)
        }
    }

    @Test("KUBERNETES_EXEC_INFO: the apiVersion is repeated and spec.interactive read; none means v1 and no word; anything else is invalid_input")
    func execInfo() throws {
        #expect(try Self.call(nil).get() == .init(apiVersion: "client.authentication.k8s.io/v1", interactive: nil))
        #expect(try Self.call("").get() == .init(apiVersion: "client.authentication.k8s.io/v1", interactive: nil))
        let v1 = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false,"cluster":{"server":"https://k"}}}"#
        #expect(try Self.call(v1).get() == .init(apiVersion: "client.authentication.k8s.io/v1", interactive: false))
        let beta = #"{"apiVersion":"client.authentication.k8s.io/v1beta1","spec":{}}"#
        #expect(try Self.call(beta).get() == .init(apiVersion: "client.authentication.k8s.io/v1beta1", interactive: nil))
        let interactive = #"{"apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":true}}"#
        #expect(try Self.call(interactive).get().interactive == true)

        for bad in ["not json", "[]", #"{"spec":{}}"#, #"{"apiVersion":"client.authentication.k8s.io/v1alpha1"}"#,
                    #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod"}"#,
                    #"{"apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":"yes"}}"#,
                    #"{"apiVersion":""# + String(repeating: "a", count: 1 << 20) + #""}"#] {
            guard case .failure(let error) = Self.call(bad) else {
                Issue.record("accepted \(bad.prefix(80))")
                continue
            }
            #expect(error.kind == .invalidInput, "\(error)")
        }
    }

    @Test("a call kubectl says is not interactive never asks; otherwise only the controlling terminal may")
    func prompting() {
        #expect(ExecCredential.prompting(for: .init(apiVersion: "v", interactive: false)) == .never)
        #expect(ExecCredential.prompting(for: .init(apiVersion: "v", interactive: true)) == .controllingTerminal)
        #expect(ExecCredential.prompting(for: .init(apiVersion: "v", interactive: nil)) == .controllingTerminal)
    }

    @Test("the ExecCredential kubectl reads: apiVersion repeated, kind, status.token and an RFC 3339 UTC expirationTimestamp")
    func execCredentialJSON() throws {
        let token = AccessTokenResult(accessToken: "AT-1", tokenType: "Bearer", expiresAt: 1_777_636_800, refreshed: false)
        let data = try JSONEncoder().encode(ExecCredential(apiVersion: "client.authentication.k8s.io/v1beta1", token: token))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["apiVersion"] as? String == "client.authentication.k8s.io/v1beta1")
        #expect(object["kind"] as? String == "ExecCredential")
        let status = try #require(object["status"] as? [String: Any])
        #expect(status["token"] as? String == "AT-1")
        #expect(status["expirationTimestamp"] as? String == "2026-05-01T12:00:00Z")
        #expect(Set(status.keys) == ["token", "expirationTimestamp"])

        let endless = AccessTokenResult(accessToken: "AT-2", tokenType: "Bearer", expiresAt: nil, refreshed: true)
        let noExpiry = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(ExecCredential(apiVersion: "v", token: endless))) as? [String: Any]
        #expect((noExpiry?["status"] as? [String: Any])?["expirationTimestamp"] == nil, "no lifetime: kubectl treats it as not expiring")
    }

    @Test("RFC 3339 times only for years 1970–9999; outside them none (kubectl would misread them)")
    func rfc3339() {
        #expect(ExecCredential.rfc3339(0) == "1970-01-01T00:00:00Z")
        #expect(ExecCredential.rfc3339(253_402_300_799) == "9999-12-31T23:59:59Z")
        #expect(ExecCredential.rfc3339(253_402_300_800) == nil)
        #expect(ExecCredential.rfc3339(-1) == nil)
        #expect(ExecCredential.rfc3339(.max) == nil && ExecCredential.rfc3339(.min) == nil)
    }
}
