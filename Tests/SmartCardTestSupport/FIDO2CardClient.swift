import CBOR
import Crypto
import ISO7816
import SmartCard

// The client and the requests both the in-process applet tests (SmartCardTests)
// and the pcscd suite (SmartCardScenarios) send a FIDO2 card.

/// The client side of CTAP over ISO 7816 (CTAP 2.1 §11.3), written from the
/// spec for the tests: SELECT, NFCCTAP_MSG in 250-byte chained blocks (as
/// python-fido2 sends them), GET RESPONSE for 61xx (the channel's
/// `transmit`), and NFCCTAP_GETRESPONSE polling while the card answers 9100.
package struct FIDO2CardClient {
    package static let applicationIdentifier: [UInt8] = [0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]
    package let channel: any CardChannel
    /// Set P1 bit 0x80 (python-fido2) or not (libfido2).
    package var pollsForResponse = true

    /// The keepalive status bytes the card sent with 9100, in order.
    package private(set) var keepalives: [UInt8] = []

    package init(channel: any CardChannel, pollsForResponse: Bool = true) {
        self.channel = channel
        self.pollsForResponse = pollsForResponse
    }

    package func select() throws -> ResponseAPDU {
        try channel.transmit(.select(applicationIdentifier: Self.applicationIdentifier))
    }

    /// Sends command ‖ CBOR and returns the CTAP response (status byte ‖ CBOR)
    /// once the card answers 9000; polls send the cancel P1 once `cancelWhen` holds for a keepalive status.
    package mutating func call(_ command: UInt8, _ parameters: CBOR? = nil, cancelWhen: ((UInt8) -> Bool)? = nil) throws -> [UInt8] {
        var request = [command]
        parameters?.encode(into: &request)
        var response = try channel.transmit(
            CommandAPDU(cla: 0x80, ins: 0x10, p1: pollsForResponse ? 0x80 : 0x00, p2: 0x00, data: request,
                        expectedLength: 256),
            options: TransmitOptions(chainingBlockSize: 250))
        var polls = 0
        while response.status == StatusWord(0x9100) {
            keepalives += response.data
            polls += 1
            // Bounded: a card that never finishes fails the test instead of hanging it.
            guard polls < 1000 else { throw ClientFailure("the card answered 9100 a thousand times") }
            let cancel = response.data.first.map { cancelWhen?($0) ?? false } ?? false
            response = try channel.transmit(CommandAPDU(cla: 0x80, ins: 0x11, p1: cancel ? 0x11 : 0x00, p2: 0x00,
                                                        expectedLength: 256))
        }
        guard response.status == .success else { throw ClientFailure("the card answered \(response.status)") }
        return response.data
    }

    /// `call`, split into status and decoded body.
    package mutating func send(_ command: UInt8, _ parameters: CBOR? = nil,
                       cancelWhen: ((UInt8) -> Bool)? = nil) throws -> (status: UInt8, body: CBOR?) {
        let response = try call(command, parameters, cancelWhen: cancelWhen)
        guard let status = response.first else { throw ClientFailure("empty CTAP response") }
        guard response.count > 1 else { return (status, nil) }
        return (status, try CBOR.decode(Array(response.dropFirst()), limits: CBORDecodingLimits(requireCanonical: true)))
    }
}

package struct ClientFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// The makeCredential and getAssertion requests of FIDO2AppletTests (Tests/SmartCardTests).
package enum FIDO2Requests {
    package static let rpId = "example.com"
    package static let clientDataHash = Array(SHA256.hash(data: Array("client data".utf8)))

    package static func makeCredential(residentKey: Bool = true, excludeList: [[UInt8]] = [],
                               displayName: String = "Alice Liddell") -> CBOR {
        var map: [CBOR: CBOR] = [
            1: .bytes(clientDataHash),
            2: ["id": .text(rpId), "name": "Example"],
            3: ["id": .bytes([1, 2, 3, 4]), "name": "alice", "displayName": .text(displayName)],
            4: [["alg": -7, "type": "public-key"]],
            7: ["rk": .bool(residentKey)],
        ]
        if !excludeList.isEmpty { map[5] = .array(excludeList.map { ["id": .bytes($0), "type": "public-key"] }) }
        return .map(map)
    }

    package static func getAssertion(allowList: [[UInt8]] = []) -> CBOR {
        var map: [CBOR: CBOR] = [1: .text(rpId), 2: .bytes(clientDataHash)]
        if !allowList.isEmpty { map[3] = .array(allowList.map { ["id": .bytes($0), "type": "public-key"] }) }
        return .map(map)
    }
}
