import AgentProtocol
@testable import AgentServer
import AgentTestSupport
import Testing
import TestSupport

/// What a forwarding socket (`ssh -R`) lets through, docs/PROTOCOL.md
/// "Forwarding": checked before anything runs, confirmed before a token
/// leaves, whatever the peer's uid. The person at the desktop is scripted.
@Suite(.ownThreads) struct ForwardPolicyTests {
    static func policy(accounts: Set<String> = ["work"], allow: Set<String> = Set(ForwardPolicy.defaultAllow),
                       confirm: ForwardConfirm = .always) -> ForwardPolicy {
        ForwardPolicy(id: 7, path: "/run/user/1000/passkey-agent/forward-abc.sock", accounts: accounts, allow: allow, confirmation: confirm)
    }

    static func token(_ account: String?) -> JSONValue {
        account.map { .object(["account": .string($0)]) } ?? .object([:])
    }

    /// The refusal `check` or `confirm` threw, or nil when they let the request through.
    static func refusal(_ body: () throws(AgentError) -> Void) -> AgentError? {
        do throws(AgentError) { try body() } catch { return error }
        return nil
    }

    static func refusal(_ body: () async throws(AgentError) -> Void) async -> AgentError? {
        do throws(AgentError) { try await body() } catch { return error }
        return nil
    }

