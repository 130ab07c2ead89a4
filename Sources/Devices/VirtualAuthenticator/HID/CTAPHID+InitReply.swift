import PacketDevice

/// What this software key answers to CTAPHID_INIT about itself.
extension CTAPHID {
    /// INIT reply fields.
    static let protocolVersion: UInt8 = 2
    static let deviceVersion: (major: UInt8, minor: UInt8, build: UInt8) = (1, 0, 0)
    /// WINK | CBOR | NMSG (no CTAPHID_MSG: this key speaks no U2F).
    static let capabilities: UInt8 = 0x01 | 0x04 | 0x08
}
