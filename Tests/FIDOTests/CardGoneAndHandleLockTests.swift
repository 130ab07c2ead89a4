import CFIDO2
import Dispatch
@testable import FIDO
import FIDOTestSupport
import Foundation
import ISO7816
import Locking
import SmartCard
import Testing
import TestSupport
import VirtualAuthenticator

/// Two of issue 30's findings on the FIDO side: a card whose answer is
/// nothing at all has left the reader (not "malformed"), and the PIN retries
/// read for an error's message waits for the handle like every request.
@Suite(.ownThreads) struct CardGoneAndHandleLockTests {
    /// A scripted card that, after `answering` APDUs, answers with 0 bytes —
    /// what pcsc-lite hands over when the card's process dies mid-command.
    final class FallsSilent: CardChannel, @unchecked Sendable {
        let card: ScriptedFIDOCard
        let silentAfter = Locked<Int?>(nil)
        private let answered = Locked(0)
        var readerName: String { card.readerName }

        init(_ card: ScriptedFIDOCard) { self.card = card }

        func transmitRaw(_ command: [UInt8]) throws(SmartCardError) -> [UInt8] {
            let count = answered.withLock { value in
                defer { value += 1 }
                return value
            }
            if let limit = silentAfter.withLock({ $0 }), count >= limit { return [] }
            return try card.transmitRaw(command)
        }
    }

    @Test("a card answering 0 bytes mid-command left the reader: device unavailable, named as such")
    func emptyAnswerMidCommandIsTheKeyLeaving() async throws {
        let channel = FallsSilent(try ScriptedFIDOCard(.init(keepalives: 2)))
        let device = try FIDODevice.open(.cardChannel(channel, NFCTransportThroughLibFIDO2Tests.descriptor,
                                                      polling: NFCTransportThroughLibFIDO2Tests.quickPolling))
        // Silent from the second keepalive poll on: the request is in the card.
        channel.silentAfter.withLock { $0 = channel.card.sentCommands.count + 2 }
        let error = await #expect(throws: FIDOError.self) {
            try await device.perform { device throws(FIDOError) in
                try device.makeCredential(MakeCredentialRequest(clientDataHash: hash("r"), rpId: "example.org", userId: [1], userName: "a"))
            }
        }
        guard case .deviceUnavailable(let message)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(message.contains("left the reader"), "\(message)")
    }

    @Test("the PIN retries an error reports are read only once no other request holds the handle")
    func pinRetriesWaitForTheHandle() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(builtInUV: false))
        try key.device.setPIN("1234")
        let device = try key.reopened()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let returned = DispatchSemaphore(value: 0)
        let retries = Locked<Int?>(nil)
        // Threads of their own: GCD's pool on Linux is as wide as the cores and
        // does not grow for a blocked worker, so a queue could hold the read back.
        Thread.detachNewThread {
            _ = device.exchange(timeout: .seconds(30), expectsTouch: false, progress: nil) { _ in
                entered.signal()
                release.wait()
                return FIDO_OK
            }
        }
        entered.wait()
        Thread.detachNewThread {
            let read = device.pinRetriesIfKnown()
            retries.withLock { $0 = read }
            returned.signal()
        }
        // Nothing to await for "not yet": a bounded look. Unlocked, the read
        // comes back within microseconds; locked, it cannot before the release.
        let early = returned.wait(timeout: .now() + .milliseconds(300))
        #expect(early == .timedOut, "read the handle while another request held it")
        release.signal()
        if early == .timedOut { #expect(returned.wait(timeout: .now() + .seconds(30)) == .success) }
        #expect(retries.withLock { $0 } == 8)
    }
}
