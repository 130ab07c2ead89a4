import CBOR
import Dispatch
import Locking
import Testing
import TestSupport
import VirtualAuthenticator

@Suite("Simulated user: deny, timeout, cancel", .ownThreads)
struct UserActionTests {
    @Test("presence deny: OPERATION_DENIED for makeCredential, getAssertion and selection")
    func deny() throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        platform.authenticator.presencePolicy = .deny
        let denied = CTAPStatus.operationDenied.rawValue
        #expect(try platform.send(0x01, TestPlatform.makeCredentialParameters(userId: [8])).status == denied)
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters(allowList: [registration.credentialId])).status
                == denied)
        #expect(try platform.send(0x0B).status == denied)
    }

    @Test("verification deny on a request's uv option: OPERATION_DENIED and one UV retry gone")
    func verificationDeny() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(verification: .deny))
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters(
            allowList: [registration.credentialId], userVerification: true)).status == CTAPStatus.operationDenied.rawValue)
        #expect(try platform.uvRetries() == 7)
    }

    @Test("timeout: USER_ACTION_TIMEOUT after the policy's time, with keepalives meanwhile")
    func timeout() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: 250)))
        let keepalives = Locked(0)
        let control = RequestControl { status in
            if status == .userPresenceNeeded { keepalives.withLock { $0 += 1 } }
        }
        #expect(try platform.send(0x0B, control: control).status == CTAPStatus.userActionTimeout.rawValue)
        #expect(keepalives.withLock { $0 } >= 1)
    }

    @Test("the configured user-action timeout bounds every wait")
    func configuredTimeout() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(
            presence: .approveAfter(milliseconds: 60_000), userActionTimeoutMilliseconds: 100))
        #expect(try platform.send(0x0B).status == CTAPStatus.userActionTimeout.rawValue)
        platform.authenticator.presencePolicy = .timeout(milliseconds: nil)
        #expect(try platform.send(0x0B).status == CTAPStatus.userActionTimeout.rawValue)
    }

    @Test("approve-after: the request succeeds after keepalives")
    func approveAfter() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(presence: .approveAfter(milliseconds: 150)))
        let keepalives = Locked(0)
        let control = RequestControl { _ in keepalives.withLock { $0 += 1 } }
        let response = try platform.send(0x01, TestPlatform.makeCredentialParameters(), control: control)
        #expect(response.isOK)
        #expect(keepalives.withLock { $0 } >= 1)
    }

    @Test("cancel from another thread ends a waiting request with KEEPALIVE_CANCEL")
    func cancelFromAnotherThread() async throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        let waiting = DispatchSemaphore(value: 0)
        let control = RequestControl { _ in waiting.signal() }
        let request: [UInt8] = [0x01] + TestPlatform.makeCredentialParameters().encoded()
        let authenticator = platform.authenticator
        let response: [UInt8] = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: authenticator.process(request, control: control))
            }
            DispatchQueue.global().async {
                waiting.wait()  // the request is now waiting for the user
                control.cancel()
            }
        }
        #expect(response == [CTAPStatus.keepaliveCancel.rawValue])
    }
}
