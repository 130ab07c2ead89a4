import CFIDO2
import Interaction

/// A discoverable credential as the key's credential management lists it
/// (CTAP 2.1 §6.8: enumerateCredentials). Holds no secret: a large-blob key
/// is only reported as present.
public struct ManagedCredential: Sendable, Equatable {
    public var rpId: String
    public var rpName: String?
    public var credentialId: [UInt8]
    public var userId: [UInt8]
    public var userName: String?
    public var userDisplayName: String?
    /// The credProtect level (1, 2 or 3) when the key reports one.
    public var credProtect: Int?
    /// The key holds a largeBlobKey for this credential.
    public var hasLargeBlobKey: Bool
}

/// How many discoverable credentials the key holds, and how many more fit
/// (getCredsMetadata).
public struct DiscoverableCredentialCount: Sendable, Equatable {
    public var existing: Int
    public var remaining: Int
}

/// A relying party with discoverable credentials on the key (enumerateRPs).
public struct ManagedRelyingParty: Sendable, Equatable {
    public var id: String
    public var name: String?
}

/// authenticatorCredentialManagement through libfido2's `fido_credman_*`
/// (which sends the 0x41 preview command in 1.12, and parses every answer).
///
/// Each call takes a fresh pinUvAuthToken with the cm permission: from the
/// PIN when one is given, else from the key's built-in user verification.
/// The callers run them through `KeyPINExchange`, which decides that.
extension FIDODevice {
    /// The key offers credential management (`credMgmt`, or the 2.1 preview's `credentialMgmtPreview`).
    public var supportsCredentialManagement: Bool {
        info.options["credMgmt"] == true || info.options["credentialMgmtPreview"] == true
    }

    public func discoverableCredentialCount(pin: String?,
                                            progress: (@Sendable (ProgressStage) -> Void)? = nil) throws(FIDOError) -> DiscoverableCredentialCount {
        try requireCredentialManagement(pin: pin)
        guard let metadata = fido_credman_metadata_new() else { throw .other(code: FIDO_ERR_INTERNAL, "out of memory") }
        var owned: OpaquePointer? = metadata
        defer { fido_credman_metadata_free(&owned) }
        try credman("reading how many passkeys the key holds", pin: pin, progress: progress) { handle in
            fido_credman_get_dev_metadata(handle, metadata, pin)
        }
        // uint64_t values the key chose: a hostile key may send 2^64-1.
        return DiscoverableCredentialCount(existing: Int(clamping: fido_credman_rk_existing(metadata)),
                                           remaining: Int(clamping: fido_credman_rk_remaining(metadata)))
    }

    /// The relying parties the key holds discoverable credentials for; empty when it holds none.
    public func managedRelyingParties(pin: String?,
                                      progress: (@Sendable (ProgressStage) -> Void)? = nil) throws(FIDOError) -> [ManagedRelyingParty] {
        try requireCredentialManagement(pin: pin)
        guard let list = fido_credman_rp_new() else { throw .other(code: FIDO_ERR_INTERNAL, "out of memory") }
        var owned: OpaquePointer? = list
        defer { fido_credman_rp_free(&owned) }
        let found = try credman("listing the sites with passkeys on the key", pin: pin, progress: progress,
                                emptyIsNoCredentials: true) { handle in
            fido_credman_get_dev_rp(handle, list, pin)
        }
        guard found else { return [] }
        return (0..<fido_credman_rp_count(list)).compactMap { index in
            guard let id = fido_credman_rp_id(list, index) else { return nil }
            return ManagedRelyingParty(id: String(cString: id), name: fido_credman_rp_name(list, index).map { String(cString: $0) })
        }
    }

