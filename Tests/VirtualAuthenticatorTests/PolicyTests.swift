import Testing
import TestSupport
import VirtualAuthenticator

@Suite("User-action policies and configuration", .ownThreads)
struct PolicyTests {
    @Test("policy strings parse and print back", arguments: [
        ("approve", UserActionPolicy.approve),
        ("deny", .deny),
        ("timeout", .timeout(milliseconds: nil)),
        ("timeout:1500", .timeout(milliseconds: 1500)),
        ("approve-after:250", .approveAfter(milliseconds: 250)),
        ("  Approve-After:0 ", .approveAfter(milliseconds: 0)),
    ])
    func parse(text: String, policy: UserActionPolicy) throws {
        #expect(try UserActionPolicy(parsing: text) == policy)
        #expect(try UserActionPolicy(parsing: policy.description) == policy)
    }

    @Test("bad policy strings are a typed error naming the source", arguments: [
        "", "yes", "timeout:", "timeout:-5", "timeout:1e3", "approve-after:soon", "approve-after:99999999999", "deny:5",
    ])
    func rejects(text: String) {
        let error = #expect(throws: VirtualAuthenticatorError.self) {
            try UserActionPolicy(parsing: text, source: "PASSKEY_VIRTUAL_PRESENCE")
        }
        #expect(error?.description.contains("PASSKEY_VIRTUAL_PRESENCE") == true)
    }

    @Test("environment variables override the configured policies")
    func environment() throws {
        let base = VirtualAuthenticatorConfiguration(presence: .approve, verification: .approve)
        let overridden = try base.applyingEnvironment([
            "PASSKEY_VIRTUAL_PRESENCE": "timeout:50",
            "PASSKEY_VIRTUAL_VERIFICATION": "deny",
        ])
        #expect(overridden.presence == .timeout(milliseconds: 50))
        #expect(overridden.verification == .deny)
        #expect(try base.applyingEnvironment(["PASSKEY_VIRTUAL_PRESENCE": ""]) == base)
        #expect(try base.applyingEnvironment([:]) == base)
        #expect(throws: VirtualAuthenticatorError.invalidPolicy(text: "maybe", source: "PASSKEY_VIRTUAL_VERIFICATION")) {
            try base.applyingEnvironment(["PASSKEY_VIRTUAL_VERIFICATION": "maybe"])
        }
    }

    @Test("policies set on a running authenticator apply to the next request")
    func runtimeChange() throws {
        let platform = try TestPlatform()
        #expect(try platform.send(0x0B).isOK)
        platform.authenticator.presencePolicy = .deny
        #expect(platform.authenticator.presencePolicy == .deny)
        #expect(try platform.send(0x0B).status == CTAPStatus.operationDenied.rawValue)
    }
}
