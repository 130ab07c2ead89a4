import CFIDO2
import FIDO
import Interaction
import ISO7816
import SmartCard
import Locking
import Testing
import TestSupport
import VirtualAuthenticator
import WebAuthn

/// The PC/SC transport's client side (libfido2's transport functions carrying
/// CTAP as NFCCTAP_MSG APDUs) against a card in this process that chains,
/// keeps alive, cancels and disappears on demand. libfido2's own verifiers
/// judge the ceremonies; the real pcscd path is in SmartCardScenarios.
@Suite(.ownThreads) struct NFCTransportThroughLibFIDO2Tests {
    static let descriptor = DeviceDescriptor(path: "pcsc:scripted", manufacturer: "", product: "scripted card",
                                             vendorId: 0, productId: 0, isSoftware: false, transport: .nfc)
    /// No waiting between keepalive polls: the card answers at once anyway.
    static let quickPolling = KeepalivePolling(first: .zero, maximum: .milliseconds(1), cancelGrace: .milliseconds(200))

    func open(_ card: ScriptedFIDOCard) throws -> FIDODevice {
        try FIDODevice.open(.cardChannel(card, Self.descriptor, polling: Self.quickPolling))
    }

    @Test("open: SELECT of the FIDO AID, then GetInfo as NFCCTAP_MSG with P1 0x80; the INIT reply is synthesised")
    func openSelectsAndReadsInfo() throws {
        let card = try ScriptedFIDOCard()
        let device = try open(card)
        #expect(device.info.versions.contains("FIDO_2_0"))
        #expect(device.info.aaguid == VirtualAuthenticatorConfiguration.defaultAAGUID)
        #expect(device.descriptor.transport == .nfc)
        let sent = card.sentCommands
        #expect(sent.first == [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01, 0x00])
        #expect(sent.dropFirst().first == [0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00], "authenticatorGetInfo")
    }

    @Test("U2F_V2 in the SELECT answer: libfido2 probes CTAP2 and it is there")
    func u2fVersionStringProbesCTAP2() throws {
        let card = try ScriptedFIDOCard(.init(selectAnswer: ResponseAPDU(data: Array("U2F_V2".utf8), status: .success)))
        #expect(try open(card).info.versions.contains("FIDO_2_0"))
    }

    @Test("a card without the FIDO applet, or with an unknown version string, is no device")
    func notAFIDOCard() throws {
        for answer in [ResponseAPDU.status(.fileNotFound), ResponseAPDU(data: Array("FIDO_3_0".utf8), status: .success)] {
            let card = try ScriptedFIDOCard(.init(selectAnswer: answer))
            let error = #expect(throws: FIDOError.self) { try open(card) }
            guard case .noDevice(let message)? = error else { Issue.record("\(String(describing: error))"); continue }
            #expect(message.contains("not a FIDO security key"))
        }
    }

