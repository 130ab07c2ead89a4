import FoundationEssentials
import WebAuthn

/// Everything the authenticator keeps across power cycles, in memory.
/// `PersistedState` is its file form; `init(persisted:)` validates one.
struct AuthenticatorState {
    static let maximumPINRetries = 8
    static let maximumUVRetries = 8
    /// Discoverable credential slots; makeCredential beyond this → KEY_STORE_FULL.
    static let maximumDiscoverableCredentials = 100

    private(set) var masterSecret: [UInt8]
    private(set) var wrapper: CredentialIDWrapper
    /// Oldest first (ascending creationOrder).
    var credentials: [DiscoverableCredential]
    var pin: PINRecord?
    // Never below 0: a change is applied to the state as the file has it at
    // that moment, where another process may have used the last try already.
    var pinRetries: Int { didSet { pinRetries = max(pinRetries, 0) } }
    var uvRetries: Int { didSet { uvRetries = max(uvRetries, 0) } }
    var nextCreationOrder: UInt64
    var counter: SignatureCounter

    /// A factory-new authenticator; `counter` carries over a counter across Reset
    /// so signature counts never go back.
    static func fresh(counter: SignatureCounter = SignatureCounter(persistedCeiling: 0)) -> AuthenticatorState {
        let secret = secureRandomBytes(32)
        return AuthenticatorState(masterSecret: secret, wrapper: CredentialIDWrapper(masterSecret: secret),
                                  credentials: [], pin: nil,
                                  pinRetries: maximumPINRetries, uvRetries: maximumUVRetries,
                                  nextCreationOrder: 0, counter: counter)
    }

    private init(masterSecret: [UInt8], wrapper: CredentialIDWrapper, credentials: [DiscoverableCredential],
                 pin: PINRecord?, pinRetries: Int, uvRetries: Int, nextCreationOrder: UInt64,
                 counter: SignatureCounter) {
        self.masterSecret = masterSecret
        self.wrapper = wrapper
        self.credentials = credentials
        self.pin = pin
        self.pinRetries = pinRetries
        self.uvRetries = uvRetries
        self.nextCreationOrder = nextCreationOrder
        self.counter = counter
    }

