import FIDO
import WebAuthn

/// How a ceremony verifies the user on a given key: with its built-in UV (a
/// fingerprint), with its PIN, or not at all — decided the way browsers do
/// from the relying party's `userVerification` and the key's GetInfo.
struct UserVerificationPlan: Equatable {
    /// Ask the key to verify the user (the UV flag will be set).
    var verify: Bool
    /// Verification goes through the PIN (no built-in UV).
    var needsPIN: Bool

    init(requirement: UserVerificationRequirement, residentKey: Bool, device: AuthenticatorInfo) throws(CeremonyError) {
        let builtIn = device.hasBuiltInUV
        switch requirement {
        case .required:
            guard builtIn || device.hasPIN else {
                throw .authenticator(device.supportsPIN ? .pinNotSet
                    : .unsupportedOption("user verification (the site requires it; this key has no PIN or fingerprint)"))
            }
            self.init(verify: true, needsPIN: !builtIn)
        case .preferred:
            self.init(verify: builtIn || device.hasPIN, needsPIN: !builtIn && device.hasPIN)
        case .discouraged:
            // CTAP 2.1 (makeCredUvNotRqd): a discoverable credential on a key
            // with a PIN needs user verification anyway.
            let forced = residentKey && (builtIn || device.hasPIN)
            self.init(verify: forced, needsPIN: forced && !builtIn)
        }
    }

    init(verify: Bool, needsPIN: Bool) {
        self.verify = verify
        self.needsPIN = needsPIN
    }
}