    @Test("long requests go out as command chains (CLA 0x90, ≤ 255 bytes a block), long answers come back by GET RESPONSE")
    func chainingBothWays() throws {
        let card = try ScriptedFIDOCard(.init(partSize: 40))
        let device = try open(card)
        let request = MakeCredentialRequest(clientDataHash: hash("register"), rpId: "example.org", rpName: "Example",
                                            userId: Array("user-1".utf8), userName: "alice", userDisplayName: "Alice",
                                            algorithms: [.es256], residentKey: true, hmacSecret: true)
        let created = try device.makeCredential(request)
        #expect(LibFIDO2Verify.credential(created, request: request) == FIDO_OK)
        let publicKey = try #require(try AuthenticatorData(bytes: created.authenticatorData).attestedCredentialData?.publicKey)

        // An allow list of 12 credential ids (the real one last) needs more than one APDU.
        let decoys = (0..<11).map { _ in randomBytes(64) }
        let cdh = hash("sign in")
        let before = card.sentCommands.count
        let assertion = try #require(try device.getAssertion(GetAssertionRequest(
            rpId: "example.org", clientDataHash: cdh, allowCredentialIds: decoys + [created.credentialId])).first)
        #expect(LibFIDO2Verify.assertion(assertion, rpId: "example.org", clientDataHash: cdh, key: publicKey) == FIDO_OK)

        let sent = card.sentCommands.dropFirst(before)
        let blocks = sent.filter { $0.count > 4 && ($0[0] == 0x90 || $0[0] == 0x80) && $0[1] == 0x10 }
        #expect(blocks.count >= 4, "the getAssertion went out in several blocks")
        #expect(blocks.dropLast().allSatisfy { $0[0] == 0x90 && Int($0[4]) == $0.count - 5 }, "chained blocks: CLA 0x90, no Le")
        #expect(blocks.last?[0] == 0x80 && blocks.last?.last == 0x00, "the last block: CLA 0x80 and Le 00")
        #expect(blocks.allSatisfy { $0.count <= 5 + 255 + 1 })
        #expect(sent.contains { $0.starts(with: [0x00, 0xC0, 0x00, 0x00]) }, "the answer was fetched by GET RESPONSE")
    }

    @Test("9100 keepalives (UPNEEDED) are polled with NFCCTAP_GETRESPONSE and heard as a tap")
    func keepalivesBecomeTapPrompts() throws {
        let card = try ScriptedFIDOCard(.init(keepalives: 3))
        let device = try open(card)
        let stages = Locked<[ProgressStage]>([])
        _ = try device.makeCredential(MakeCredentialRequest(clientDataHash: hash("r"), rpId: "example.org", userId: [1], userName: "a"),
                                      progress: { stage in stages.withLock { $0.append(stage) } })
        #expect(stages.withLock { $0 }.contains(.tap))
        #expect(!stages.withLock { $0 }.contains(.touch), "a key on a reader is tapped, not touched")
        #expect(card.sentCommands.filter { $0 == [0x80, 0x11, 0x00, 0x00, 0x00] }.count >= 3)
    }

    @Test("cancelling a request waiting for presence sends 80 11 11 00 and ends as cancelled")
    func cancelWhileWaitingForPresence() async throws {
        for honours in [true, false] {
            let card = try ScriptedFIDOCard()
            let device = try open(card)
            card.change { $0.waitForever = true; $0.honoursCancel = honours }
            let (taps, heard) = AsyncStream.makeStream(of: Void.self)
            let task = Task {
                defer { heard.finish() }  // a request that ends without asking ends the wait too
                return try await device.perform { device throws(FIDOError) in
                    try device.makeCredential(MakeCredentialRequest(clientDataHash: hash("r"), rpId: "example.org", userId: [1], userName: "a"),
                                              timeout: .seconds(30), progress: { if $0 == .tap { heard.yield() } })
                }
            }
            for await _ in taps { break }  // the card asked for a tap
            task.cancel()
            let error = await #expect(throws: FIDOError.self) { try await task.value }
            #expect(error == .cancelled, "card honours cancel: \(honours)")
            #expect(card.sentCommands.contains([0x80, 0x11, 0x11, 0x00]))
        }
    }

    @Test("a card that keeps working past the request's time: user action timeout, and the card is told to stop")
    func timeoutWhileWaitingForPresence() throws {
        let card = try ScriptedFIDOCard()
        let device = try open(card)
        card.change { $0.waitForever = true; $0.honoursCancel = false }
        let error = #expect(throws: FIDOError.self) {
            try device.makeCredential(MakeCredentialRequest(clientDataHash: hash("r"), rpId: "example.org", userId: [1], userName: "a"),
                                      timeout: .milliseconds(300))
        }
        #expect(error == .userActionTimeout)
        #expect(card.sentCommands.last == [0x80, 0x11, 0x11, 0x00])
    }

    @Test("the card leaving the reader mid-command is device unavailable, named, and the next open is clean")
    func cardRemovedMidCommand() async throws {
        let card = try ScriptedFIDOCard(.init(keepalives: 2))
        let device = try open(card)
        let answered = card.sentCommands.count
        card.change { $0.removedAfter = answered + 2 }
        let error = await #expect(throws: FIDOError.self) {
            try await device.perform { device throws(FIDOError) in
                try device.makeCredential(MakeCredentialRequest(clientDataHash: hash("r"), rpId: "example.org", userId: [1], userName: "a"))
            }
        }
        guard case .deviceUnavailable(let message)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(message.contains("left the reader"), "\(message)")

        card.change { $0.removedAfter = nil }
        #expect(try open(card).info.versions.contains("FIDO_2_0"))
    }

    @Test("answers that break the rules are errors, not hangs or traps")
    func malformedAnswers() throws {
        // 9000 without even a status byte.
        let empty = try ScriptedFIDOCard()
        empty.change { $0.answerOverride = [] }
        #expect(throws: FIDOError.self) { try open(empty) }
        // An answer larger than libfido2's 2048-byte GetInfo buffer.
        let huge = try ScriptedFIDOCard()
        huge.change { $0.answerOverride = [0x00] + [UInt8](repeating: 0xA0, count: 5000) }
        #expect(throws: FIDOError.self) { try open(huge) }
        // A map that declares four billion entries in nine bytes: refused by our
        // bounded decoder before libcbor (under libfido2) would allocate for it.
        let declared = try ScriptedFIDOCard()
        declared.change { $0.answerOverride = [0x00, 0xBA, 0xFF, 0xFF, 0xFF, 0xFF] }
        #expect(throws: FIDOError.self) { try open(declared) }
        // And an array that declares as many, in a truncated GetInfo.
        let array = try ScriptedFIDOCard()
        array.change { $0.answerOverride = [0x00, 0x9A, 0xFF, 0xFF, 0xFF, 0xFF] }
        #expect(throws: FIDOError.self) { try open(array) }
    }
}
