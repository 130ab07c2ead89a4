import Crypto

/// The authenticator's P-256 key-agreement key per PIN/UV auth protocol
/// (CTAP 2.1 §6.5.4 initialize/regenerate). Made at power-up, remade after a
/// wrong PIN and on reset, so a platform must fetch it again.
struct KeyAgreementKeys {
    private var keys: [PinUvAuthProtocol: P256.KeyAgreement.PrivateKey] = [:]

    init() { regenerate() }

    mutating func regenerate() {
        for version in PinUvAuthProtocol.allCases {
            keys[version] = P256.KeyAgreement.PrivateKey()
        }
    }

    subscript(version: PinUvAuthProtocol) -> P256.KeyAgreement.PrivateKey {
        mutating get {
            if let key = keys[version] { return key }
            let key = P256.KeyAgreement.PrivateKey()
            keys[version] = key
            return key
        }
    }
}
