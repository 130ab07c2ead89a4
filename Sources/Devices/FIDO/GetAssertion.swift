import CBOR
import CFIDO2
import Interaction
import WebAuthn

/// An authenticatorGetAssertion request, in WebAuthn terms.
public struct GetAssertionRequest: Sendable {
    public var rpId: String
    public var clientDataHash: [UInt8]
    /// Empty: the key offers its discoverable credentials for `rpId`.
    public var allowCredentialIds: [[UInt8]]
    /// Ask for a touch (false only for silent probes).
    public var userPresence: Bool
    public var userVerification: Bool
    /// One or two 32-byte hmac-secret salts.
    public var hmacSalts: [[UInt8]]

    public init(rpId: String, clientDataHash: [UInt8], allowCredentialIds: [[UInt8]] = [],
                userPresence: Bool = true, userVerification: Bool = false, hmacSalts: [[UInt8]] = []) {
        self.rpId = rpId
        self.clientDataHash = clientDataHash
        self.allowCredentialIds = allowCredentialIds
        self.userPresence = userPresence
        self.userVerification = userVerification
        self.hmacSalts = hmacSalts
    }
}

/// One assertion the key returned.
public struct Assertion: Sendable {
    public var credentialId: [UInt8]
    /// The authenticator data exactly as signed.
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// The user handle stored with a discoverable credential.
    public var userHandle: [UInt8]?
    public var userName: String?
    public var userDisplayName: String?
    /// The hmac-secret output: 32 bytes per salt.
    public var hmacSecret: [UInt8]?
    public var signCount: UInt32
    public var flags: AuthenticatorData.Flags
}

extension FIDODevice {
    /// Gets assertions. A discoverable request returns one per matching
    /// credential, most recent first (libfido2 runs getNextAssertion for us).
    public func getAssertion(_ request: GetAssertionRequest, pin: String? = nil,
                             timeout: Duration? = .seconds(60),
                             progress: (@Sendable (ProgressStage) -> Void)? = nil) throws(FIDOError) -> [Assertion] {
        try checkUserVerification(wanted: request.userVerification, pin: pin)
        guard let assert = fido_assert_new() else { throw .other(code: FIDO_ERR_INTERNAL, "out of memory") }
        var owned: OpaquePointer? = assert
        defer { fido_assert_free(&owned) }

        try check(fido_assert_set_rp(assert, request.rpId), "relying party")
        try check(request.clientDataHash.withUnsafeBufferPointer {
            fido_assert_set_clientdata_hash(assert, $0.baseAddress, $0.count)
        }, "client data hash")
        for id in request.allowCredentialIds {
            try check(id.withUnsafeBufferPointer { fido_assert_allow_cred(assert, $0.baseAddress, $0.count) }, "allow list")
        }
        try check(fido_assert_set_up(assert, request.userPresence ? FIDO_OPT_TRUE : FIDO_OPT_FALSE), "user presence")
        try check(fido_assert_set_uv(assert, request.userVerification && pin == nil ? FIDO_OPT_TRUE : FIDO_OPT_OMIT), "user verification")
        if !request.hmacSalts.isEmpty {
            guard info.supportsHMACSecret else { throw .unsupportedOption("the hmac-secret extension") }
            guard request.hmacSalts.count <= 2, request.hmacSalts.allSatisfy({ $0.count == 32 }) else {
                throw .invalidArgument("hmac-secret takes one or two 32-byte salts")
            }
            let salt = request.hmacSalts.flatMap { $0 }
            try check(fido_assert_set_extensions(assert, FIDO_EXT_HMAC_SECRET), "extensions")
            try check(salt.withUnsafeBufferPointer { fido_assert_set_hmac_salt(assert, $0.baseAddress, $0.count) }, "hmac-secret salt")
        }

        let status = exchange(timeout: timeout,
                                  expectsTouch: request.userPresence, progress: progress) { handle in
            fido_dev_get_assert(handle, assert, pin)
        }
        guard status == FIDO_OK else {
            throw FIDOError(code: status, operation: "getting an assertion") { self.pinRetriesIfKnown() }
        }
        return try (0..<fido_assert_count(assert)).map { (index) throws(FIDOError) -> Assertion in
            // libfido2 1.12 hands authenticator data back CBOR-wrapped (a byte string).
            let wrapped = bytes(fido_assert_authdata_ptr(assert, index), fido_assert_authdata_len(assert, index))
            guard let authData = (try? CBOR.decode(wrapped))?.bytesValue else {
                throw .deviceIO("the authenticator data is not a CBOR byte string")
            }
            let userHandle = bytes(fido_assert_user_id_ptr(assert, index), fido_assert_user_id_len(assert, index))
            let secret = bytes(fido_assert_hmac_secret_ptr(assert, index), fido_assert_hmac_secret_len(assert, index))
            return Assertion(
                credentialId: bytes(fido_assert_id_ptr(assert, index), fido_assert_id_len(assert, index)),
                authenticatorData: authData,
                signature: bytes(fido_assert_sig_ptr(assert, index), fido_assert_sig_len(assert, index)),
                userHandle: userHandle.isEmpty ? nil : userHandle,
                userName: fido_assert_user_name(assert, index).map { String(cString: $0) },
                userDisplayName: fido_assert_user_display_name(assert, index).map { String(cString: $0) },
                hmacSecret: secret.isEmpty ? nil : secret,
                signCount: fido_assert_sigcount(assert, index),
                flags: AuthenticatorData.Flags(rawValue: fido_assert_flags(assert, index)))
        }
    }
}
