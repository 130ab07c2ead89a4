/// authenticatorSelection (0x0B, CTAP 2.1 §6.9): "is this the key you touched?"
/// Only asks for user presence.
extension AuthenticatorEngine {
    func selection(_ interaction: SimulatedUser) throws(CTAPStatus) {
        try interaction.collectPresence().requireApproved()
    }
}
