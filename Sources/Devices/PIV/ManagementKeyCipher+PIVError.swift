import PIVWire

/// The shared management-key cipher, as the client uses it: on a checked
/// `PIVManagementKey`, with this layer's errors.
extension ManagementKeyCipher {
    init(_ key: PIVManagementKey) {
        self.init(algorithm: key.algorithm.rawValue, key: key.key)
    }

    func encryptBlock(_ block: [UInt8]) throws(PIVError) -> [UInt8] {
        try checked(block, encrypt(block))
    }

    func decryptBlock(_ block: [UInt8]) throws(PIVError) -> [UInt8] {
        try checked(block, decrypt(block))
    }

    /// The key is checked already, so nil means a block of the wrong size
    /// (from the card) or the cipher itself failing.
    private func checked(_ block: [UInt8], _ result: [UInt8]?) throws(PIVError) -> [UInt8] {
        let name = PIVAlgorithm(rawValue: algorithm)
        guard block.count == blockSize else {
            throw .malformedResponse(operation: "management-key authentication",
                                     reason: "a \(name) block is \(blockSize) bytes, not \(block.count)")
        }
        guard let result else {
            throw .invalidManagementKey(name == .tripleDES ? "OpenSSL refused the 3DES operation" : "the AES operation failed")
        }
        return result
    }
}
