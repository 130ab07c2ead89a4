import BoundedJSON
import FIDOTestSupport
import FoundationEssentials
import Harness
import HTTPTransport
import Locking
@testable import Passwordless
import Testing
import TestSupport
import WebAuthn

/// The API clients' side of the wire, against a loopback server that plays
/// a hosted passwordless.dev answering oddly: the paths, headers and field
/// names sent, and every kind of answer turned into its `PasswordlessError`.
@Suite(.ownThreads) struct PasswordlessHTTPTests {
    /// A loopback server answering every request with `answer`, recording them.
    final class Hosted: Sendable {
        let requests = Locked<[LoopbackHTTPServer.Request]>([])
        let server: LoopbackHTTPServer

        init(_ answer: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Answer) throws {
            let requests = self.requests
            server = try LoopbackHTTPServer { request in
                requests.withLock { $0.append(request) }
                return answer(request)
            }
        }

        var apiURL: String { server.url("") }
        var received: [LoopbackHTTPServer.Request] { requests.withLock { $0 } }

        func api(origin: String? = nil) throws -> PasswordlessAPI {
            PasswordlessAPI(settings: try PasswordlessSettings(apiURL: apiURL, apiKey: "app:public:k", rpId: "example.org", origin: origin),
                            transport: HTTPTransport())
        }

        func backend() -> PasswordlessBackend { PasswordlessBackend(apiURL: apiURL, apiSecret: "app:secret:s", transport: HTTPTransport()) }
    }

    static func json(_ request: LoopbackHTTPServer.Request) throws -> [String: JSONValue] {
        guard case .object(let fields) = try JSONDecoder().decode(JSONValue.self, from: Data(request.body)) else {
            throw ScriptEnded("the body is not a JSON object")
        }
        return fields
    }

    @Test("the public API: each call's path, the ApiKey header, and the RPID and Origin fields the hosted API binds")
    func publicRequestsAreShapedAsTheHostedAPIBinds() async throws {
        let hosted = try Hosted { _ in .json(#"{"token":"verify_x"}"#) }
        let api = try hosted.api()
        // The begin answers do not decode here (no options): only the requests matter.
        _ = try? await api.registerBegin(token: "register_t")
        _ = try? await api.signinBegin(alias: "alice@example.org", userId: nil)
        _ = try? await api.signinBegin(alias: nil, userId: nil)
        let requests = hosted.received
        try #require(requests.count == 3)
        #expect(requests.map(\.path) == ["/register/begin", "/signin/begin", "/signin/begin"])
        #expect(requests.allSatisfy { $0.method == "POST" && $0.header("ApiKey") == "app:public:k" && $0.header("ApiSecret") == nil })
        #expect(requests.allSatisfy { $0.header("Content-Type") == "application/json" })
        #expect(try Self.json(requests[0]) == ["token": .string("register_t"), "RPID": .string("example.org"),
                                               "Origin": .string("https://example.org")])
        let byAlias = try Self.json(requests[1])
        #expect(byAlias["alias"] == .string("alice@example.org") && byAlias["RPID"] == .string("example.org"))
        #expect(byAlias["userId"] == nil || byAlias["userId"] == .null, "no user id is sent as none")
        let discoverable = try Self.json(requests[2])
        #expect((discoverable["alias"] ?? .null) == .null && (discoverable["userId"] ?? .null) == .null)
    }

