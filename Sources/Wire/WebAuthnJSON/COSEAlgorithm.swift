/// COSE algorithm identifiers WebAuthn uses (IANA COSE Algorithms registry).
public enum COSEAlgorithm: Int, Sendable, Codable, CaseIterable {
    case es256 = -7
    case edDSA = -8
    case es384 = -35
    case es512 = -36
    case ps256 = -37
    case rs256 = -257

    public var name: String {
        switch self {
        case .es256: return "ES256"
        case .edDSA: return "EdDSA"
        case .es384: return "ES384"
        case .es512: return "ES512"
        case .ps256: return "PS256"
        case .rs256: return "RS256"
        }
    }
}
