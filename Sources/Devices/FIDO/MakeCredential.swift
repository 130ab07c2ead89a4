import CBOR
import CFIDO2
import Interaction
import WebAuthn

/// An authenticatorMakeCredential request, in WebAuthn terms.
public struct MakeCredentialRequest: Sendable {
    public var clientDataHash: [UInt8]
    public var rpId: String
    public var rpName: String?
    public var userId: [UInt8]
    public var userName: String?
    public var userDisplayName: String?
    /// The relying party's algorithms in its order of preference; the first the key offers is used.
    public var algorithms: [COSEAlgorithm]
    public var excludeCredentialIds: [[UInt8]]
    /// Store a discoverable (resident) credential on the key.
    public var residentKey: Bool
    /// Verify the user (PIN or built-in UV) as part of the request.
    public var userVerification: Bool
    /// credProtect level 1…3, or nil to leave the key's default.
    public var credProtect: Int?
    public var hmacSecret: Bool

    public init(clientDataHash: [UInt8], rpId: String, rpName: String? = nil, userId: [UInt8],
                userName: String? = nil, userDisplayName: String? = nil,
                algorithms: [COSEAlgorithm] = [.es256], excludeCredentialIds: [[UInt8]] = [],
                residentKey: Bool = false, userVerification: Bool = false,
                credProtect: Int? = nil, hmacSecret: Bool = false) {
        self.clientDataHash = clientDataHash
        self.rpId = rpId
        self.rpName = rpName
        self.userId = userId
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.algorithms = algorithms
        self.excludeCredentialIds = excludeCredentialIds
        self.residentKey = residentKey
        self.userVerification = userVerification
        self.credProtect = credProtect
        self.hmacSecret = hmacSecret
    }
}

/// What the key returned, with the attestation object a relying party expects.
public struct MakeCredentialResult: Sendable {
    public var format: String
    /// The authenticator data exactly as the key produced it.
    public var authenticatorData: [UInt8]
    public var attestationStatement: CBOR
    public var credentialId: [UInt8]
    public var algorithm: COSEAlgorithm
    /// Whether the credential was stored as discoverable (WebAuthn's credProps.rk).
    public var residentKey: Bool

    /// `{"fmt", "attStmt", "authData"}` with text keys (WebAuthn §6.5.4).
    public var attestationObject: [UInt8] {
        CBOR.map(["fmt": .text(format), "attStmt": attestationStatement,
                  "authData": .bytes(authenticatorData)]).encoded()
    }
}

extension FIDODevice {
    /// Creates a credential. With `request.userVerification` and no `pin`,
    /// the key's built-in UV is used; a key without one needs the PIN.
    public func makeCredential(_ request: MakeCredentialRequest, pin: String? = nil,
                               timeout: Duration? = .seconds(60),
                               progress: (@Sendable (ProgressStage) -> Void)? = nil) throws(FIDOError) -> MakeCredentialResult {
        let algorithm = try chooseAlgorithm(request.algorithms)
        try checkUserVerification(wanted: request.userVerification, pin: pin)
        guard let cred = fido_cred_new() else { throw .other(code: FIDO_ERR_INTERNAL, "out of memory") }
        var owned: OpaquePointer? = cred
        defer { fido_cred_free(&owned) }

        try check(fido_cred_set_type(cred, Int32(algorithm.rawValue)), "algorithm")
        try check(request.clientDataHash.withUnsafeBufferPointer {
            fido_cred_set_clientdata_hash(cred, $0.baseAddress, $0.count)
        }, "client data hash")
        try check(fido_cred_set_rp(cred, request.rpId, request.rpName ?? request.rpId), "relying party")
        try check(request.userId.withUnsafeBufferPointer {
            fido_cred_set_user(cred, $0.baseAddress, $0.count, request.userName, request.userDisplayName, nil)
        }, "user")
        for id in request.excludeCredentialIds {
            try check(id.withUnsafeBufferPointer { fido_cred_exclude(cred, $0.baseAddress, $0.count) }, "exclude list")
        }
        try check(fido_cred_set_rk(cred, request.residentKey ? FIDO_OPT_TRUE : FIDO_OPT_OMIT), "resident key")
        try check(fido_cred_set_uv(cred, request.userVerification && pin == nil ? FIDO_OPT_TRUE : FIDO_OPT_OMIT), "user verification")
        var extensions: Int32 = 0
        if request.hmacSecret {
            guard info.supportsHMACSecret else { throw .unsupportedOption("the hmac-secret extension") }
            extensions |= FIDO_EXT_HMAC_SECRET
        }
        if let level = request.credProtect {
            guard info.supportsCredProtect else { throw .unsupportedOption("the credProtect extension") }
            try check(fido_cred_set_prot(cred, Int32(level)), "credProtect")
            extensions |= FIDO_EXT_CRED_PROTECT
        }
        if extensions != 0 { try check(fido_cred_set_extensions(cred, extensions), "extensions") }

        let status = exchange(timeout: timeout,
                                  expectsTouch: true, progress: progress) { handle in
            fido_dev_make_cred(handle, cred, pin)
        }
        guard status == FIDO_OK else {
            throw FIDOError(code: status, operation: "creating a credential") { self.pinRetriesIfKnown() }
        }

        let format = fido_cred_fmt(cred).map { String(cString: $0) } ?? "none"
        let statementBytes = bytes(fido_cred_attstmt_ptr(cred), fido_cred_attstmt_len(cred))
        let statement: CBOR
        do { statement = statementBytes.isEmpty ? .map([:]) : try CBOR.decode(statementBytes) } catch {
            throw .deviceIO("the attestation statement is not valid CBOR: \(error)")
        }
        return MakeCredentialResult(
            format: format,
            authenticatorData: bytes(fido_cred_authdata_raw_ptr(cred), fido_cred_authdata_raw_len(cred)),
            attestationStatement: statement,
            credentialId: bytes(fido_cred_id_ptr(cred), fido_cred_id_len(cred)),
            algorithm: algorithm,
            residentKey: request.residentKey)
    }

    /// The first of the relying party's algorithms the key offers. Keys that
    /// do not list algorithms (CTAP 2.0) are assumed to do ES256 only.
    func chooseAlgorithm(_ wanted: [COSEAlgorithm]) throws(FIDOError) -> COSEAlgorithm {
        let offered = info.algorithms.isEmpty ? [COSEAlgorithm.es256.rawValue] : info.algorithms
        // libfido2 1.12 creates ES256, EdDSA and RS256 credentials.
        let usable: Set<COSEAlgorithm> = [.es256, .edDSA, .rs256]
        guard let choice = wanted.first(where: { usable.contains($0) && offered.contains($0.rawValue) }) else {
            throw .unsupportedAlgorithm
        }
        return choice
    }

    /// User verification needs a PIN unless the key verifies users itself.
    func checkUserVerification(wanted: Bool, pin: String?) throws(FIDOError) {
        guard wanted, pin == nil else { return }
        if info.hasBuiltInUV && info.options["pinUvAuthToken"] == true { return }
        if info.hasBuiltInUV { return }
        throw info.hasPIN ? .pinRequired : .pinNotSet
    }
}

func check(_ status: Int32, _ what: String) throws(FIDOError) {
    guard status == FIDO_OK else { throw .invalidArgument("\(what) (\(String(cString: fido_strerr(status))))") }
}

func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let pointer, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: pointer, count: count))
}
