import ISO7816

/// How `CardChannel.transmit(_:options:)` fits commands and responses into APDUs.
public struct TransmitOptions: Sendable {
    /// Send commands longer than 255 bytes as one extended APDU instead of a
    /// chain of short ones. Off by default: not every reader driver (vpcd 0.8
    /// for one) carries extended APDUs, while every PIV card accepts chaining.
    public var useExtendedLength: Bool
    /// Data bytes per block of a command chain (at most 255).
    public var chainingBlockSize: Int
    /// The most response bytes collected through GET RESPONSE before giving up.
    public var maximumResponseLength: Int

    public init(useExtendedLength: Bool = false, chainingBlockSize: Int = 255, maximumResponseLength: Int = 65536) {
        self.useExtendedLength = useExtendedLength
        self.chainingBlockSize = min(max(chainingBlockSize, 1), CommandAPDU.maximumShortData)
        self.maximumResponseLength = maximumResponseLength
    }
}