    @Test("the secret API: /register/token and /signin/verify with the ApiSecret header, never the public key")
    func secretRequests() async throws {
        let hosted = try Hosted { request in
            request.path == "/register/token" ? .json(#"{"token":"register_abc"}"#)
                : .json(#"{"success":true,"userId":"u1","type":"passkey_signin","rpid":"example.org","origin":"https://example.org","credentialId":"AQID","timestamp":"2025-01-01T00:00:00Z"}"#)
        }
        let backend = hosted.backend()
        let token = try await backend.registerToken(.init(userId: "u1", username: "alice", aliases: ["a@example.org"], discoverable: true))
        #expect(token == "register_abc")
        let verified = try await backend.verify(token: "verify_abc")
        #expect(verified.success && verified.userId == "u1" && verified.type == "passkey_signin")
        #expect(verified.rpId == "example.org", "an answer spelling it `rpid` (older hosted answers) still gives the RP ID")
        #expect(verified.credentialId == "AQID" && verified.origin == "https://example.org")
        let requests = hosted.received
        try #require(requests.count == 2)
        #expect(requests.map(\.path) == ["/register/token", "/signin/verify"])
        #expect(requests.allSatisfy { $0.header("ApiSecret") == "app:secret:s" && $0.header("ApiKey") == nil })
        let registerToken = try Self.json(requests[0])
        #expect(registerToken["userId"] == .string("u1") && registerToken["username"] == .string("alice"))
        #expect(registerToken["aliases"] == .array([.string("a@example.org")]) && registerToken["discoverable"] == .bool(true))
        #expect(try Self.json(requests[1]) == ["token": .string("verify_abc")])
    }

    @Test("problem details become .server with the HTTP status; a body that is none still reports the status")
    func problemDetails() async throws {
        let hosted = try Hosted { request in
            switch request.path {
            case "/register/token":
                // `status` left out of the body: the HTTP status is the one that counts.
                return .json(#"{"type":"https://docs.passwordless.dev/guide/errors.html#missing_userid","title":"A userId is required.","errorCode":"missing_userid"}"#,
                             status: "400 Bad Request")
            default:
                return LoopbackHTTPServer.Answer(status: "502 Bad Gateway", headers: [("Content-Type", "text/html")], body: "<html>proxy</html>")
            }
        }
        let backend = hosted.backend()
        let problem = await thrownError { try await backend.registerToken(.init(userId: "", username: "x")) }
        #expect(problem as? PasswordlessError == .server(ProblemDetails(
            type: "https://docs.passwordless.dev/guide/errors.html#missing_userid", title: "A userId is required.", status: 400,
            errorCode: "missing_userid", detail: nil)))
        let proxy = await thrownError { try await backend.verify(token: "verify_x") }
        #expect(proxy as? PasswordlessError == .server(ProblemDetails(type: nil, title: nil, status: 502, errorCode: nil, detail: nil)))
        #expect((proxy as? PasswordlessError)?.description == "the server refused the request: HTTP 502")
    }

    @Test("a 200 that is not what the API documents is malformedResponse, naming the URL and what did not decode")
    func malformedAnswers() async throws {
        let hosted = try Hosted { _ in .json(#"{"session":"s"}"#) }
        let error = await thrownError { try await hosted.api().registerBegin(token: "t") }
        guard case .malformedResponse(let url, let reason)? = error as? PasswordlessError else {
            Issue.record("expected malformedResponse, got \(String(describing: error))")
            return
        }
        #expect(url == hosted.apiURL + "/register/begin")
        #expect(reason.contains("does not decode"), "\(reason)")
        let noToken = await thrownError { try await hosted.backend().registerToken(.init(userId: "u", username: "u")) }
        guard case .malformedResponse(let tokenURL, _)? = noToken as? PasswordlessError else {
            Issue.record("expected malformedResponse, got \(String(describing: noToken))")
            return
        }
        #expect(tokenURL == hosted.apiURL + "/register/token")
    }

    @Test("nobody at the API's address: .transport with the transport's own error")
    func unreachable() async throws {
        let gone = try LoopbackHTTPServer { _ in .json("{}") }
        let apiURL = gone.url("")
        gone.stop()
        // (AsyncHTTPClient retries a refused connection until the connect timeout: a short one keeps this quick.)
        let backend = PasswordlessBackend(apiURL: apiURL, apiSecret: "s", transport: HTTPTransport(connectTimeout: .seconds(1)))
        let error = await thrownError { try await backend.verify(token: "verify_x") }
        #expect(error as? PasswordlessError == .transport(.connectionFailed(url: apiURL + "/signin/verify", reason: "connection refused")))
    }

    @Test("settings: the key and RP ID are required and say where to set them; the URL's trailing slash goes; the origin defaults to https://<rpId>")
    func settings() throws {
        #expect(throws: PasswordlessError.self) { try PasswordlessSettings(apiURL: nil, apiKey: nil, rpId: "example.org", origin: nil) }
        for apiKey in [nil, ""] {
            do {
                _ = try PasswordlessSettings(apiURL: nil, apiKey: apiKey, rpId: "example.org", origin: nil)
                Issue.record("settings without an API key were accepted")
            } catch {
                guard case .missingSetting(let what) = error else { Issue.record("\(error)"); continue }
                #expect(what.contains("--api-key") && what.contains("[passwordless]"))
            }
        }
        for rpId in [nil, ""] {
            do {
                _ = try PasswordlessSettings(apiURL: nil, apiKey: "k", rpId: rpId, origin: nil)
                Issue.record("settings without an RP ID were accepted")
            } catch {
                guard case .missingSetting(let what) = error else { Issue.record("\(error)"); continue }
                #expect(what.contains("--rp-id"))
            }
        }
        let defaults = try PasswordlessSettings(apiURL: nil, apiKey: "k", rpId: "example.org", origin: nil)
        #expect(defaults.apiURL == "https://v4.passwordless.dev" && defaults.origin == "https://example.org")
        let given = try PasswordlessSettings(apiURL: "http://127.0.0.1:8080/", apiKey: "k", rpId: "example.org", origin: "https://app.example.org")
        #expect(given.apiURL == "http://127.0.0.1:8080" && given.origin == "https://app.example.org")
        #expect(PasswordlessBackend(apiURL: "http://h/", apiSecret: "s", transport: HTTPTransport()).apiURL == "http://h")
    }

    @Test("problem details read as a sentence: the code and status, the title, the detail when it says more")
    func problemDescriptions() throws {
        #expect(ProblemDetails(type: nil, title: "The token expired 12 seconds ago.", status: 403, errorCode: "expired_token", detail: nil)
            .description == "the server refused the request: expired_token (403) — The token expired 12 seconds ago.")
        #expect(ProblemDetails(type: nil, title: "Bad", status: 400, errorCode: nil, detail: "Bad").description
            == "the server refused the request: HTTP 400 — Bad")
        #expect(ProblemDetails(type: nil, title: nil, status: 409, errorCode: "alias_conflict", detail: "in use").description
            == "the server refused the request: alias_conflict (409) in use")
        // Every field may be missing or of the wrong kind: still a problem worth reporting.
        let odd = try JSONDecoder().decode(ProblemDetails.self, from: Data(#"{"status":"x","title":7,"errorCode":"e"}"#.utf8))
        #expect(odd == ProblemDetails(type: nil, title: nil, status: 0, errorCode: "e", detail: nil))
    }

    @Test("a user handle is shown as the user id only when it is printable UTF-8")
    func printableUserIds() {
        #expect(PasswordlessCeremonies.printableUserId(Base64URLBytes(Array("user-1".utf8))) == "user-1")
        #expect(PasswordlessCeremonies.printableUserId(Base64URLBytes(Array("Zoë 🔑".utf8))) == "Zoë 🔑")
        #expect(PasswordlessCeremonies.printableUserId(Base64URLBytes([0xFF, 0xFE, 0x41])) == nil, "not UTF-8")
        #expect(PasswordlessCeremonies.printableUserId(Base64URLBytes(Array("evil\u{1B}[2J".utf8))) == nil, "a terminal escape")
        #expect(PasswordlessCeremonies.printableUserId(Base64URLBytes(Array("line\nbreak".utf8))) == nil)
        #expect(PasswordlessCeremonies.printableUserId(Base64URLBytes([])) == nil)
    }
}
