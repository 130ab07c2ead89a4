import DevServer
import DevServerBase
import Foundation
import Locking
import Testing
import TestSupport
import WebAuthn

/// A clock the tests move forward to expire sessions and tokens without waiting.
/// It runs with the real clock unless frozen: a test about spacing in time
/// (the device grant's `slow_down`) freezes it, so a loaded machine's pauses
/// between two requests do not count as time passing.
package final class TestClock: Sendable {
    private let offset = Locked<TimeInterval>(0)
    private let frozenAt = Locked<Date?>(nil)

    package func advance(seconds: TimeInterval) { offset.withLock { $0 += seconds } }
    /// From now on time moves only by `advance`.
    package func freeze() { frozenAt.withLock { $0 = $0 ?? Date() } }
    /// From now on time is `date`, moved only by `advance`.
    package func freeze(at date: Date) { frozenAt.withLock { $0 = date }; offset.withLock { $0 = 0 } }
    package func now() -> Date { (frozenAt.withLock { $0 } ?? Date()).addingTimeInterval(offset.withLock { $0 }) }
    package var devServerClock: DevServerClock { DevServerClock { self.now() } }
}

/// A devserver driven over real HTTP: in-process on 127.0.0.1 port 0
/// (`with`), or the `passkey-devserver` executable (`DevServerProcess`).
package struct DevServerHarness {
    package let client: LoopbackHTTPClient
    package let apiKey: String
    package let apiSecret: String
    package let rpId: String
    package let origin: String
    /// The in-process server, when there is one.
    package let inProcess: RunningDevServer?
    package let clock: TestClock

    package init(apiURL: String, apiKey: String, apiSecret: String, rpId: String, origin: String,
         inProcess: RunningDevServer? = nil, clock: TestClock = TestClock()) throws {
        client = try LoopbackHTTPClient(apiURL: apiURL)
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.rpId = rpId
        self.origin = origin
        self.inProcess = inProcess
        self.clock = clock
    }

    /// Runs `body` against a fresh server and always shuts it down.
    package static func with(_ configure: (inout DevServerConfiguration) -> Void = { _ in },
                     _ body: (DevServerHarness) async throws -> Void) async throws {
        let clock = TestClock()
        var configuration = DevServerConfiguration(clock: clock.devServerClock,
                                                   logger: DevServer.standardErrorLogger(level: .warning))
        configure(&configuration)
        let server = try await DevServer.start(configuration)
        let harness = try DevServerHarness(apiURL: server.apiURL, apiKey: server.apiKey, apiSecret: server.apiSecret,
                                           rpId: server.rpId, origin: server.origins[0], inProcess: server, clock: clock)
        do {
            try await body(harness)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    // MARK: Raw calls

    package func secret(_ method: String, _ path: String, _ json: Any? = nil) async throws -> LoopbackHTTPClient.Reply {
        try await call(method, path, header: ("ApiSecret", apiSecret), json)
    }

    package func publicAPI(_ path: String, _ json: Any) async throws -> LoopbackHTTPClient.Reply {
        try await call("POST", path, header: ("ApiKey", apiKey), json)
    }

    package func call(_ method: String, _ path: String, header: (String, String)?, _ json: Any?) async throws -> LoopbackHTTPClient.Reply {
        let headers = header.map { [$0.0: $0.1] } ?? [:]
        if let json { return try await client.send(method, path, headers: headers, json: json) }
        return try await client.send(method, path, headers: headers)
    }

    // MARK: Ceremony steps

    package func registerToken(userId: String, _ extra: [String: Any] = [:]) async throws -> String {
        var body: [String: Any] = ["userId": userId, "username": "\(userId)@example.com"]
        body.merge(extra) { _, new in new }
        let reply = try await secret("POST", "/register/token", body)
        try #require(reply.status == 200, "\(reply)")
        return try #require(reply.json["token"] as? String)
    }

    package func registerBegin(token: String) async throws -> (PublicKeyCredentialCreationOptionsJSON, String) {
        let reply = try await publicAPI("/register/begin", ["token": token, "RPID": rpId, "Origin": origin])
        try #require(reply.status == 200, "\(reply)")
        let envelope = try JSONDecoder().decode(Envelope<PublicKeyCredentialCreationOptionsJSON>.self, from: Data(reply.body))
        return (envelope.data, envelope.session)
    }

    package func registerComplete(session: String, _ response: RegistrationResponseJSON, origin: String? = nil,
                          extra: [String: Any] = [:]) async throws -> LoopbackHTTPClient.Reply {
        var body: [String: Any] = ["session": session, "response": try jsonObject(response), "RPID": rpId,
                                   "Origin": origin ?? self.origin]
        body.merge(extra) { _, new in new }
        return try await publicAPI("/register/complete", body)
    }

    /// A whole registration; returns the verify token.
    package func register(userId: String, with authenticator: inout SoftwareAuthenticator, _ extra: [String: Any] = [:]) async throws -> String {
        let (options, session) = try await registerBegin(token: try await registerToken(userId: userId, extra))
        let reply = try await registerComplete(session: session, authenticator.register(options, origin: origin))
        try #require(reply.status == 200, "\(reply)")
        return try #require(reply.json["token"] as? String)
    }

    package func signinBegin(_ body: [String: Any] = [:]) async throws -> (PublicKeyCredentialRequestOptionsJSON, String) {
        var request: [String: Any] = ["RPID": rpId, "Origin": origin]
        request.merge(body) { _, new in new }
        let reply = try await publicAPI("/signin/begin", request)
        try #require(reply.status == 200, "\(reply)")
        let envelope = try JSONDecoder().decode(Envelope<PublicKeyCredentialRequestOptionsJSON>.self, from: Data(reply.body))
        return (envelope.data, envelope.session)
    }

    package func signinComplete(session: String, _ response: AuthenticationResponseJSON,
                        origin: String? = nil) async throws -> LoopbackHTTPClient.Reply {
        try await publicAPI("/signin/complete", ["session": session, "response": try jsonObject(response), "RPID": rpId,
                                                 "Origin": origin ?? self.origin])
    }

    /// A whole sign-in; returns the verify token.
    package func signIn(_ body: [String: Any], with authenticator: inout SoftwareAuthenticator) async throws -> String {
        let (options, session) = try await signinBegin(body)
        let reply = try await signinComplete(session: session, authenticator.assert(options, origin: origin))
        try #require(reply.status == 200, "\(reply)")
        return try #require(reply.json["token"] as? String)
    }

    package func verify(_ token: String) async throws -> LoopbackHTTPClient.Reply {
        try await secret("POST", "/signin/verify", ["token": token])
    }

    package func jsonObject(_ value: some Encodable) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
    }
}

package struct Envelope<Options: Decodable>: Decodable {
    package var data: Options
    package var session: String
}

/// Expects a problem-details refusal with the given status and error code.
package func expectProblem(_ reply: LoopbackHTTPClient.Reply, status: Int, code: String?, titleContains: String? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "\(reply)", sourceLocation: sourceLocation)
    #expect(reply.headers["content-type"] == "application/problem+json", sourceLocation: sourceLocation)
    let json = reply.json
    #expect(json["status"] as? Int == status, sourceLocation: sourceLocation)
    #expect(json["errorCode"] as? String == code, "\(reply)", sourceLocation: sourceLocation)
    #expect((json["title"] as? String).map { !$0.isEmpty } == true, sourceLocation: sourceLocation)
    if let code {
        #expect(json["type"] as? String == "https://docs.passwordless.dev/guide/errors.html#\(code)", sourceLocation: sourceLocation)
    }
    if let titleContains {
        #expect((json["title"] as? String)?.contains(titleContains) == true, "\(reply)", sourceLocation: sourceLocation)
    }
}
