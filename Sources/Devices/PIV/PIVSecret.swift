/// Checks and pads PINs and PUKs (SP 800-73-4 Part 2 §2.4.3: 6–8 bytes,
/// padded to 8 with 0xFF). The values are secrets: they are never logged and
/// never put into errors; padded copies are zeroed after use.
enum PIVSecret {
    enum Kind: String {
        case pin = "PIN"
        case puk = "PUK"
    }

    static let paddedLength = 8
    static let minimumLength = 6

    /// Validates `value` and returns it padded to 8 bytes.
    static func padded(_ value: [UInt8], kind: Kind) throws(PIVError) -> [UInt8] {
        guard value.count >= minimumLength, value.count <= paddedLength else {
            throw .invalidSecret("the \(kind.rawValue) must be \(minimumLength) to \(paddedLength) characters long")
        }
        guard !value.contains(0xFF) else {
            throw .invalidSecret("the \(kind.rawValue) contains a byte a PIV card cannot store")
        }
        return value + [UInt8](repeating: 0xFF, count: paddedLength - value.count)
    }

    /// Overwrites a buffer that held a secret.
    static func wipe(_ buffer: inout [UInt8]) {
        for index in buffer.indices { buffer[index] = 0 }
    }
}