    /// Checks every field of a loaded document; failures name the field, never its value.
    init(persisted: PersistedState, path: String) throws(VirtualAuthenticatorError) {
        func corrupt(_ reason: String) -> VirtualAuthenticatorError { .stateCorrupt(path: path, reason: reason) }
        guard persisted.format == PersistedState.currentFormat else {
            throw .stateFormatUnsupported(path: path, version: persisted.format)
        }
        guard persisted.masterSecret.count == 32 else { throw corrupt("masterSecret is not 32 bytes") }
        guard (0...Self.maximumPINRetries).contains(persisted.pinRetries) else {
            throw corrupt("pinRetries is outside 0…\(Self.maximumPINRetries)")
        }
        guard (0...Self.maximumUVRetries).contains(persisted.uvRetries) else {
            throw corrupt("uvRetries is outside 0…\(Self.maximumUVRetries)")
        }
        var pin: PINRecord?
        if let stored = persisted.pin {
            guard stored.salt.count == 32, stored.verifier.count == 32,
                  stored.codePoints >= PINRecord.minimumCodePoints else {
                throw corrupt("pin is not a valid PIN record")
            }
            pin = PINRecord(salt: [UInt8](stored.salt), verifier: [UInt8](stored.verifier),
                            codePointCount: stored.codePoints)
        }
        // Far beyond any real use, and keeps `nextCreationOrder += 1` from overflowing.
        guard persisted.nextCreationOrder <= UInt64(Int64.max) else {
            throw corrupt("nextCreationOrder is out of range")
        }
        guard persisted.discoverableCredentials.count <= Self.maximumDiscoverableCredentials else {
            throw corrupt("more than \(Self.maximumDiscoverableCredentials) discoverable credentials")
        }
        var credentials: [DiscoverableCredential] = []
        var seenIDs = Set<[UInt8]>()
        for (index, stored) in persisted.discoverableCredentials.enumerated() {
            let field = "discoverableCredentials[\(index)]"
            let id = [UInt8](stored.id)
            guard (1...AttestedCredentialData.maxCredentialIdLength).contains(id.count),
                  seenIDs.insert(id).inserted else {
                throw corrupt("\(field).id is empty, too long or repeated")
            }
            guard !stored.rpId.isEmpty else { throw corrupt("\(field).rpId is empty") }
            guard stored.userId.count <= UserEntity.maximumIDBytes else {
                throw corrupt("\(field).userId is longer than \(UserEntity.maximumIDBytes) bytes")
            }
            guard let algorithm = COSEAlgorithm(rawValue: stored.algorithm),
                  CredentialKey.supportedAlgorithms.contains(algorithm) else {
                throw corrupt("\(field).algorithm is not ES256 (-7) or EdDSA (-8)")
            }
            guard let key = CredentialKey(algorithm: algorithm, raw: [UInt8](stored.privateKey)) else {
                throw corrupt("\(field).privateKey is not a valid \(algorithm.name) key")
            }
            guard let level = UInt8(exactly: stored.credProtect), let credProtect = CredProtect(rawValue: level) else {
                throw corrupt("\(field).credProtect is not 1, 2 or 3")
            }
            var randoms: CredRandoms?
            switch (stored.credRandomWithUV, stored.credRandomWithoutUV) {
            case (nil, nil):
                randoms = nil
            case (let withUV?, let withoutUV?) where withUV.count == 32 && withoutUV.count == 32:
                randoms = CredRandoms(withUV: [UInt8](withUV), withoutUV: [UInt8](withoutUV))
            default:
                throw corrupt("\(field) credRandoms must both be 32 bytes or both be absent")
            }
            guard stored.creationOrder < persisted.nextCreationOrder else {
                throw corrupt("\(field).creationOrder is not below nextCreationOrder")
            }
            credentials.append(DiscoverableCredential(
                id: id, rpId: stored.rpId, rpName: stored.rpName,
                user: UserEntity(id: [UInt8](stored.userId), name: stored.userName, displayName: stored.userDisplayName),
                key: key, credProtect: credProtect, credRandoms: randoms, creationOrder: stored.creationOrder))
        }
        credentials.sort { $0.creationOrder < $1.creationOrder }
        let secret = [UInt8](persisted.masterSecret)
        self.init(masterSecret: secret, wrapper: CredentialIDWrapper(masterSecret: secret),
                  credentials: credentials, pin: pin,
                  pinRetries: persisted.pinRetries, uvRetries: persisted.uvRetries,
                  nextCreationOrder: persisted.nextCreationOrder,
                  counter: SignatureCounter(persistedCeiling: persisted.signatureCounterCeiling))
    }

    /// The file form; `counterCeiling` overrides the counter's ceiling while a new one is reserved.
    func persisted(counterCeiling: UInt32? = nil) -> PersistedState {
        PersistedState(
            format: PersistedState.currentFormat,
            masterSecret: Data(masterSecret),
            signatureCounterCeiling: counterCeiling ?? counter.ceiling,
            pinRetries: pinRetries,
            uvRetries: uvRetries,
            pin: pin.map { PersistedPIN(salt: Data($0.salt), verifier: Data($0.verifier), codePoints: $0.codePointCount) },
            nextCreationOrder: nextCreationOrder,
            discoverableCredentials: credentials.map { credential in
                PersistedCredential(
                    id: Data(credential.id), rpId: credential.rpId, rpName: credential.rpName,
                    userId: Data(credential.user.id), userName: credential.user.name,
                    userDisplayName: credential.user.displayName,
                    algorithm: credential.key.algorithm.rawValue,
                    privateKey: Data(credential.key.rawRepresentation),
                    credProtect: Int(credential.credProtect.rawValue),
                    credRandomWithUV: credential.credRandoms.map { Data($0.withUV) },
                    credRandomWithoutUV: credential.credRandoms.map { Data($0.withoutUV) },
                    creationOrder: credential.creationOrder)
            })
    }

    // MARK: Finding credentials

    /// The discoverable credential with this id, if it belongs to `rpId`.
    func discoverable(id: [UInt8], rpId: String) -> DiscoverableCredential? {
        credentials.first { $0.id == id && $0.rpId == rpId }
    }

    /// Discoverable credentials of an RP, most recent first.
    func discoverable(rpId: String) -> [DiscoverableCredential] {
        credentials.filter { $0.rpId == rpId }.reversed()
    }
}
