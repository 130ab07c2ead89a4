import ISO7816
import PIVWire

extension PIVApplet {
    /// GET SERIAL (`00 F8`): four bytes, big-endian.
    func getSerial() -> ResponseAPDU {
        let serial = state.serialNumber
        return ResponseAPDU(data: [UInt8(serial >> 24), UInt8((serial >> 16) & 0xFF),
                                   UInt8((serial >> 8) & 0xFF), UInt8(serial & 0xFF)],
                            status: .success)
    }

    /// GET METADATA (`00 F7 00 ref`) in Yubico's layout: for PIN/PUK the
    /// default flag and retries (total, left); for 9B the algorithm, touch
    /// policy and default flag; for a key slot the algorithm, policies, origin
    /// and public key (`86 41 point`). An empty slot answers 6A88.
    func getMetadata(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        guard command.p1 == 0x00 else { throw StatusError(.incorrectP1P2) }
        let reference = command.p2
        var items: [BERTLV] = []
        switch reference {
        case PIVKeyReference.pin, PIVKeyReference.puk:
            let data = reference == PIVKeyReference.pin ? state.pin : state.puk
            items = [
                BERTLV(tag: PIVMetadata.Tag.algorithm, value: [PIVMetadata.pinAlgorithm]),
                BERTLV(tag: PIVMetadata.Tag.isDefault, value: [data.isDefault ? 1 : 0]),
                BERTLV(tag: PIVMetadata.Tag.retries, value: [UInt8(data.retriesTotal), UInt8(data.retriesLeft)]),
            ]
        case PIVKeyReference.managementKey:
            items = [
                BERTLV(tag: PIVMetadata.Tag.algorithm, value: [state.managementKey.algorithm]),
                BERTLV(tag: PIVMetadata.Tag.policy, value: [0x00, PIVCardConstants.TouchPolicy.never]),
                BERTLV(tag: PIVMetadata.Tag.isDefault, value: [state.managementKey.isDefault ? 1 : 0]),
            ]
        default:
            guard PIVKeyReference.keySlots.contains(reference) else {
                throw StatusError(.referencedDataNotFound)
            }
            guard let key = state.key(in: reference), let point = publicPoint(slot: reference) else {
                throw StatusError(.referencedDataNotFound)
            }
            let touch = key.touchPolicy == PIVCardConstants.TouchPolicy.default ? PIVCardConstants.TouchPolicy.never : key.touchPolicy
            items = [
                BERTLV(tag: PIVMetadata.Tag.algorithm, value: [key.algorithm]),
                BERTLV(tag: PIVMetadata.Tag.policy, value: [effectivePINPolicy(slot: reference, key: key), touch]),
                BERTLV(tag: PIVMetadata.Tag.origin, value: [key.origin]),
                BERTLV(tag: PIVMetadata.Tag.publicKey, value: BERTLV(tag: PIVTag.ecPoint, value: point).encoded),
            ]
        }
        return ResponseAPDU(data: items.flatMap(\.encoded), status: .success)
    }

    /// Yubico RESET (`00 FB`): allowed only once both PIN and PUK are blocked;
    /// returns the application to factory state (new keys gone, new identifiers).
    func resetApplication(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        guard state.pin.retriesLeft == 0, state.puk.retriesLeft == 0 else {
            throw StatusError(.conditionsOfUseNotSatisfied)
        }
        state = PIVCardState.factoryNew()
        clearSecurityState()
        try persist()
        logger.info("PIV application reset to factory state", metadata: ["serial": "\(state.serialNumber)"])
        return .success
    }
}
