import PacketDevice

/// The software authenticator speaks CTAPHID in 64-byte packets: libfido2
/// reaches it through the custom I/O hooks like any packet device, one
/// connection per libfido2 handle.
extension VirtualHIDDevice: CTAPHIDPacketDevice {
    public func connect() -> any CTAPHIDPacketConnection { openConnection() }
}

extension VirtualHIDConnection: CTAPHIDPacketConnection {}
