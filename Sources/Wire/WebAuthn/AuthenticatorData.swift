import CBOR

/// Authenticator data (WebAuthn L3 §6.1):
/// rpIdHash(32) ‖ flags(1) ‖ signCount(4, big-endian) ‖ attestedCredentialData? ‖ extensions?
public struct AuthenticatorData: Sendable, Equatable {
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backupState = Flags(rawValue: 0x10)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    public var rpIdHash: [UInt8]
    public var flags: Flags
    public var signCount: UInt32
    public var attestedCredentialData: AttestedCredentialData?
    /// The authenticator extension outputs (a CBOR map), when ED is set.
    public var extensions: CBOR?

    public init(rpIdHash: [UInt8], flags: Flags, signCount: UInt32,
                attestedCredentialData: AttestedCredentialData? = nil, extensions: CBOR? = nil) {
        self.rpIdHash = rpIdHash
        self.flags = flags
        self.signCount = signCount
        self.attestedCredentialData = attestedCredentialData
        self.extensions = extensions
    }

    /// The encoding; AT and ED follow from the optional parts, so they cannot disagree.
    public func encoded() -> [UInt8] {
        var flags = self.flags
        flags.remove([.attestedCredentialData, .extensionData])
        if attestedCredentialData != nil { flags.insert(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) }
        var out = rpIdHash
        out.reserveCapacity(37 + 200)
        out.append(flags.rawValue)
        out.append(contentsOf: withUnsafeBytes(of: signCount.bigEndian, Array.init))
        if let attested = attestedCredentialData { out.append(contentsOf: attested.encoded()) }
        if let extensions { extensions.encode(into: &out) }
        return out
    }

    /// Parses authenticator data; every length is checked before use.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        func fail(_ reason: String) -> WebAuthnError { .malformed("authenticator data", reason: reason) }
        guard bytes.count >= 37 else { throw fail("\(bytes.count) bytes, at least 37 needed") }
        rpIdHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            let (attested, used) = try AttestedCredentialData.parse(bytes[offset...])
            attestedCredentialData = attested
            offset += used
        } else {
            attestedCredentialData = nil
        }
        if flags.contains(.extensionData) {
            guard offset < bytes.count else { throw fail("ED flag set but no extensions follow") }
            let item: CBOR, used: Int
            do { (item, used) = try CBOR.decodeFirst(bytes[offset...]) } catch {
                throw fail("extensions: \(error.description)")
            }
            guard item.mapValue != nil else { throw fail("extensions must be a CBOR map") }
            extensions = item
            offset += used
        } else {
            extensions = nil
        }
        guard offset == bytes.count else { throw fail("\(bytes.count - offset) unexpected trailing bytes") }
    }
}

/// Attested credential data (WebAuthn L3 §6.5.1):
/// aaguid(16) ‖ credentialIdLength(2, big-endian) ‖ credentialId ‖ credentialPublicKey (COSE).
public struct AttestedCredentialData: Sendable, Equatable {
    public var aaguid: [UInt8]
    public var credentialId: [UInt8]
    public var publicKey: COSEKey

    /// WebAuthn caps credential ids at 1023 bytes (§7.1 step 17).
    public static let maxCredentialIdLength = 1023

    public init(aaguid: [UInt8], credentialId: [UInt8], publicKey: COSEKey) {
        self.aaguid = aaguid
        self.credentialId = credentialId
        self.publicKey = publicKey
    }

    public func encoded() -> [UInt8] {
        var out = aaguid
        out.append(UInt8(credentialId.count >> 8))
        out.append(UInt8(credentialId.count & 0xFF))
        out.append(contentsOf: credentialId)
        publicKey.cbor.encode(into: &out)
        return out
    }

    static func parse(_ bytes: ArraySlice<UInt8>) throws(WebAuthnError) -> (AttestedCredentialData, Int) {
        func fail(_ reason: String) -> WebAuthnError { .malformed("attested credential data", reason: reason) }
        let start = bytes.startIndex
        guard bytes.count >= 18 else { throw fail("\(bytes.count) bytes, at least 18 needed") }
        let aaguid = Array(bytes[start..<start + 16])
        let idLength = Int(bytes[start + 16]) << 8 | Int(bytes[start + 17])
        guard idLength <= maxCredentialIdLength else { throw fail("credential id of \(idLength) bytes exceeds 1023") }
        guard bytes.count >= 18 + idLength else { throw fail("credential id runs past the end") }
        let credentialId = Array(bytes[start + 18..<start + 18 + idLength])
        let keyStart = start + 18 + idLength
        let item: CBOR, used: Int
        do { (item, used) = try CBOR.decodeFirst(bytes[keyStart...]) } catch {
            throw fail("credential public key: \(error.description)")
        }
        let key = try COSEKey(cbor: item)
        return (AttestedCredentialData(aaguid: aaguid, credentialId: credentialId, publicKey: key), 18 + idLength + used)
    }
}
