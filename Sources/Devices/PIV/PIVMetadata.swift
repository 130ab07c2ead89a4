/// What Yubico GET METADATA tells about a key slot.
public struct PIVKeyMetadata: Sendable, Equatable {
    public let algorithm: PIVAlgorithm
    public let pinPolicy: PIVPINPolicy?
    public let touchPolicy: PIVTouchPolicy?
    /// True when the card generated the key (false: imported).
    public let generatedOnCard: Bool?
    public let publicKey: PIVPublicKey?
}

/// What Yubico GET METADATA tells about the PIN or the PUK.
public struct PIVPINMetadata: Sendable, Equatable {
    public let isDefault: Bool
    public let retriesTotal: Int
    public let retriesLeft: Int

    public init(isDefault: Bool, retriesTotal: Int, retriesLeft: Int) {
        self.isDefault = isDefault
        self.retriesTotal = retriesTotal
        self.retriesLeft = retriesLeft
    }
}

/// What Yubico GET METADATA tells about the management key.
public struct PIVManagementKeyMetadata: Sendable, Equatable {
    public let algorithm: PIVAlgorithm
    public let isDefault: Bool
    public let requiresTouch: Bool
}
