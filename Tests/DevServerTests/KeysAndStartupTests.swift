import DevServer
import DevServerBase
import DevServerTestSupport
import Foundation
import Testing
import TestSupport

@Suite(.ownThreads) struct KeysAndStartupTests {
    @Test func startupLineNamesURLKeysRpIdAndOrigins() async throws {
        try await DevServerHarness.with { h in
            let server = try #require(h.inProcess)
            let line = server.startupLine
            #expect(!line.contains("\n"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(json.keys) == ["apiUrl", "apiKey", "apiSecret", "rpId", "origins", "issuer"])
            #expect(json["apiUrl"] as? String == "http://127.0.0.1:\(server.port)")
            #expect(json["issuer"] as? String == "http://127.0.0.1:\(server.port)/oauth2/default")
            #expect(server.port > 0)
            #expect(json["rpId"] as? String == "localhost")
            #expect(json["origins"] as? [String] == ["https://localhost"])
            let key = try #require(json["apiKey"] as? String)
            let secret = try #require(json["apiSecret"] as? String)
            #expect(key.wholeMatch(of: /devapp:public:[0-9a-f]{32}/) != nil)
            #expect(secret.wholeMatch(of: /devapp:secret:[0-9a-f]{32}/) != nil)
        }
    }

    @Test func keysDifferPerStartWithoutADataDirectory() async throws {
        var first = ""
        try await DevServerHarness.with { first = $0.apiSecret }
        try await DevServerHarness.with { #expect($0.apiSecret != first) }
    }

    @Test func missingOrWrongKeysAre401WithAChallenge() async throws {
        try await DevServerHarness.with { h in
            let wrongSecret = "devapp:secret:" + String(repeating: "0", count: 32)
            let cases: [(String, String, (String, String)?, String)] = [
                ("/users/list", "GET", nil, "ApiSecret"),
                ("/users/list", "GET", ("ApiSecret", wrongSecret), "ApiSecret"),
                ("/users/list", "GET", ("ApiKey", h.apiKey), "ApiSecret"),
                ("/users/list", "GET", ("ApiSecret", h.apiKey), "ApiSecret"),
                ("/users/list", "GET", ("ApiSecret", "verify_abc"), "ApiSecret"),
                ("/users/list", "GET", ("ApiSecret", "hello"), "ApiSecret"),
                ("/signin/begin", "POST", nil, "ApiKey"),
                ("/signin/begin", "POST", ("ApiKey", h.apiSecret), "ApiKey"),
                ("/signin/begin", "POST", ("ApiSecret", h.apiSecret), "ApiKey"),
                ("/signin/begin", "POST", ("ApiKey", "devapp:public:" + String(repeating: "a", count: 32)), "ApiKey"),
            ]
            for (path, method, header, challenge) in cases {
                let reply = try await h.call(method, path, header: header, method == "POST" ? [String: Any]() : nil)
                expectProblem(reply, status: 401, code: nil, titleContains: "'\(challenge)'")
                #expect(reply.headers["www-authenticate"] == challenge)
                #expect(reply.json["type"] as? String == "https://docs.passwordless.dev/guide/errors.html#\(challenge)")
                let detail = try #require(reply.json["detail"] as? String)
                #expect(!detail.contains(h.apiSecret) && !detail.contains(h.apiKey), "a key must never be echoed")
            }
            // The right key in the right header passes.
            #expect(try await h.secret("GET", "/users/count").status == 200)
        }
    }

    @Test func unknownPathIsAProblem404() async throws {
        try await DevServerHarness.with { h in
            expectProblem(try await h.secret("GET", "/no/such/endpoint"), status: 404, code: nil)
        }
    }

    @Test func startRefusesBadConfiguration() async throws {
        let bad: [DevServerConfiguration] = [
            DevServerConfiguration(host: "0.0.0.0"),
            DevServerConfiguration(rpIds: []),
            DevServerConfiguration(rpIds: ["https://localhost"]),
            DevServerConfiguration(origins: ["https://localhost/"]),
            DevServerConfiguration(origins: ["https://LOCALHOST"]),
            DevServerConfiguration(origins: ["https://localhost:443"]),
            DevServerConfiguration(origins: ["ftp://localhost"]),
            DevServerConfiguration(appId: "My App"),
        ]
        for configuration in bad {
            await #expect(throws: DevServerError.self) { _ = try await DevServer.start(configuration) }
        }
    }
}
