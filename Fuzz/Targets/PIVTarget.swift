import CBOR
import ISO7816
import Logging
import PIVWire
import VirtualCard

extension FuzzTarget {
    /// Command APDUs into a fresh virtual card holding the PIV and FIDO2
    /// applets, as `passkey-vcard` builds it and the vpcd connection hands
    /// them over: chaining, GET RESPONSE, PIN and PUK counters, data objects,
    /// key generation, GENERAL AUTHENTICATE; NFCCTAP_MSG with and without
    /// polling, NFCCTAP_GETRESPONSE and cancel. (The name is the target's
    /// from before the FIDO2 applet, kept with its corpus.)
    static let piv = FuzzTarget(
        name: "piv",
        summary: "command APDUs, each a 2-byte big-endian length and the APDU, into a fresh VirtualCard with the PIV and FIDO2 applets",
        maximumLength: 8192,
        seeds: {
            let commands = PIVSeeds.commands
            var seeds = [Seed("session", PIVSeeds.lengthPrefixed(commands.map(\.bytes)))]
            seeds += commands.map { Seed($0.name, PIVSeeds.lengthPrefixed([PIVSeeds.select, $0.bytes])) }
            seeds += FIDO2CardSeeds.seeds
            return seeds
        },
        run: { bytes in
            let card = PIVSeeds.freshCard()
            var offset = 0
            while offset + 2 <= bytes.count {
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                offset += 2
                let apdu = Array(bytes[offset..<min(offset + length, bytes.count)])
                offset += apdu.count
                let response = card.process(apdu: apdu)
                try expect(response.count >= 2 && response.count <= 258,
                           "a response APDU of \(response.count) bytes (a reader reads at most 258)")
            }
        })
}

/// PIV commands as the PIV client sends them, encoded by `CommandAPDU`.
enum PIVSeeds {
    /// A log that drops everything: the card logs each APDU at debug level.
    static let quiet = Logger(label: "passkey-fuzz") { _ in SwiftLogNoOpLogHandler() }

    static func freshCard() -> VirtualCard {
        do {
            let memory = try CardMemory(file: nil)
            return VirtualCard(applets: [try PIVApplet(memory: memory, logger: quiet),
                                         try FIDO2Applet(memory: memory, logger: quiet)],
                               logger: quiet)
        } catch {
            fatalError("an in-memory PIV and FIDO2 card cannot be made: \(error)")
        }
    }

    static let select = CommandAPDU.select(applicationIdentifier: PIVApplication.identifier).encodedOrEmpty

    static var commands: [(name: String, bytes: [UInt8])] {
        let pin = PIVFactoryDefaults.pin + [UInt8](repeating: 0xFF, count: 8 - PIVFactoryDefaults.pin.count)
        func getData(_ tag: UInt32) -> CommandAPDU {
            CommandAPDU(ins: PIVInstruction.getData, p1: 0x3F, p2: 0xFF,
                        data: BERTLV(tag: 0x5C, value: TLVTag(tag).bytes).encoded, expectedLength: 256)
        }
        let list: [(String, CommandAPDU)] = [
            ("select", .select(applicationIdentifier: PIVApplication.identifier)),
            ("get-version", CommandAPDU(ins: PIVInstruction.getVersion, p1: 0, p2: 0, expectedLength: 256)),
            ("get-serial", CommandAPDU(ins: PIVInstruction.getSerial, p1: 0, p2: 0, expectedLength: 256)),
            ("pin-retries", CommandAPDU(ins: PIVInstruction.verify, p1: 0, p2: PIVKeyReference.pin)),
            ("verify-pin", CommandAPDU(ins: PIVInstruction.verify, p1: 0, p2: PIVKeyReference.pin, data: pin)),
            ("metadata-9a", CommandAPDU(ins: PIVInstruction.getMetadata, p1: 0, p2: PIVKeyReference.authentication, expectedLength: 256)),
            ("get-chuid", getData(PIVObjectTag.cardholderUniqueIdentifier)),
            ("get-discovery", getData(PIVObjectTag.discovery)),
            ("witness-request", CommandAPDU(ins: PIVInstruction.generalAuthenticate, p1: PIVAlgorithmID.tripleDES,
                                            p2: PIVKeyReference.managementKey,
                                            data: BERTLV(tag: 0x7C, children: [BERTLV(tag: 0x80, value: [])]).encoded,
                                            expectedLength: 256)),
            ("generate-9a", CommandAPDU(ins: PIVInstruction.generateAsymmetricKeyPair, p1: 0, p2: PIVKeyReference.authentication,
                                        data: BERTLV(tag: 0xAC, children: [BERTLV(tag: 0x80, value: [PIVAlgorithmID.eccP256])]).encoded,
                                        expectedLength: 256)),
            ("sign-9a", CommandAPDU(ins: PIVInstruction.generalAuthenticate, p1: PIVAlgorithmID.eccP256,
                                    p2: PIVKeyReference.authentication,
                                    data: BERTLV(tag: 0x7C, children: [BERTLV(tag: 0x82, value: []),
                                                                       BERTLV(tag: 0x81, value: [UInt8](repeating: 9, count: 32))]).encoded,
                                    expectedLength: 256)),
            ("chained-put-data", CommandAPDU(cla: 0x10, ins: PIVInstruction.putData, p1: 0x3F, p2: 0xFF,
                                             data: [0x5C, 0x03, 0x5F, 0xC1, 0x05, 0x53, 0x82, 0x01, 0x00])),
            ("get-response", .getResponse(length: 256)),
        ]
        return list.map { ($0.0, $0.1.encodedOrEmpty) }
    }

