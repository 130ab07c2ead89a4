import CFIDO2
import FIDO
import WebAuthn

/// libfido2's own verifiers, so our outputs are judged by independent code.
enum LibFIDO2Verify {
    /// fido_cred_verify_self: packed self attestation, rpIdHash, UP/UV, exact extension outputs.
    static func credential(_ result: MakeCredentialResult, request: MakeCredentialRequest) -> Int32 {
        guard let cred = fido_cred_new() else { return FIDO_ERR_INTERNAL }
        var owned: OpaquePointer? = cred
        defer { fido_cred_free(&owned) }
        _ = fido_cred_set_type(cred, Int32(result.algorithm.rawValue))
        _ = request.clientDataHash.withUnsafeBufferPointer { fido_cred_set_clientdata_hash(cred, $0.baseAddress, $0.count) }
        _ = fido_cred_set_rp(cred, request.rpId, request.rpName)
        if request.residentKey { _ = fido_cred_set_rk(cred, FIDO_OPT_TRUE) }
        if request.userVerification { _ = fido_cred_set_uv(cred, FIDO_OPT_TRUE) }
        var extensions: Int32 = 0
        if request.hmacSecret { extensions |= FIDO_EXT_HMAC_SECRET }
        if let level = request.credProtect { _ = fido_cred_set_prot(cred, Int32(level)); extensions |= FIDO_EXT_CRED_PROTECT }
        if extensions != 0 { _ = fido_cred_set_extensions(cred, extensions) }
        _ = result.authenticatorData.withUnsafeBufferPointer { fido_cred_set_authdata_raw(cred, $0.baseAddress, $0.count) }
        _ = fido_cred_set_fmt(cred, result.format)
        let statement = result.attestationStatement.encoded()
        _ = statement.withUnsafeBufferPointer { fido_cred_set_attstmt(cred, $0.baseAddress, $0.count) }
        return result.format == "none" ? FIDO_OK : fido_cred_verify_self(cred)
    }

    /// fido_assert_verify with the credential's public key.
    static func assertion(_ assertion: Assertion, rpId: String, clientDataHash: [UInt8], key: COSEKey,
                          userPresence: Bool = true, userVerification: Bool = false) -> Int32 {
        guard let assert = fido_assert_new() else { return FIDO_ERR_INTERNAL }
        var owned: OpaquePointer? = assert
        defer { fido_assert_free(&owned) }
        _ = fido_assert_set_rp(assert, rpId)
        _ = clientDataHash.withUnsafeBufferPointer { fido_assert_set_clientdata_hash(assert, $0.baseAddress, $0.count) }
        _ = fido_assert_set_count(assert, 1)
        _ = assertion.authenticatorData.withUnsafeBufferPointer { fido_assert_set_authdata_raw(assert, 0, $0.baseAddress, $0.count) }
        _ = assertion.signature.withUnsafeBufferPointer { fido_assert_set_sig(assert, 0, $0.baseAddress, $0.count) }
        _ = fido_assert_set_up(assert, userPresence ? FIDO_OPT_TRUE : FIDO_OPT_FALSE)
        if userVerification { _ = fido_assert_set_uv(assert, FIDO_OPT_TRUE) }
        switch key {
        case .es256(let x, let y):
            guard let pk = es256_pk_new() else { return FIDO_ERR_INTERNAL }
            var pkOwned: OpaquePointer? = pk
            defer { es256_pk_free(&pkOwned) }
            let raw = [UInt8(0x04)] + x + y
            guard raw.withUnsafeBufferPointer({ es256_pk_from_ptr(pk, $0.baseAddress, $0.count) }) == FIDO_OK else { return FIDO_ERR_INVALID_ARGUMENT }
            return fido_assert_verify(assert, 0, COSE_ES256, UnsafeRawPointer(pk))
        case .ed25519(let x):
            guard let pk = eddsa_pk_new() else { return FIDO_ERR_INTERNAL }
            var pkOwned: OpaquePointer? = pk
            defer { eddsa_pk_free(&pkOwned) }
            guard x.withUnsafeBufferPointer({ eddsa_pk_from_ptr(pk, $0.baseAddress, $0.count) }) == FIDO_OK else { return FIDO_ERR_INVALID_ARGUMENT }
            return fido_assert_verify(assert, 0, COSE_EDDSA, UnsafeRawPointer(pk))
        case .rs256:
            return FIDO_ERR_UNSUPPORTED_ALGORITHM
        }
    }
}
