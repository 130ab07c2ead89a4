import AgentProtocol
import AgentServer
import Testing
import TestSupport
@testable import AgentClient

/// How long the CLI waits for an answer: read from each method's
/// `answerWait`, never from its name, and long enough that a live agent is
/// never cut short (docs/PROTOCOL.md, "What the passkey CLI checks").
@Suite(.ownThreads) struct ResponseDeadlineTests {
    enum Quick: AgentMethod {
        static let name = "agent.status"  // a name that would mislead a lookup by name
        static let answerWait = AnswerWait.person
        typealias Params = NoParams
        typealias Result = NoParams
    }

    enum Machine: AgentMethod {
        static let name = "test.machine"
        static let answerWait = AnswerWait.machine
        typealias Params = NoParams
        typealias Result = NoParams
    }

    enum Nothing: AgentMethod {
        static let name = "webauthn.create"
        static let answerWait = AnswerWait.nothing
        typealias Params = NoParams
        typealias Result = NoParams
    }

    @Test("10 s for what the agent answers at once, 60 s for what waits on no person, the agent's 300 s limit plus 15 s for the rest")
    func protocolClasses() {
        for method in [AgentStatusMethod.self, AgentLockMethod.self] as [any AgentMethod.Type] {
            #expect(Self.deadline(method) == .seconds(10), "\(method.name)")
        }
        let machine: [any AgentMethod.Type] = [TokenGetMethod.self, TokenPutMethod.self, TokenListMethod.self, TokenDeleteMethod.self,
                                               VaultStatusMethod.self, VaultRemoveSlotMethod.self, DevicesListMethod.self,
                                               LoginCompleteMethod.self, LoginCancelMethod.self, LogoutMethod.self, InvokeCheckMethod.self]
        for method in machine { #expect(Self.deadline(method) == .seconds(60), "\(method.name)") }
        let person: [any AgentMethod.Type] = [WebAuthnCreateMethod.self, WebAuthnGetMethod.self, AgentUnlockMethod.self, VaultInitMethod.self,
                                              LoginBeginMethod.self, InvokeMethod.self, CredentialsListMethod.self, PINSetMethod.self]
        for method in person { #expect(Self.deadline(method) == .seconds(315), "\(method.name)") }
    }

    @Test("the deadline follows the declared answerWait, whatever the method is called")
    func readFromTheDeclaration() {
        #expect(ResponseDeadline.forMethod(Quick.self) == .seconds(315))
        #expect(ResponseDeadline.forMethod(Machine.self) == .seconds(60))
        #expect(ResponseDeadline.forMethod(Nothing.self) == .seconds(10))
    }

    @Test("a request that waits for a person is never cut off before the agent's own request limit ends it with timeout")
    func outlastsTheAgentsLimit() {
        #expect(ResponseDeadline.agentRequestLimit == AgentServer.Limits().requestTimeout)
        #expect(ResponseDeadline.mayWaitForAPerson > AgentServer.Limits().requestTimeout)
        // A token refresh's whole HTTP request is bounded at 15 s (DESIGN.md, "Tokens"): four fit.
        #expect(ResponseDeadline.noPerson >= .seconds(4 * 15))
        #expect(ResponseDeadline.quick < ResponseDeadline.noPerson && ResponseDeadline.noPerson < ResponseDeadline.mayWaitForAPerson)
    }

    static func deadline<M: AgentMethod>(_ method: M.Type) -> Duration { ResponseDeadline.forMethod(method) }
}
