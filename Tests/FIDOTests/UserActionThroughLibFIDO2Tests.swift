import FIDO
import Synchronization
import Testing
import VirtualAuthenticator

/// The simulated user's answers reach the caller as clear errors, and a
/// waiting request can be cancelled.
@Suite struct UserActionThroughLibFIDO2Tests {
    let request = MakeCredentialRequest(clientDataHash: hash("a"), rpId: "example.org", userId: [1])

    @Test func deniedPresenceIsOperationDenied() throws {
        let key = try VirtualKey(VirtualAuthenticatorConfiguration(presence: .deny))
        #expect(throws: FIDOError.operationDenied) { try key.device.makeCredential(request) }
    }

    @Test func nobodyTouchingIsATimeout() throws {
        let key = try VirtualKey(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: 300)))
        #expect(throws: FIDOError.userActionTimeout) { try key.device.makeCredential(request) }
    }

    @Test func libfido2TimeoutIsATimeoutToo() throws {
        let key = try VirtualKey(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        #expect(throws: FIDOError.userActionTimeout) { try key.device.makeCredential(request, timeout: .milliseconds(400)) }
    }

    @Test func waitingForTouchReportsProgressAndCancels() async throws {
        let key = try VirtualKey(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        let stages = Mutex<[FIDOProgress]>([])
        let device = key.device, request = self.request
        let task = Task {
            try await device.perform { device throws(FIDOError) in
                try device.makeCredential(request, progress: { stage in stages.withLock { $0.append(stage) } })
            }
        }
        // Wait until the key asks for a touch, then cancel.
        let clock = ContinuousClock()
        let start = clock.now
        while !stages.withLock({ $0.contains(.touch) }) && clock.now - start < .seconds(5) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(stages.withLock { $0 } .contains(.touch))
        let cancelledAt = clock.now
        task.cancel()
        await #expect(throws: FIDOError.cancelled) { try await task.value }
        #expect(clock.now - cancelledAt < .seconds(1))
        // The device is usable again after a cancel.
        let key2 = try key.reopened()
        _ = key2
    }

    @Test func approveAfterADelaySucceeds() throws {
        let key = try VirtualKey(VirtualAuthenticatorConfiguration(presence: .approveAfter(milliseconds: 250)))
        let touched = Mutex(false)
        _ = try key.device.makeCredential(request, progress: { if $0 == .touch { touched.withLock { $0 = true } } })
        #expect(touched.withLock { $0 })
    }
}