    static func expectRestricted(_ error: AgentError?, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.kind == .denied, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.details["errorCode"] == .string("forward_restricted"), sourceLocation: sourceLocation)
        #expect(error?.details["forward"] == .number(7), sourceLocation: sourceLocation)
        #expect(error?.message.contains(text) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
    }

    @Test("by default a forward serves agent.status and token.get of its accounts, and refuses every other method, forward.* included")
    func checkMethods() {
        let policy = Self.policy()
        #expect(Self.refusal { () throws(AgentError) in try policy.check(method: "agent.status", params: nil) } == nil)
        #expect(Self.refusal { () throws(AgentError) in try policy.check(method: "token.get", params: Self.token("work")) } == nil)
        for method in ["token.put", "token.list", "agent.unlock", "vault.removeSlot", "forward.open", "forward.close", "webauthn.get", "no.such"] {
            Self.expectRestricted(Self.refusal { () throws(AgentError) in try policy.check(method: method, params: Self.token("work")) },
                                  mentioning: "\(method) is not served through forwarding socket 7")
        }
    }

    @Test("a method outside the forwardable two is refused even when the forward's allow list names it")
    func allowCannotWiden() {
        let policy = Self.policy(allow: ["token.get", "agent.status", "token.put", "agent.unlock"])
        for method in ["token.put", "agent.unlock"] {
            Self.expectRestricted(Self.refusal { () throws(AgentError) in try policy.check(method: method, params: Self.token("work")) },
                                  mentioning: method)
        }
        let statusOnly = Self.policy(allow: ["agent.status"])
        Self.expectRestricted(Self.refusal { () throws(AgentError) in try statusOnly.check(method: "token.get", params: Self.token("work")) },
                              mentioning: "it serves agent.status")
    }

    @Test("token.get of an account not listed, or of none, is refused with the accounts it serves; the name is shown without control characters")
    func checkAccounts() {
        let policy = Self.policy(accounts: ["work", "ci"])
        Self.expectRestricted(Self.refusal { () throws(AgentError) in try policy.check(method: "token.get", params: Self.token("home")) },
                              mentioning: "“home” is not served through forwarding socket 7 (it serves ci, work)")
        Self.expectRestricted(Self.refusal { () throws(AgentError) in try policy.check(method: "token.get", params: Self.token(nil)) },
                              mentioning: "an unnamed account")
        Self.expectRestricted(Self.refusal { () throws(AgentError) in try policy.check(method: "token.get", params: nil) },
                              mentioning: "an unnamed account")
        let hostile = Self.refusal { () throws(AgentError) in try policy.check(method: "token.get", params: Self.token("evil\u{1B}[2J\u{202E}name")) }
        Self.expectRestricted(hostile, mentioning: "is not served")
        #expect(hostile?.message.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" } == false, "\(hostile?.message ?? "")")
    }

    @Test("confirm always: the person is asked for every token, naming the account and the socket; declined is cancelled")
    func confirmAlways() async {
        let policy = Self.policy(confirm: .always)
        let person = ScriptedPerson([.confirm(true), .confirm(true), .confirm(false)])
        for _ in 0..<2 {
            #expect(await Self.refusal { () async throws(AgentError) in
                try await policy.confirm(method: "token.get", params: Self.token("work"), interaction: person)
            } == nil)
        }
        let declined = await Self.refusal { () async throws(AgentError) in
            try await policy.confirm(method: "token.get", params: Self.token("work"), interaction: person)
        }
        #expect(declined?.kind == .cancelled && declined?.message.contains("nothing was released") == true, "\(String(describing: declined))")
        #expect(person.confirmations.count == 3)
        let asked = person.confirmations.first
        #expect(asked?.title.contains("“work”") == true && asked?.title.contains("forwarding socket 7") == true, "\(String(describing: asked))")
        #expect(asked?.facts.contains { $0.value.contains("forward-abc.sock") } == true)
    }

    @Test("confirm first: once per account, and a decline is not remembered as a yes")
    func confirmFirst() async {
        let policy = Self.policy(accounts: ["work", "ci"], confirm: .first)
        let person = ScriptedPerson([.confirm(false), .confirm(true), .confirm(true)])
        let declined = await Self.refusal { () async throws(AgentError) in
            try await policy.confirm(method: "token.get", params: Self.token("work"), interaction: person)
        }
        #expect(declined?.kind == .cancelled)
        for _ in 0..<3 {
            #expect(await Self.refusal { () async throws(AgentError) in
                try await policy.confirm(method: "token.get", params: Self.token("work"), interaction: person)
            } == nil)
        }
        #expect(person.confirmations.count == 2, "asked again after the decline, then never for work")
        #expect(await Self.refusal { () async throws(AgentError) in
            try await policy.confirm(method: "token.get", params: Self.token("ci"), interaction: person)
        } == nil)
        #expect(person.confirmations.count == 3, "another account is asked for on its own")
    }

    @Test("confirm never asks nobody; agent.status is never confirmed")
    func confirmNever() async {
        let person = ScriptedPerson()
        #expect(await Self.refusal { () async throws(AgentError) in
            try await Self.policy(confirm: .never).confirm(method: "token.get", params: Self.token("work"), interaction: person)
        } == nil)
        #expect(await Self.refusal { () async throws(AgentError) in
            try await Self.policy(confirm: .always).confirm(method: "agent.status", params: nil, interaction: person)
        } == nil)
        #expect(person.confirmations.isEmpty)
    }

    @Test("a person who cannot be asked (no pinentry) releases nothing")
    func unaskable() async {
        let person = ScriptedPerson([.refuse(AgentError(.denied, "no pinentry to ask with"))])
        let refused = await Self.refusal { () async throws(AgentError) in
            try await Self.policy().confirm(method: "token.get", params: Self.token("work"), interaction: person)
        }
        #expect(refused?.kind == .denied && refused?.message == "no pinentry to ask with", "\(String(describing: refused))")
    }

    @Test("after forward.close or the TTL (end), every request is refused: at check, before asking, and after a yes given meanwhile")
    func closedForward() async {
        let policy = Self.policy(confirm: .first)
        // Closed while the person was being asked: the yes releases nothing, and is not remembered.
        let person = ScriptedPerson([.after({ policy.end() }, then: true)])
        Self.expectRestricted(await Self.refusal { () async throws(AgentError) in
            try await policy.confirm(method: "token.get", params: Self.token("work"), interaction: person)
        }, mentioning: "forwarding socket 7 is closed")
        #expect(person.confirmations.count == 1)

        Self.expectRestricted(Self.refusal { () throws(AgentError) in try policy.check(method: "agent.status", params: nil) },
                              mentioning: "is closed")
        Self.expectRestricted(await Self.refusal { () async throws(AgentError) in
            try await policy.confirm(method: "agent.status", params: nil, interaction: person)
        }, mentioning: "is closed")
        #expect(person.confirmations.count == 1, "a closed forward asks nobody")
    }
}
