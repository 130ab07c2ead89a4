import VirtualAuthenticator

/// The software authenticator speaks CTAPHID in 64-byte packets: libfido2
/// reaches it through the custom I/O hooks like any packet device.
extension VirtualHIDDevice: CTAPHIDPacketDevice {}
