import AgentCore
import AgentProtocol
import AgentRuntime
import Foundation
import Harness
import Interaction
import Testing
import TestSupport

/// The agent's method table, called in-process (the way hummingbird tests an
/// app through its router): no socket, no child process. What a method may
/// wait on is declared once, on the method type (`AgentMethod.answerWait`);
/// the server's turn-taking, its I/O-thread answers and the client's
/// deadline all read that one declaration, so these tests pin it.
@Suite(.ownThreads) struct MethodTableTests {
    /// A core over a fresh home (the directories of a test agent, never started).
    static func core() throws -> (AgentCore, AgentHarness) {
        let harness = try AgentHarness()
        return (try AgentCore(environment: harness.environment, runningAsAgent: false), harness)
    }

    /// docs/PROTOCOL.md's classes ("What the passkey CLI checks"), written out
    /// independently of the declarations they check.
    static let answeredAtOnce: Set<String> = ["agent.status", "agent.lock"]
    static let waitOnNoPerson: Set<String> = ["token.get", "token.put", "token.list", "token.delete", "vault.status", "vault.removeSlot",
                                              "devices.list", "login.complete", "login.cancel", "login.logout", "invoke.check"]

    @Test("every method the table serves waits on what the protocol document says; login.begin may wait on a person (okta-idx)")
    func everyMethodDeclaresItsWait() throws {
        let (core, _) = try Self.core()
        let names = core.methods.methodNames
        #expect(names.count > 30)
        for name in names {
            let expected: AnswerWait = Self.answeredAtOnce.contains(name) ? .nothing : Self.waitOnNoPerson.contains(name) ? .machine : .person
            #expect(core.methods.answerWait(method: name) == expected, "\(name)")
        }
        #expect(Self.answeredAtOnce.union(Self.waitOnNoPerson).isSubset(of: Set(names)))
        #expect(LoginBeginMethod.answerWait == .person)
        #expect(core.methods.answerWait(method: "login.begin") == .person)
    }

    @Test("an unknown method counts as waiting on a person, and dispatching it is method_not_found")
    func unknownMethod() async throws {
        let (core, _) = try Self.core()
        #expect(core.methods.answerWait(method: "no.such.method") == .person)
        await #expect(throws: AgentError.self) { try await core.methods.dispatch(method: "no.such.method", params: nil, interaction: NoInteraction()) }
        do {
            _ = try await core.methods.dispatch(method: "no.such.method", params: nil, interaction: NoInteraction())
        } catch {
            #expect(error.kind == .methodNotFound)
        }
    }

    @Test("the methods that wait on nothing, and only they, are answered without a task (dispatchQuick)")
    func quickMethodsAreTheOnesThatWaitOnNothing() throws {
        let (core, _) = try Self.core()
        for name in core.methods.methodNames {
            let quick = try core.methods.dispatchQuick(method: name, params: nil)
            #expect((quick != nil) == (core.methods.answerWait(method: name) == .nothing), "\(name)")
        }
        let status = try #require(try core.methods.dispatchQuick(method: AgentStatusMethod.name, params: nil))
        let decoded = try JSONDecoder().decode(AgentStatusMethod.Result.self, from: Data(status))
        #expect(!decoded.version.isEmpty && !decoded.agentRunning)
    }
}

/// Nobody answers: these tests reach no method that asks.
private struct NoInteraction: UserInteraction {
    func progress(_ stage: ProgressStage) {}
    func pin(_ request: PINRequest) async throws -> String { throw AgentError(.cancelled, "no one to ask") }
    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int { throw AgentError(.cancelled, "no one to ask") }
    func confirm(_ request: ConfirmationRequest) async throws -> Bool { false }
}
