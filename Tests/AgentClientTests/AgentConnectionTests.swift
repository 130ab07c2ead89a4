import AgentClient
import AgentProtocol
import AgentTestSupport
import Foundation
import Interaction
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `AgentConnection`, the CLI's side, against the agent's server started in
/// this process: results and errors decoded into the caller's types, and the
/// agent's `pin` questions answered through the caller's `UserInteraction`.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct AgentConnectionTests {
    static let pin = "246810"

    /// The call's error, or nil when it succeeded.
    static func failure<M: AgentMethod>(_ connection: AgentConnection, _ method: M.Type, _ params: M.Params,
                                        _ person: ScriptedPerson = ScriptedPerson()) async -> AgentError? {
        do throws(AgentError) {
            _ = try await connection.call(method, params, interaction: person)
            return nil
        } catch {
            return error
        }
    }

    /// A method the agent does not serve.
    enum Unknown: AgentMethod {
        static let name = "test.no-such-method"
        static let answerWait = AnswerWait.nothing
        typealias Params = NoParams
        typealias Result = NoParams
    }

    /// `webauthn.get` with params of the wrong shape, as an out-of-date client might send them.
    enum WrongShape: AgentMethod {
        static let name = WebAuthnGetMethod.name
        static let answerWait = AnswerWait.person
        struct Params: Codable, Sendable { var origin: Int }
        typealias Result = NoParams
    }

    /// A software key with a PIN, whose fingerprint reader recognises no finger: what needs the key asks for the PIN.
    static func withKeyPIN(_ body: (InProcessAgent, AgentConnection) async throws -> Void) async throws {
        try await InProcessAgent.with(extraEnvironment: ["PASSKEY_VIRTUAL_VERIFICATION": "deny"]) { agent in
            _ = try await agent.core.methods.call(PINSetMethod.self, .init(device: DeviceChoice(device: "virtual"), newPin: Self.pin),
                                                  interaction: ScriptedPerson())
            try await body(agent, try #require(try AgentConnection.connect(path: agent.socketPath)))
        }
    }

    static let virtual = DeviceChoice(device: "virtual")

    @Test("results decode into the method's type, call after call on one connection")
    func results() async throws {
        try await InProcessAgent.with { agent in
            let connection = try #require(try AgentConnection.connect(path: agent.socketPath))
            #expect(connection.path == agent.socketPath)
            for _ in 0..<3 {
                let status = try await connection.call(AgentStatusMethod.self, NoParams(), interaction: ScriptedPerson())
                #expect(status.protocolVersion == protocolVersion && status.pid == getpid())
            }
            let vault = try await connection.call(VaultStatusMethod.self, NoParams(), interaction: ScriptedPerson())
            #expect(!vault.initialized && vault.locked)
            let locked = try await connection.call(AgentLockMethod.self, NoParams(), interaction: ScriptedPerson())
            #expect(locked.locked && !locked.wasUnlocked)
        }
    }

    @Test("error answers become the AgentError of their kind, with message and details: method_not_found, invalid_params, not_found, pin_invalid with triesLeft")
    func errors() async throws {
        try await Self.withKeyPIN { agent, connection in
            let unknown = await Self.failure(connection, Unknown.self, NoParams())
            #expect(unknown?.kind == .methodNotFound && unknown?.message.contains("test.no-such-method") == true, "\(String(describing: unknown))")

            let shape = await Self.failure(connection, WrongShape.self, .init(origin: 42))
            #expect(shape?.kind == .invalidParams && shape?.message.contains("invalid params for webauthn.get") == true, "\(String(describing: shape))")

            try await agent.initializeVault(pin: Self.pin)
            let missing = await Self.failure(connection, TokenDeleteMethod.self, .init(account: "nobody"))
            #expect(missing?.kind == .notFound && missing?.message.contains("nobody") == true, "\(String(describing: missing))")

            let wrong = await Self.failure(connection, CredentialsListMethod.self, .init(device: Self.virtual, pin: "111111"))
            #expect(wrong?.kind == .pinInvalid, "\(String(describing: wrong))")
            #expect(wrong?.details["triesLeft"] == .number(7), "\(String(describing: wrong?.details))")

            let notAsked = await Self.failure(connection, CredentialsListMethod.self, .init(device: Self.virtual))
            #expect(notAsked?.kind == .pinRequired, "not interactive: nothing is asked; \(String(describing: notAsked))")

            let listed = try await connection.call(CredentialsListMethod.self, .init(device: Self.virtual, pin: Self.pin), interaction: ScriptedPerson())
            #expect(listed.credentials.isEmpty)
        }
    }

    @Test("the agent's pin question is answered through the UserInteraction: a wrong PIN is asked again with the tries left, the right one completes the call")
    func answersPINQuestions() async throws {
        try await Self.withKeyPIN { _, connection in
            let person = ScriptedPerson([.pin("111111"), .pin(Self.pin)])
            let listed = try await connection.call(CredentialsListMethod.self, .init(device: Self.virtual, interactive: true), interaction: person)
            #expect(listed.credentials.isEmpty)
            let questions = person.pinQuestions
            #expect(questions.count == 2, "\(questions)")
            #expect(questions.first?.what == "security key PIN" && questions.first?.triesLeft == nil, "\(questions)")
            #expect(questions.last?.triesLeft == 7, "\(questions)")
            #expect(person.unanswered == 0)

            // The connection is still good for the next call.
            #expect(try await connection.call(AgentStatusMethod.self, NoParams(), interaction: person).protocolVersion == protocolVersion)
        }
    }

    @Test("a question the person cannot answer cancels the request, and the call says why the person could not, not just cancelled")
    func unansweredQuestion() async throws {
        try await Self.withKeyPIN { _, connection in
            let reason = AgentError(.pinRequired, "no terminal to ask for the security key PIN on")
            let person = ScriptedPerson([.refuse(reason)])
            let error = await Self.failure(connection, CredentialsListMethod.self, .init(device: Self.virtual, interactive: true), person)
            #expect(error == reason, "\(String(describing: error))")
            #expect(person.pinQuestions.count == 1)
            let next = try await connection.call(AgentStatusMethod.self, NoParams(), interaction: person)
            #expect(next.protocolVersion == protocolVersion, "the cancelled request's answer was read, so the next call gets its own")
        }
    }

    @Test("an agent that goes away while connected: the call fails with the agent having closed the connection, not a hang")
    func agentGone() async throws {
        let agent = try InProcessAgent()
        let connection = try #require(try AgentConnection.connect(path: agent.socketPath))
        #expect(try await connection.call(AgentStatusMethod.self, NoParams(), interaction: ScriptedPerson()).protocolVersion == protocolVersion)
        try await agent.stop()
        let error = await Self.failure(connection, AgentStatusMethod.self, NoParams())
        #expect(error?.kind == .internal && error?.message.contains("closed the connection") == true, "\(String(describing: error))")
    }
}
