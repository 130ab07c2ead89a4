import PIVWire

/// What this card adds to the PIV vocabulary both sides share (PIVWire): its
/// own policies, its version and its access rules.
enum PIVCardConstants {
    /// Yubico PIN policies (tag AA of GENERATE); "default" means the slot's own rule.
    enum PINPolicy {
        static let `default`: UInt8 = 0
        static let never: UInt8 = 1
        static let once: UInt8 = 2
        static let always: UInt8 = 3
    }

    enum TouchPolicy {
        static let `default`: UInt8 = 0
        static let never: UInt8 = 1
    }

    /// Objects that need the PIN before GET DATA (SP 800-73-4 Part 1 Table 3).
    static let pinProtectedObjects: Set<UInt32> = [
        PIVObjectTag.printedInformation, PIVObjectTag.facialImage, PIVObjectTag.fingerprints, PIVObjectTag.irisImages,
    ]

    /// The firmware version GET VERSION reports: 5.x, so that yubico-piv-tool
    /// and yubikey.rs accept the card and ask for the serial with GET SERIAL;
    /// 5.4 is the last series whose default management key is 3DES.
    static let version: [UInt8] = [5, 4, 3]

    static let defaultRetries = 3
}
