import Dispatch
import Locking
import VirtualAuthenticator

/// One CTAP request running on a worker thread while the card goes on
/// answering the reader: NFCCTAP_MSG with P1 bit 0x80 starts it, and
/// NFCCTAP_GETRESPONSE polls it (9100 + keepalive status until it is done)
/// or cancels it, as CTAPHID's KEEPALIVE and CANCEL do on USB.
final class CTAPRequestInFlight: Sendable {
    private let control: RequestControl
    private let progress: Progress
    private let finished = DispatchSemaphore(value: 0)

    /// What the worker has reported: the latest keepalive, then the response.
    private final class Progress: Sendable {
        let state = Locked<(keepalive: KeepaliveStatus, response: [UInt8]?)>((.processing, nil))
    }

    /// Starts `request` on a worker thread.
    init(_ request: [UInt8], on authenticator: CTAP2Authenticator) {
        let progress = Progress()
        self.progress = progress
        control = RequestControl(keepalive: { status in
            progress.state.withLock { $0.keepalive = status }
        })
        let control = self.control
        let finished = self.finished
        DispatchQueue.global(qos: .userInitiated).async {
            let response = authenticator.process(request, control: control)
            progress.state.withLock { $0.response = response }
            finished.signal()
        }
    }

    /// The response, waiting for it up to `milliseconds`; nil while the request still runs.
    func response(waitingUpTo milliseconds: Int) -> [UInt8]? {
        if let response = progress.state.withLock({ $0.response }) { return response }
        guard finished.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return nil }
        finished.signal()  // so a later wait returns at once as well
        return progress.state.withLock { $0.response }
    }

    /// What to say while the request runs: PROCESSING, or UPNEEDED once the simulated user is asked.
    var keepalive: KeepaliveStatus { progress.state.withLock { $0.keepalive } }

    /// Ends a wait for the user at once; the request then answers KEEPALIVE_CANCEL.
    func cancel() { control.cancel() }

    /// Cancels the request and waits for its worker to finish (a cancelled
    /// request ends at once), so the authenticator is free for the next one.
    func abandon() {
        cancel()
        _ = finished.wait(timeout: .distantFuture)
        finished.signal()
    }
}
