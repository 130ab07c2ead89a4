/// Recently unwrapped non-discoverable credentials, so repeated assertions
/// skip the AES-GCM open and the private-key parse (which costs a scalar
/// multiplication, about as much as the signature itself).
struct UnwrapCache {
    static let capacity = 64
    private var entries: [[UInt8]: (rpIdHash: [UInt8], credential: ResolvedCredential)] = [:]

    func lookup(id: [UInt8], rpIdHash: [UInt8]) -> ResolvedCredential? {
        guard let entry = entries[id], entry.rpIdHash == rpIdHash else { return nil }
        return entry.credential
    }

    mutating func store(_ credential: ResolvedCredential, rpIdHash: [UInt8]) {
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[credential.id] = (rpIdHash, credential)
    }

    mutating func removeAll() { entries.removeAll() }
}
