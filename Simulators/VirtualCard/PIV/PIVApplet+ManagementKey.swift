import Hexadecimal
import ISO7816
import PIVWire

extension PIVApplet {
    var managementKeyCipher: ManagementKeyCipher? {
        guard let key = try? Hexadecimal.decode(state.managementKey.key) else { return nil }
        return ManagementKeyCipher(algorithm: state.managementKey.algorithm, key: key)
    }

    /// GENERAL AUTHENTICATE with the management key (P2 = 9B), in the four
    /// steps SP 800-73-4 Part 2 Appendix A.1 allows:
    /// - `80` empty → card returns `80 E(witness)`; then `80 witness 81 challenge` → `82 E(challenge)` (mutual);
    /// - `81` empty → card returns `81 challenge`; then `82 E(challenge)` (one-way, as OpenSC does).
    func authenticateManagementKey(algorithm: UInt8, template: [BERTLV]) throws(StatusError) -> ResponseAPDU {
        guard algorithm == state.managementKey.algorithm, let cipher = managementKeyCipher else {
            throw StatusError(.incorrectP1P2)
        }
        let witness = template.first(PIVTag.witness)
        let challenge = template.first(PIVTag.challenge)
        let response = template.first(PIVTag.response)

        // Step 1 of mutual authentication: hand out an encrypted witness.
        if let witness, witness.value.isEmpty, challenge == nil, response == nil {
            managementKeyAuthenticated = false
            let plain = randomBytes(cipher.blockSize)
            guard let encrypted = cipher.encrypt(plain) else { throw StatusError(.noPreciseDiagnosis) }
            pendingWitness = plain
            pendingChallenge = nil
            return dynamicAuthenticationResponse(tag: PIVTag.witness, value: encrypted)
        }
        // Step 2 of mutual authentication: the host proves it decrypted the
        // witness, and the card proves itself by encrypting the host's challenge.
        if let witness, let challenge, !witness.value.isEmpty, !challenge.value.isEmpty {
            defer { pendingWitness = nil }
            guard let expected = pendingWitness, witness.value == expected,
                  challenge.value.count == cipher.blockSize,
                  let encrypted = cipher.encrypt(challenge.value)
            else {
                managementKeyAuthenticated = false
                throw StatusError(.securityStatusNotSatisfied)
            }
            managementKeyAuthenticated = true
            return dynamicAuthenticationResponse(tag: PIVTag.response, value: encrypted)
        }
        // Step 1 of one-way authentication: hand out a challenge.
        if let challenge, challenge.value.isEmpty, witness == nil {
            managementKeyAuthenticated = false
            let plain = randomBytes(cipher.blockSize)
            pendingChallenge = plain
            pendingWitness = nil
            return dynamicAuthenticationResponse(tag: PIVTag.challenge, value: plain)
        }
        // Step 2 of one-way authentication: the host returns the challenge encrypted.
        if let response, !response.value.isEmpty, witness == nil, challenge == nil {
            defer { pendingChallenge = nil }
            guard let sent = pendingChallenge, let expected = cipher.encrypt(sent), response.value == expected else {
                managementKeyAuthenticated = false
                throw StatusError(.securityStatusNotSatisfied)
            }
            managementKeyAuthenticated = true
            return .success
        }
        throw StatusError(.incorrectData)
    }

    /// Yubico SET MANAGEMENT KEY (`00 FF FF FF|FE`, data `alg 9B len key`); needs the current key.
    func setManagementKey(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        guard command.p1 == 0xFF, command.p2 == 0xFF || command.p2 == 0xFE else { throw StatusError(.incorrectP1P2) }
        guard managementKeyAuthenticated else { throw StatusError(.securityStatusNotSatisfied) }
        let data = command.data
        guard data.count >= 3, data[1] == PIVKeyReference.managementKey,
              let length = ManagementKeyCipher.keyLength(for: data[0]),
              Int(data[2]) == length, data.count == 3 + length
        else { throw StatusError(.incorrectData) }
        let key = Array(data[3...])
        state.managementKey = PIVCardState.ManagementKeyState(
            algorithm: data[0], key: Hexadecimal.encode(key),
            isDefault: data[0] == PIVAlgorithmID.tripleDES && key == PIVFactoryDefaults.managementKey)
        try persist()
        logger.info("management key changed")
        return .success
    }

    /// `7C L <tag> L <value>`.
    func dynamicAuthenticationResponse(tag: TLVTag, value: [UInt8]) -> ResponseAPDU {
        let inner = BERTLV(tag: tag, value: value)
        return ResponseAPDU(data: BERTLV(tag: PIVTag.dynamicAuthenticationTemplate, children: [inner]).encoded,
                            status: .success)
    }
}
