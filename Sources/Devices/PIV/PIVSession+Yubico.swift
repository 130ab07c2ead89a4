import ISO7816
import PIVWire

/// Yubico's extensions to PIV. Every one is optional: a card without them
/// answers 6D00 (or similar) and these functions return nil.
extension PIVSession {
    /// The card's serial number (Yubico GET SERIAL), or nil when the card has none to tell.
    public func serialNumber() throws(PIVError) -> UInt32? {
        let response = try withTransaction { session throws(PIVError) in
            try session.send(CommandAPDU(ins: PIVInstruction.getSerial, p1: 0, p2: 0, expectedLength: 256))
        }
        guard response.status.isSuccess, response.data.count >= 4 else { return nil }
        return response.data.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Metadata of the key in `slot`: nil when the slot is empty or the card has no GET METADATA
    /// (`supportsMetadata()` tells which).
    public func keyMetadata(slot: PIVSlot) throws(PIVError) -> PIVKeyMetadata? {
        guard let items = try metadata(reference: slot.rawValue) else { return nil }
        guard let algorithm = items.first(PIVMetadata.Tag.algorithm)?.value.first else {
            throw .malformedResponse(operation: "GET METADATA", reason: "no algorithm")
        }
        let policy = items.first(PIVMetadata.Tag.policy)?.value
        var publicKey: PIVPublicKey?
        if let encoded = items.first(PIVMetadata.Tag.publicKey)?.value, PIVAlgorithm(rawValue: algorithm) == .eccP256 {
            // YubiKeys wrap the point in tag 86, as GENERATE does; accept a bare point too.
            let point = (try? BERTLV.parseAll(encoded))?.first(PIVTag.ecPoint)?.value ?? encoded
            publicKey = try PIVPublicKey(p256Point: point)
        }
        return PIVKeyMetadata(
            algorithm: PIVAlgorithm(rawValue: algorithm),
            pinPolicy: policy.flatMap { $0.count == 2 ? PIVPINPolicy(rawValue: $0[0]) : nil },
            touchPolicy: policy.flatMap { $0.count == 2 ? PIVTouchPolicy(rawValue: $0[1]) : nil },
            generatedOnCard: items.first(PIVMetadata.Tag.origin)?.value.first.map { $0 == PIVMetadata.originGenerated },
            publicKey: publicKey)
    }

    /// PIN retry counter and default flag, or nil without GET METADATA.
    public func pinMetadata() throws(PIVError) -> PIVPINMetadata? {
        try secretMetadata(reference: PIVKeyReference.pin)
    }

    /// PUK retry counter and default flag, or nil without GET METADATA.
    public func pukMetadata() throws(PIVError) -> PIVPINMetadata? {
        try secretMetadata(reference: PIVKeyReference.puk)
    }

    /// Management-key algorithm and default flag, or nil without GET METADATA.
    public func managementKeyMetadata() throws(PIVError) -> PIVManagementKeyMetadata? {
        guard let items = try metadata(reference: PIVKeyReference.managementKey),
              let algorithm = items.first(PIVMetadata.Tag.algorithm)?.value.first
        else { return nil }
        let touch = items.first(PIVMetadata.Tag.policy)?.value
        return PIVManagementKeyMetadata(
            algorithm: PIVAlgorithm(rawValue: algorithm),
            isDefault: items.first(PIVMetadata.Tag.isDefault)?.value.first.map { $0 != 0 } ?? false,
            requiresTouch: touch.map { $0.count == 2 && $0[1] == PIVTouchPolicy.always.rawValue } ?? false)
    }

    /// Whether the card answers GET METADATA (YubiKey 5.3 and later, and the virtual card).
    public func supportsMetadata() throws(PIVError) -> Bool {
        if metadataSupport == nil { _ = try metadata(reference: PIVKeyReference.pin) }
        return metadataSupport ?? false
    }

    private func secretMetadata(reference: UInt8) throws(PIVError) -> PIVPINMetadata? {
        guard let items = try metadata(reference: reference),
              let retries = items.first(PIVMetadata.Tag.retries)?.value, retries.count == 2
        else { return nil }
        return PIVPINMetadata(isDefault: items.first(PIVMetadata.Tag.isDefault)?.value.first.map { $0 != 0 } ?? false,
                              retriesTotal: Int(retries[0]), retriesLeft: Int(retries[1]))
    }

    /// The TLVs of GET METADATA for `reference`, nil when it is empty or unsupported.
    private func metadata(reference: UInt8) throws(PIVError) -> [BERTLV]? {
        if metadataSupport == false { return nil }
        let response = try withTransaction { session throws(PIVError) in
            try session.send(CommandAPDU(ins: PIVInstruction.getMetadata, p1: 0x00, p2: reference, expectedLength: 256))
        }
        switch response.status {
        case .success:
            metadataSupport = true
        case .referencedDataNotFound, .fileNotFound:
            // The command exists; the slot is empty.
            metadataSupport = true
            return nil
        default:
            metadataSupport = false
            return nil
        }
        do {
            return try BERTLV.parseAll(response.data)
        } catch {
            throw .malformedResponse(operation: "GET METADATA", reason: error.description)
        }
    }
}
