/// PIN and PUK values travel as 8 bytes, padded with 0xFF (SP 800-73-4 Part 2 §2.4.3).
enum PIVPadding {
    static let length = 8
    static let minimumValueLength = 6

    static func pad(_ value: [UInt8]) -> [UInt8] {
        Array(value.prefix(length)) + [UInt8](repeating: 0xFF, count: max(0, length - value.count))
    }

    /// True for 8 bytes holding 6–8 non-FF bytes followed only by FF padding.
    static func isWellFormed(_ padded: [UInt8]) -> Bool {
        guard padded.count == length else { return false }
        let valueLength = padded.firstIndex(of: 0xFF) ?? length
        return valueLength >= minimumValueLength && padded[valueLength...].allSatisfy { $0 == 0xFF }
    }
}
