import CFIDO2

/// What an authenticator says about itself in authenticatorGetInfo, plus its
/// PIN state, in a form `passkey devices` can print.
public struct AuthenticatorInfo: Sendable, Codable, Equatable {
    public var versions: [String]
    public var extensions: [String]
    public var aaguid: [UInt8]
    /// Options by name (`rk`, `up`, `uv`, `clientPin`, `pinUvAuthToken`, …).
    public var options: [String: Bool]
    public var pinUvAuthProtocols: [Int]
    /// COSE algorithm identifiers the key offers, in its order of preference.
    public var algorithms: [Int]
    public var transports: [String]
    public var maxMessageSize: Int
    public var maxCredentialCountInList: Int
    public var maxCredentialIdLength: Int
    public var firmwareVersion: Int
    public var minPINLength: Int
    /// GetInfo's remainingDiscoverableCredentials (0x14), when the key reports it.
    public var remainingDiscoverableCredentials: Int?

    /// A PIN is set (`clientPin` true). False when unset or unsupported.
    public var hasPIN: Bool { options["clientPin"] == true }
    /// The key can take a PIN (set or not).
    public var supportsPIN: Bool { options["clientPin"] != nil }
    /// Built-in user verification (a fingerprint reader) is enrolled.
    public var hasBuiltInUV: Bool { options["uv"] == true }
    public var supportsDiscoverableCredentials: Bool { options["rk"] == true }
    public var supportsHMACSecret: Bool { extensions.contains("hmac-secret") }
    public var supportsCredProtect: Bool { extensions.contains("credProtect") }

    init(_ info: OpaquePointer) {
        func strings(_ pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int) -> [String] {
            guard let pointer else { return [] }
            return (0..<count).compactMap { pointer[$0].map { String(cString: $0) } }
        }
        versions = strings(fido_cbor_info_versions_ptr(info), fido_cbor_info_versions_len(info))
        extensions = strings(fido_cbor_info_extensions_ptr(info), fido_cbor_info_extensions_len(info))
        transports = strings(fido_cbor_info_transports_ptr(info), fido_cbor_info_transports_len(info))
        let aaguidLength = fido_cbor_info_aaguid_len(info)
        aaguid = fido_cbor_info_aaguid_ptr(info).map { Array(UnsafeBufferPointer(start: $0, count: aaguidLength)) } ?? []
        let names = strings(fido_cbor_info_options_name_ptr(info), fido_cbor_info_options_len(info))
        var options: [String: Bool] = [:]
        if let values = fido_cbor_info_options_value_ptr(info) {
            for (index, name) in names.enumerated() { options[name] = values[index] }
        }
        self.options = options
        let protocolCount = fido_cbor_info_protocols_len(info)
        if let protocols = fido_cbor_info_protocols_ptr(info) {
            pinUvAuthProtocols = (0..<protocolCount).map { Int(protocols[$0]) }
        } else {
            pinUvAuthProtocols = []
        }
        algorithms = (0..<fido_cbor_info_algorithm_count(info)).map { Int(fido_cbor_info_algorithm_cose(info, $0)) }
        // uint64_t values the device chose: a hostile key may send 2^64-1.
        maxMessageSize = Int(clamping: fido_cbor_info_maxmsgsiz(info))
        maxCredentialCountInList = Int(clamping: fido_cbor_info_maxcredcntlst(info))
        maxCredentialIdLength = Int(clamping: fido_cbor_info_maxcredidlen(info))
        firmwareVersion = Int(clamping: fido_cbor_info_fwversion(info))
        minPINLength = Int(clamping: fido_cbor_info_minpinlen(info))
        // libfido2 says -1 when the key left it out.
        let remaining = fido_cbor_info_rk_remaining(info)
        remainingDiscoverableCredentials = remaining >= 0 ? Int(exactly: remaining) : nil
    }
}
