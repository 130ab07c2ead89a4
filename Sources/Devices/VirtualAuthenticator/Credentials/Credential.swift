import CBOR

/// A user entity as stored with a discoverable credential.
struct UserEntity: Equatable {
    /// The user handle, at most 64 bytes (WebAuthn §5.4.3).
    var id: [UInt8]
    var name: String?
    var displayName: String?

    /// CTAP 2.1 §6.1.2: an authenticator may store names truncated to 64 bytes.
    static let maximumStoredNameBytes = 64
    static let maximumIDBytes = 64

    /// The user entity map of a getAssertion/credential-management response.
    func cbor(includingNames: Bool) -> CBOR {
        var map: [CBOR: CBOR] = ["id": .bytes(id)]
        if includingNames {
            if let name { map["name"] = .text(name) }
            if let displayName { map["displayName"] = .text(displayName) }
        }
        return .map(map)
    }
}

extension String {
    /// The longest prefix of at most `maxBytes` UTF-8 bytes that ends on a character boundary.
    func truncatedUTF8(maxBytes: Int) -> String {
        if utf8.count <= maxBytes { return self }
        var result = ""
        var used = 0
        for character in self {
            let size = character.utf8.count
            if used + size > maxBytes { break }
            result.append(character)
            used += size
        }
        return result
    }
}

/// A discoverable (resident) credential: lives in the state file.
struct DiscoverableCredential {
    let id: [UInt8]
    let rpId: String
    var rpName: String?
    var user: UserEntity
    let key: CredentialKey
    let credProtect: CredProtect
    let credRandoms: CredRandoms?
    /// Strictly increasing across creations: "most recent first" sorts by it.
    let creationOrder: UInt64
}

/// A credential found for a request, whichever kind it is.
struct ResolvedCredential {
    let id: [UInt8]
    let key: CredentialKey
    let credProtect: CredProtect
    let credRandoms: CredRandoms?
    /// Set for discoverable credentials: the user entity to return.
    let user: UserEntity?

    init(discoverable credential: DiscoverableCredential) {
        id = credential.id
        key = credential.key
        credProtect = credential.credProtect
        credRandoms = credential.credRandoms
        user = credential.user
    }

    init(id: [UInt8], wrapped material: WrappedCredential) {
        self.id = id
        key = material.key
        credProtect = material.credProtect
        credRandoms = material.credRandoms
        user = nil
    }
}

/// A public-key credential descriptor from an allowList or excludeList.
struct CredentialDescriptor {
    let id: [UInt8]

    /// Reads `{"type": "public-key", "id": bytes, ...}`; descriptors of any
    /// other type are skipped (nil), as CTAP 2.1 §6.1.2 says.
    static func parseList(_ items: [CBOR]) throws(CTAPStatus) -> [CredentialDescriptor] {
        var result: [CredentialDescriptor] = []
        result.reserveCapacity(items.count)
        for item in items {
            let map = try RequestMap(item)
            let type = try map.requiredText("type")
            let id = try map.requiredBytes("id")
            if type == "public-key" { result.append(CredentialDescriptor(id: id)) }
        }
        return result
    }
}
