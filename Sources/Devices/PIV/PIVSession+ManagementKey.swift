import ISO7816
import PIVWire

extension PIVSession {
    /// Proves knowledge of the management key by mutual authentication
    /// (SP 800-73-4 Part 2 Appendix A.1): the card encrypts a witness, we
    /// decrypt it and send it back with our own challenge, and the card
    /// encrypts that challenge — so both sides show they hold the key.
    public func authenticate(with managementKey: PIVManagementKey) throws(PIVError) {
        let cipher = ManagementKeyCipher(managementKey)
        try withTransaction { session throws(PIVError) in
            let algorithm = managementKey.algorithm.rawValue
            let request = Self.dynamicAuthentication([BERTLV(tag: PIVTag.witness, value: [])])
            let first = try session.send(CommandAPDU(ins: PIVInstruction.generalAuthenticate, p1: algorithm,
                                                     p2: PIVKeyReference.managementKey, data: request, expectedLength: 256))
            guard first.status.isSuccess else {
                // Wrong algorithm (6A80/6A86) or no such key: either way, not this key.
                throw PIVError.managementKeyRejected
            }
            let encryptedWitness = try Self.dynamicAuthenticationValue(first.data, tag: PIVTag.witness,
                                                                       operation: "management-key authentication")
            var witness = try cipher.decryptBlock(encryptedWitness)
            defer { PIVSecret.wipe(&witness) }
            let challenge = Self.randomBytes(cipher.blockSize)
            let proof = Self.dynamicAuthentication([BERTLV(tag: PIVTag.witness, value: witness),
                                                     BERTLV(tag: PIVTag.challenge, value: challenge)])
            let second = try session.send(CommandAPDU(ins: PIVInstruction.generalAuthenticate, p1: algorithm,
                                                      p2: PIVKeyReference.managementKey, data: proof, expectedLength: 256))
            guard second.status.isSuccess else { throw PIVError.managementKeyRejected }
            let answer = try Self.dynamicAuthenticationValue(second.data, tag: PIVTag.response,
                                                             operation: "management-key authentication")
            guard try answer == cipher.encryptBlock(challenge) else { throw PIVError.cardNotAuthenticated }
        }
    }

    /// The management key's algorithm as the card reports it (Yubico GET
    /// METADATA), or nil when the card does not say (then 3DES is the PIV default).
    public func managementKeyAlgorithm() throws(PIVError) -> PIVAlgorithm? {
        try managementKeyMetadata()?.algorithm
    }

    /// Replaces the management key (Yubico SET MANAGEMENT KEY); needs management-key authentication.
    public func setManagementKey(_ newKey: PIVManagementKey, requireTouch: Bool = false) throws(PIVError) {
        var data = [newKey.algorithm.rawValue, PIVKeyReference.managementKey, UInt8(newKey.key.count)] + newKey.key
        defer { PIVSecret.wipe(&data) }
        _ = try perform(CommandAPDU(ins: PIVInstruction.setManagementKey, p1: 0xFF, p2: requireTouch ? 0xFE : 0xFF,
                                    data: data),
                        operation: "changing the management key",
                        failure: { status in
                            status == .securityStatusNotSatisfied
                                ? .managementKeyRequired(operation: "changing the management key") : nil
                        })
    }

    // MARK: Dynamic authentication template (tag 7C)

    static func dynamicAuthentication(_ items: [BERTLV]) -> [UInt8] {
        BERTLV(tag: PIVTag.dynamicAuthenticationTemplate, children: items).encoded
    }

    /// The value of `tag` inside the `7C` template of a GENERAL AUTHENTICATE answer.
    static func dynamicAuthenticationValue(_ data: [UInt8], tag: TLVTag, operation: String) throws(PIVError) -> [UInt8] {
        do {
            let (outer, _) = try BERTLV.parseFirst(data)
            guard outer.tag == PIVTag.dynamicAuthenticationTemplate else {
                throw PIVError.malformedResponse(operation: operation, reason: "no 7C template")
            }
            guard let inner = try outer.children().first(tag) else {
                throw PIVError.malformedResponse(operation: operation, reason: "no tag \(tag) in the 7C template")
            }
            return inner.value
        } catch let error as PIVError {
            throw error
        } catch {
            throw .malformedResponse(operation: operation, reason: "\(error)")
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
