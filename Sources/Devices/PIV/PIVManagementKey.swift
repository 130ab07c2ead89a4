import Hexadecimal
import PIVWire

/// A PIV card management key (key reference 9B): 3DES or AES.
///
/// The key bytes are a secret: `description` never shows them; `hexString`
/// exists only to show a newly generated key to its owner once.
public struct PIVManagementKey: Sendable, Equatable, CustomStringConvertible {
    public let algorithm: PIVAlgorithm
    let key: [UInt8]

    /// The factory default of PIV cards and YubiKeys before 5.7:
    /// 3DES 010203040506070801020304050607080102030405060708.
    public static let `default` = PIVManagementKey(uncheckedAlgorithm: .tripleDES, key: PIVFactoryDefaults.managementKey)

    public init(algorithm: PIVAlgorithm, key: [UInt8]) throws(PIVError) {
        guard let length = algorithm.symmetricKeyLength else {
            throw .invalidManagementKey("\(algorithm) is not a management-key algorithm")
        }
        guard key.count == length else {
            throw .invalidManagementKey("a \(algorithm) key is \(length) bytes (\(2 * length) hex digits), not \(key.count)")
        }
        self.algorithm = algorithm
        self.key = key
    }

    /// Parses hex digits; the algorithm comes from the card (GET METADATA) or, failing that, the length.
    public init(hex: String, algorithm: PIVAlgorithm? = nil) throws(PIVError) {
        let bytes: [UInt8]
        do {
            bytes = try Hexadecimal.decode(hex.trimmingWhitespace)
        } catch {
            throw .invalidManagementKey("it is not hexadecimal")
        }
        if let algorithm {
            try self.init(algorithm: algorithm, key: bytes)
            return
        }
        switch bytes.count {
        case 24: try self.init(algorithm: .tripleDES, key: bytes)
        case 16: try self.init(algorithm: .aes128, key: bytes)
        case 32: try self.init(algorithm: .aes256, key: bytes)
        default: throw .invalidManagementKey("\(bytes.count) bytes is not the length of a 3DES or AES key")
        }
    }

    private init(uncheckedAlgorithm: PIVAlgorithm, key: [UInt8]) {
        self.algorithm = uncheckedAlgorithm
        self.key = key
    }

    /// A fresh random key.
    public static func random(algorithm: PIVAlgorithm = .aes192) throws(PIVError) -> PIVManagementKey {
        guard let length = algorithm.symmetricKeyLength else {
            throw .invalidManagementKey("\(algorithm) is not a management-key algorithm")
        }
        var generator = SystemRandomNumberGenerator()
        return try PIVManagementKey(algorithm: algorithm,
                                    key: (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The same key bytes read under another algorithm (3DES and AES-192 keys have the same length).
    public func with(algorithm: PIVAlgorithm) throws(PIVError) -> PIVManagementKey {
        try PIVManagementKey(algorithm: algorithm, key: key)
    }

    /// The key in hex, for showing a new key to its owner; never log it.
    public var hexString: String { Hexadecimal.encode(key) }

    public var description: String { "\(algorithm) management key" }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
