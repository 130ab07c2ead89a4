import Reports

extension CardPublicKey {
    /// A card's public key as reports carry it: the algorithm's name and the uncompressed point in hex.
    public init(_ key: PIVPublicKey) {
        self.init(algorithm: key.algorithm.description, point: key.hex)
    }
}
