import FIDO
import FIDOTestSupport
import Foundation
import Interaction
import Locking
import Testing
import TestSupport
import VirtualAuthenticator

/// The agent opens a libfido2 handle on the software authenticator per
/// request, and the previous request's handle may be freed (fido_dev_close)
/// on another thread while the next request is in flight. The fault
/// injection found webauthn.get hanging forever after that: the close
/// abandoned the other handle's request and dropped its answer.
@Suite(.ownThreads) struct HandleLifetimeThroughLibFIDO2Tests {
    let request = MakeCredentialRequest(clientDataHash: hash("a"), rpId: "example.org", userId: [1])

    /// Runs `body` on a plain thread (the test runner's cooperative threads
    /// may be busy) and reports its outcome once it ends.
    final class Worker: Sendable {
        private let outcome = Signalled<Result<Void, FIDOError>?>(nil)
        let stages = Signalled<[ProgressStage]>([])

        init(_ body: @escaping @Sendable (Worker) throws(FIDOError) -> Void) {
            let thread = Thread { [self] in
                do throws(FIDOError) {
                    try body(self)
                    outcome.withLock { $0 = .success(()) }
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                }
            }
            thread.start()
        }

        func heard(_ stage: ProgressStage) { stages.withLock { $0.append(stage) } }

        /// Waits until the key asked for a touch (a bound only so a broken
        /// build fails instead of hanging).
        func waitForTouch() {
            stages.wait(within: .seconds(20)) { $0.contains(.touch) }
        }

        /// The outcome, or nil if the request has not ended within 20 s.
        func waitForOutcome() -> Result<Void, FIDOError>? {
            outcome.wait(within: .seconds(20)) { $0 != nil }
            return outcome.withLock { $0 }
        }
    }

    /// Handle B's request waits for a touch while handle A is freed: B's
    /// request must still be B's to cancel, and B must hear the answer.
    /// Before the fix A's close cancelled B's request and dropped its answer,
    /// so B's own cancel found nothing and B waited out its libfido2 timeout.
    @Test func freeingAnotherHandleLeavesTheRequestInFlightAlone() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        var other: FIDODevice? = try key.reopened()
        #expect(other != nil)
        let device = key.device, request = self.request
        let worker = Worker { worker throws(FIDOError) in
            _ = try device.makeCredential(request, timeout: .seconds(8), progress: { worker.heard($0) })
        }
        worker.waitForTouch()
        #expect(worker.stages.withLock { $0 }.contains(.touch), "the key asked for a touch")
        other = nil  // fido_dev_close on A while B's request waits
        device.cancel()
        let outcome = try #require(worker.waitForOutcome(), "the request ended")
        #expect(throws: FIDOError.cancelled) { try outcome.get() }
    }

    /// The agent's own pattern: requests answered at once, one after the
    /// other on one handle, while other handles are freed meanwhile (as the
    /// previous request's handle is released on a dispatch thread). No
    /// request loses its answer. (Handles are opened first: opening sends
    /// requests of its own, which a busy key refuses.) The other thread
    /// frees four handles as each of the 50 requests starts, so the frees
    /// land among the requests rather than all before the first.
    @Test func requestsSucceedWhileOtherHandlesAreFreed() throws {
        let key = try SoftwareKey()
        let others = Locked<[FIDODevice]>(try (0..<200).map { _ in try key.reopened() })
        let requestsStarted = Signalled(0)
        let device = key.device, request = self.request
        let churn = Worker { _ throws(FIDOError) in
            var freed = 0
            while let handle = others.withLock({ $0.popLast() }) {
                // Handles 4n…4n+3 go once request n has started (the bound: a
                // request that failed and ended the test leaves no thread behind).
                requestsStarted.wait(within: .seconds(60)) { $0 > freed / 4 }
                withExtendedLifetime(handle) {}  // the last reference: fido_dev_close now
                freed += 1
            }
        }
        for number in 0..<50 {
            requestsStarted.withLock { $0 = number + 1 }
            let credential = try device.makeCredential(request, timeout: .seconds(8))
            #expect(!credential.credentialId.isEmpty)
        }
        let outcome = try #require(churn.waitForOutcome(), "the other handles were freed")
        #expect(throws: Never.self) { try outcome.get() }
    }

    /// An answer lost on its way (here: another host resynchronises the
    /// channel, which abandons its transaction, CTAP 2.1 §11.2.9.1.3) ends
    /// the request at once with an I/O error: the read returns nothing once
    /// no answer can come. Before, libfido2 waited forever without a timeout,
    /// and with one waited it out and called it a touch timeout.
    @Test(arguments: [nil, Duration.seconds(2)])
    func aLostAnswerIsAnErrorAtOnce(timeout: Duration?) throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        // Channels are allocated in sequence: this one comes right after the key's handle's.
        let probe = key.hid
        probe.write(initPacket(channel: 0xFFFF_FFFF, nonce: [1, 2, 3, 4, 5, 6, 7, 8]))
        let reply = try #require(probe.read(timeoutMilliseconds: 5000))
        let probeChannel = UInt32(reply[15]) << 24 | UInt32(reply[16]) << 16 | UInt32(reply[17]) << 8 | UInt32(reply[18])
        let keyChannel = probeChannel &- 1

        let device = key.device, request = self.request
        let worker = Worker { worker throws(FIDOError) in
            _ = try device.makeCredential(request, timeout: timeout, progress: { worker.heard($0) })
        }
        worker.waitForTouch()
        #expect(worker.stages.withLock { $0 }.contains(.touch), "the key asked for a touch")
        probe.write(initPacket(channel: keyChannel, nonce: [8, 7, 6, 5, 4, 3, 2, 1]))
        let outcome = try #require(worker.waitForOutcome(), "the request ended instead of waiting forever")
        if case .failure(.deviceIO) = outcome {} else { Issue.record("expected an I/O error, got \(outcome)") }
    }

    private func initPacket(channel: UInt32, nonce: [UInt8]) -> [UInt8] {
        let header: [UInt8] = [UInt8(channel >> 24 & 0xFF), UInt8(channel >> 16 & 0xFF), UInt8(channel >> 8 & 0xFF),
                               UInt8(channel & 0xFF), 0x86, 0, 8]
        return header + nonce + [UInt8](repeating: 0, count: 64 - 15)
    }
}
