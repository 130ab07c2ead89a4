import Base64
import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport
import WebAuthn

/// The secret API's bookkeeping: aliases, credentials, users, generated tokens.
@Suite(.ownThreads) struct ManagementTests {
    @Test func aliasesReplaceConflictAndList() async throws {
        try await DevServerHarness.with { h in
            #expect(try await h.secret("POST", "/alias", ["userId": "ada", "aliases": ["ada@example.com", "ada"], "hashing": false]).status == 204)
            expectProblem(try await h.secret("POST", "/alias", ["userId": "bob", "aliases": ["ada"]]), status: 409, code: "alias_conflict")
            expectProblem(try await h.secret("POST", "/register/token", ["userId": "bob", "username": "bob", "aliases": ["ada"]]),
                          status: 409, code: "alias_conflict")

            let list = try await h.secret("GET", "/alias/list?userId=ada")
            let values = try #require(list.json["values"] as? [[String: Any]])
            #expect(Set(values.compactMap { $0["plaintext"] as? String }) == ["ada@example.com", "ada"])
            #expect(values.allSatisfy { $0["tenant"] as? String == "devapp" && $0["userId"] as? String == "ada" })
            #expect(values.allSatisfy { ($0["alias"] as? String).flatMap { Data(base64Encoded: $0) }?.count == 32 })

            // Replacing: only the new alias remains, stored hashed (plaintext null).
            #expect(try await h.secret("POST", "/alias", ["userId": "ada", "aliases": ["lovelace"]]).status == 204)
            let replaced = try #require(try await h.secret("GET", "/alias/list?userId=ada").json["values"] as? [[String: Any]])
            #expect(replaced.count == 1)
            #expect(replaced.first?["plaintext"] is NSNull)
            // A hashed alias still signs in.
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "ada", with: &key)
            let (options, _) = try await h.signinBegin(["alias": "lovelace"])
            #expect(options.allowCredentials.map(\.id.bytes) == [key.credentialId])
            // An unknown alias reveals nothing: an empty list, as hosted.
            let (unknown, _) = try await h.signinBegin(["alias": "nobody"])
            #expect(unknown.allowCredentials.isEmpty)
            expectProblem(try await h.secret("GET", "/alias/list"), status: 400, code: "missing_userid")
        }
    }

    @Test func registrationStoresTheTokensAliases() async throws {
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "ada", with: &key, ["aliases": ["ada@example.com"]])
            let (options, _) = try await h.signinBegin(["alias": "ada@example.com"])
            #expect(options.allowCredentials.map(\.id.bytes) == [key.credentialId])
        }
    }

    @Test func credentialsAndUsersListCountAndDelete() async throws {
        try await DevServerHarness.with { h in
            var first = SoftwareAuthenticator()
            var second = SoftwareAuthenticator()
            var other = SoftwareAuthenticator()
            _ = try await h.register(userId: "ada", with: &first, ["aliases": ["ada"], "aliasHashing": false])
            _ = try await h.register(userId: "ada", with: &second)
            _ = try await h.register(userId: "bob", with: &other)

            #expect(try await h.secret("GET", "/users/count").json["count"] as? Int == 2)
            let users = try #require(try await h.secret("GET", "/users/list").json["values"] as? [[String: Any]])
            #expect(users.map { $0["userId"] as? String } == ["ada", "bob"])
            #expect(users.first?["credentialsCount"] as? Int == 2)
            #expect(users.first?["aliasCount"] as? Int == 1)
            #expect(users.first?["aliases"] as? [String] == ["ada"])

            let credentials = try #require(try await h.secret("GET", "/credentials/list?userId=ada").json["values"] as? [[String: Any]])
            #expect(credentials.count == 2)
            let credential = try #require(credentials.first)
            for field in ["descriptor", "publicKey", "userHandle", "signatureCounter", "attestationFmt", "createdAt", "lastUsedAt",
                          "aaGuid", "rpid", "origin", "country", "device", "nickname", "userId", "backupState",
                          "isBackupEligible", "isDiscoverable"] {
                #expect(credential.keys.contains(field), "missing \(field)")
            }
            #expect(credential["aaGuid"] as? String == "00000000-0000-0000-0000-000000000000")
            let publicKey = try #require((credential["publicKey"] as? String).flatMap { Data(base64Encoded: $0) })
            #expect(try COSEKey(encoded: Array(publicKey)) == COSEKey(p256: first.key.publicKey))

            let deleted = try await h.secret("POST", "/credentials/delete", ["credentialId": Base64URL.encode(first.credentialId)])
            #expect(deleted.status == 204)
            let again = try await h.secret("POST", "/credentials/delete", ["credentialId": Base64URL.encode(first.credentialId)])
            expectProblem(again, status: 400, code: "unknown_credential")
            // A deleted credential can no longer sign in.
            let (options, session) = try await h.signinBegin([:])
            expectProblem(try await h.signinComplete(session: session, first.assert(options, origin: h.origin)),
                          status: 400, code: "unknown_credential")

            #expect(try await h.secret("POST", "/users/delete", ["userId": "ada"]).status == 200)
            #expect(try await h.secret("GET", "/users/count").json["count"] as? Int == 1)
            let emptied = try await h.secret("POST", "/credentials/list", ["userId": "ada"])
            #expect((emptied.json["values"] as? [Any])?.isEmpty == true)
            expectProblem(try await h.secret("GET", "/credentials/list"), status: 400, code: "missing_userid")
        }
    }

    @Test func generatedSignInToken() async throws {
        try await DevServerHarness.with { h in
            let reply = try await h.secret("POST", "/signin/generate-token", ["userId": "ada", "timeToLive": 30, "purpose": "step-up",
                                                                              "origin": "https://localhost"])
            let token = try #require(reply.json["token"] as? String, "\(reply)")
            let verified = try await h.verify(token)
            #expect(verified.json["type"] as? String == "generated_signin")
            #expect(verified.json["userId"] as? String == "ada")
            #expect(verified.json["purpose"] as? String == "step-up")
            #expect(verified.json["origin"] as? String == "https://localhost")
            #expect(verified.json["credentialId"] is NSNull)
            expectProblem(try await h.secret("POST", "/signin/generate-token", ["userId": "ada", "timeToLive": 0]),
                          status: 400, code: "invalid_argument")
            let short = try #require(try await h.secret("POST", "/signin/generate-token", ["userId": "ada", "timeToLive": 30]).json["token"] as? String)
            h.clock.advance(seconds: 31)
            expectProblem(try await h.verify(short), status: 403, code: "expired_token")
        }
    }
}
