import FIDO
import FIDOTestSupport
import Foundation
import Interaction
import Locking
import Testing
import TestSupport
import VirtualAuthenticator

/// The simulated user's answers reach the caller as clear errors, and a
/// waiting request can be cancelled.
@Suite(.ownThreads) struct UserActionThroughLibFIDO2Tests {
    let request = MakeCredentialRequest(clientDataHash: hash("a"), rpId: "example.org", userId: [1])

    @Test func deniedPresenceIsOperationDenied() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .deny))
        #expect(throws: FIDOError.operationDenied) { try key.device.makeCredential(request) }
    }

    @Test func nobodyTouchingIsATimeout() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: 300)))
        #expect(throws: FIDOError.userActionTimeout) { try key.device.makeCredential(request) }
    }

    @Test func libfido2TimeoutIsATimeoutToo() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        #expect(throws: FIDOError.userActionTimeout) { try key.device.makeCredential(request, timeout: .milliseconds(400)) }
    }

    /// fido_dev_cancel from another thread ends a request waiting for a
    /// touch within a second. (A plain thread, not a task: the test runner's
    /// two cooperative threads may be busy with other tests.)
    @Test func waitingForTouchReportsProgressAndCancels() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        let stages = Signalled<[ProgressStage]>([])
        let outcome = Signalled<(error: FIDOError?, at: ContinuousClock.Instant)?>(nil)
        let device = key.device, request = self.request
        let worker = Thread {
            do throws(FIDOError) {
                _ = try device.makeCredential(request, progress: { stage in stages.withLock { $0.append(stage) } })
                outcome.withLock { $0 = (nil, ContinuousClock.now) }
            } catch {
                outcome.withLock { $0 = (error, ContinuousClock.now) }
            }
        }
        worker.start()
        let clock = ContinuousClock()
        stages.wait(within: .seconds(10)) { $0.contains(.touch) }
        #expect(stages.withLock { $0 }.contains(.touch), "the key asked for a touch")
        let cancelledAt = clock.now
        device.cancel()
        outcome.wait(within: .seconds(10)) { $0 != nil }
        let ended = try #require(outcome.withLock { $0 })
        #expect(ended.error == .cancelled)
        #expect(ended.at - cancelledAt < .seconds(1))
        // The key serves the next request.
        #expect(throws: Never.self) { _ = try key.reopened() }
    }

    /// Cancelling the task that awaits `perform` cancels the request on the key.
    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        let (touchRequests, asked) = AsyncStream.makeStream(of: Void.self)
        let device = key.device, request = self.request
        let task = Task {
            defer { asked.finish() }  // a request that ends without asking ends the wait too
            return try await device.perform { device throws(FIDOError) in
                try device.makeCredential(request, progress: { if $0 == .touch { asked.yield() } })
            }
        }
        for await _ in touchRequests { break }  // the key asked for a touch
        task.cancel()
        await #expect(throws: FIDOError.cancelled) { try await task.value }
    }

    @Test func approveAfterADelaySucceeds() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .approveAfter(milliseconds: 250)))
        let touched = Locked(false)
        _ = try key.device.makeCredential(request, progress: { if $0 == .touch { touched.withLock { $0 = true } } })
        #expect(touched.withLock { $0 })
    }
}