    /// The discoverable credentials for one relying party; empty when it has none.
    public func managedCredentials(rpId: String, rpName: String? = nil, pin: String?,
                                   progress: (@Sendable (ProgressStage) -> Void)? = nil) throws(FIDOError) -> [ManagedCredential] {
        try requireCredentialManagement(pin: pin)
        guard let list = fido_credman_rk_new() else { throw .other(code: FIDO_ERR_INTERNAL, "out of memory") }
        var owned: OpaquePointer? = list
        defer { fido_credman_rk_free(&owned) }
        let found = try credman("listing the passkeys for \(rpId)", pin: pin, progress: progress,
                                emptyIsNoCredentials: true) { handle in
            fido_credman_get_dev_rk(handle, rpId, list, pin)
        }
        guard found else { return [] }
        return (0..<fido_credman_rk_count(list)).compactMap { index in
            guard let credential = fido_credman_rk(list, index) else { return nil }
            func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
            let level = fido_cred_prot(credential)
            return ManagedCredential(
                rpId: rpId, rpName: rpName,
                credentialId: bytes(fido_cred_id_ptr(credential), fido_cred_id_len(credential)),
                userId: bytes(fido_cred_user_id_ptr(credential), fido_cred_user_id_len(credential)),
                userName: text(fido_cred_user_name(credential)),
                userDisplayName: text(fido_cred_display_name(credential)),
                credProtect: level > 0 ? Int(exactly: level) : nil,
                hasLargeBlobKey: fido_cred_largeblob_key_len(credential) > 0)
        }
    }

    /// Every discoverable credential on the key, by relying party (as the key orders them).
    public func managedCredentials(pin: String?,
                                   progress: (@Sendable (ProgressStage) -> Void)? = nil) throws(FIDOError) -> [ManagedCredential] {
        var all: [ManagedCredential] = []
        for party in try managedRelyingParties(pin: pin, progress: progress) {
            all += try managedCredentials(rpId: party.id, rpName: party.name, pin: pin, progress: progress)
        }
        return all
    }

    /// Deletes one discoverable credential by its id. An id the key does not
    /// hold is `noCredentials`.
    public func deleteManagedCredential(id: [UInt8], pin: String?,
                                        progress: (@Sendable (ProgressStage) -> Void)? = nil) throws(FIDOError) {
        try requireCredentialManagement(pin: pin)
        guard !id.isEmpty else { throw .invalidArgument("an empty credential id") }
        try credman("deleting a passkey", pin: pin, progress: progress) { handle in
            id.withUnsafeBufferPointer { fido_credman_del_dev_rk(handle, $0.baseAddress, $0.count, pin) }
        }
    }

    /// The key can grant a credential-management token from its own user
    /// verification (a fingerprint), with no PIN: CTAP 2.1's
    /// getPinUvAuthTokenUsingUvWithPermissions, which libfido2 uses when
    /// given no PIN and the key has `pinUvAuthToken`.
    public var managesCredentialsWithoutPIN: Bool {
        info.hasBuiltInUV && info.options["pinUvAuthToken"] == true
    }

    /// What must hold before a credman request is worth sending.
    private func requireCredentialManagement(pin: String?) throws(FIDOError) {
        guard supportsCredentialManagement else { throw .unsupportedOption("credential management") }
        if pin == nil && !managesCredentialsWithoutPIN { throw info.hasPIN ? .pinRequired : .pinNotSet }
    }

    /// Runs one credman call; true when it found something, false when the
    /// key answered NO_CREDENTIALS and `emptyIsNoCredentials` says that means "none".
    @discardableResult
    private func credman(_ operation: String, pin: String?, progress: (@Sendable (ProgressStage) -> Void)?,
                         emptyIsNoCredentials: Bool = false,
                         _ body: (OpaquePointer) -> Int32) throws(FIDOError) -> Bool {
        // Without a PIN the key verifies the user itself: a fingerprint, so a touch.
        let status = exchange(timeout: .seconds(30), expectsTouch: pin == nil, progress: progress, body)
        if status == FIDO_OK { return true }
        if status == FIDO_ERR_NO_CREDENTIALS && emptyIsNoCredentials { return false }
        throw FIDOError(code: status, operation: operation) { self.pinRetriesIfKnown() }
    }
}
