import Crypto
import FoundationEssentials
import Hexadecimal

/// A public key read from a card: for now always P-256, kept as its
/// uncompressed point (`04 ‖ X ‖ Y`).
public struct PIVPublicKey: Sendable, Equatable, Hashable, Codable {
    public let algorithm: PIVAlgorithm
    /// The uncompressed point, 65 bytes.
    public let x963Representation: [UInt8]

    /// Validates the point (it must lie on P-256).
    public init(p256Point point: [UInt8]) throws(PIVError) {
        guard point.count == 65, point.first == 0x04,
              (try? P256.KeyAgreement.PublicKey(x963Representation: point)) != nil
        else {
            throw .malformedResponse(operation: "reading a public key", reason: "not an uncompressed P-256 point")
        }
        algorithm = .eccP256
        x963Representation = point
    }

    public init(_ key: P256.KeyAgreement.PublicKey) {
        algorithm = .eccP256
        x963Representation = Array(key.x963Representation)
    }

    /// The key for ECDH (vault key slots agree with it).
    public var keyAgreementKey: P256.KeyAgreement.PublicKey {
        get throws(PIVError) {
            do {
                return try P256.KeyAgreement.PublicKey(x963Representation: x963Representation)
            } catch {
                throw .malformedResponse(operation: "reading a public key", reason: "not a P-256 point")
            }
        }
    }

    /// The same key for verifying ECDSA signatures.
    public var signingKey: P256.Signing.PublicKey {
        get throws(PIVError) {
            do {
                return try P256.Signing.PublicKey(x963Representation: x963Representation)
            } catch {
                throw .malformedResponse(operation: "reading a public key", reason: "not a P-256 point")
            }
        }
    }

    /// Lower-case hex of the uncompressed point.
    public var hex: String { Hexadecimal.encode(x963Representation) }

    enum CodingKeys: String, CodingKey {
        case algorithm
        case point
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .algorithm)
        guard name == PIVAlgorithm.eccP256.description else {
            throw DecodingError.dataCorruptedError(forKey: .algorithm, in: container, debugDescription: "not P-256")
        }
        let point = try Hexadecimal.decode(try container.decode(String.self, forKey: .point))
        try self.init(p256Point: point)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(algorithm.description, forKey: .algorithm)
        try container.encode(hex, forKey: .point)
    }
}
