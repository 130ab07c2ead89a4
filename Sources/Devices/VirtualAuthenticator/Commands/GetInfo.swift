import CBOR

/// authenticatorGetInfo (0x04, CTAP 2.1 §6.4).
extension AuthenticatorEngine {
    static let maximumCredentialCountInList: UInt64 = 8
    /// uvModality FINGERPRINT_INTERNAL (FIDO Registry §3.1).
    static let fingerprintModality: UInt64 = 0x02
    static let firmwareVersion: UInt64 = 1

    func getInfo() -> CBOR {
        var options: [CBOR: CBOR] = [
            "rk": true,
            "up": true,
            "plat": false,
            // true once a PIN is set; false = "PIN supported, not set yet".
            "clientPin": .bool(state.pin != nil),
            "pinUvAuthToken": true,
            "makeCredUvNotRqd": true,
            "credMgmt": true,
            "credentialMgmtPreview": true,
        ]
        if configuration.builtInUV { options["uv"] = true }

        var info: [CBOR: CBOR] = [
            1: ["FIDO_2_0", "FIDO_2_1"],
            2: ["credProtect", "hmac-secret"],
            3: .bytes(configuration.aaguid),
            4: .map(options),
            5: .unsigned(UInt64(Self.maximumMessageSize)),
            6: .array(PinUvAuthProtocol.advertised.map { .unsigned(UInt64($0.rawValue)) }),
            7: .unsigned(Self.maximumCredentialCountInList),
            8: .unsigned(UInt64(CredentialIDWrapper.maximumLength)),
            9: .array(configuration.transports.map { .text($0) }),
            0x0A: .array(CredentialKey.supportedAlgorithms.map { ["alg": .int($0.rawValue), "type": "public-key"] }),
            0x0C: false,  // forcePINChange
            0x0D: .unsigned(UInt64(PINRecord.minimumCodePoints)),
            0x0E: .unsigned(Self.firmwareVersion),
            0x14: .unsigned(UInt64(AuthenticatorState.maximumDiscoverableCredentials - state.credentials.count)),
        ]
        if configuration.builtInUV {
            info[0x11] = 1  // preferredPlatformUvAttempts
            info[0x12] = .unsigned(Self.fingerprintModality)
        }
        return .map(info)
    }
}
