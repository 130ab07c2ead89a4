import Logging
import VirtualAuthenticator
import VirtualCard

extension TestCards {
    /// A card with the PIV and FIDO2 applets sharing one memory (in `stateFile`, or in memory only).
    static func fido2Card(stateFile: CardStateFile? = nil,
                          configuration: VirtualAuthenticatorConfiguration = VirtualAuthenticatorConfiguration(builtInUV: false))
        throws -> (VirtualCard, FIDO2Applet) {
        let memory = try CardMemory(file: stateFile)
        let fido2 = try FIDO2Applet(memory: memory, configuration: configuration, logger: logger)
        let piv = try PIVApplet(memory: memory, logger: logger)
        return (VirtualCard(applets: [piv, fido2], logger: logger), fido2)
    }
}