    static func lengthPrefixed(_ apdus: [[UInt8]]) -> [UInt8] {
        apdus.flatMap { [UInt8(truncatingIfNeeded: $0.count >> 8), UInt8(truncatingIfNeeded: $0.count)] + $0 }
    }
}

extension CommandAPDU {
    /// Seeds are built from valid values; an encoding failure leaves an empty (still valid) input.
    var encodedOrEmpty: [UInt8] { (try? encoded()) ?? [] }
}

/// CTAP over ISO 7816 as python-fido2 (P1 0x80, polling) and libfido2 (P1 0) send it.
enum FIDO2CardSeeds {
    static let select = CommandAPDU.select(applicationIdentifier: [0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]).encodedOrEmpty

    static func message(_ request: [UInt8], polling: Bool) -> [UInt8] {
        CommandAPDU(cla: 0x80, ins: 0x10, p1: polling ? 0x80 : 0x00, p2: 0x00, data: request, expectedLength: 256).encodedOrEmpty
    }

    static var seeds: [Seed] {
        var makeCredential: [UInt8] = [0x01]
        CBOR.map([
            1: .bytes([UInt8](repeating: 7, count: 32)),
            2: ["id": "example.com"],
            3: ["id": .bytes([1, 2, 3, 4]), "name": "alice"],
            4: [["alg": -7, "type": "public-key"]],
            7: ["rk": true],
        ]).encode(into: &makeCredential)
        // 250-byte blocks with CLA 0x90, as python-fido2 chains.
        let chained = CommandAPDU(cla: 0x90, ins: 0x10, p1: 0x80, p2: 0x00, data: Array(makeCredential.prefix(40))).encodedOrEmpty
        let rest = message(Array(makeCredential.dropFirst(40)), polling: true)
        let poll = CommandAPDU(cla: 0x80, ins: 0x11, p1: 0x00, p2: 0x00, expectedLength: 256).encodedOrEmpty
        let cancel = CommandAPDU(cla: 0x80, ins: 0x11, p1: 0x11, p2: 0x00, expectedLength: 256).encodedOrEmpty
        var getAssertion: [UInt8] = [0x02]
        CBOR.map([1: "example.com", 2: .bytes([UInt8](repeating: 8, count: 32))]).encode(into: &getAssertion)
        return [
            Seed("fido2-get-info", PIVSeeds.lengthPrefixed([select, message([0x04], polling: true)])),
            Seed("fido2-register-and-sign", PIVSeeds.lengthPrefixed(
                [select, message(makeCredential, polling: false), CommandAPDU.getResponse(length: 256).encodedOrEmpty, message(getAssertion, polling: false)])),
            Seed("fido2-chained-poll-cancel", PIVSeeds.lengthPrefixed([select, chained, rest, poll, cancel])),
        ]
    }
}
