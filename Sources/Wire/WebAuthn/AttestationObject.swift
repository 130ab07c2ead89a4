import CBOR

/// The attestation object (WebAuthn L3 §6.5.4): `{"fmt", "attStmt", "authData"}`
/// with text keys, as a WebAuthn client hands it to a relying party. (Over CTAP
/// the same three travel under integer keys 1, 3, 2.)
public struct AttestationObject: Sendable, Equatable {
    public var format: String
    public var statement: CBOR
    /// The authenticator data exactly as the authenticator produced it; signatures cover these bytes.
    public var rawAuthenticatorData: [UInt8]
    public var authenticatorData: AuthenticatorData

    public init(format: String, statement: CBOR, rawAuthenticatorData: [UInt8]) throws(WebAuthnError) {
        self.format = format
        self.statement = statement
        self.rawAuthenticatorData = rawAuthenticatorData
        self.authenticatorData = try AuthenticatorData(bytes: rawAuthenticatorData)
    }

    public func encoded() -> [UInt8] {
        CBOR.map(["fmt": .text(format), "attStmt": statement, "authData": .bytes(rawAuthenticatorData)]).encoded()
    }

    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let item: CBOR
        do { item = try CBOR.decode(bytes) } catch {
            throw .malformed("attestation object", reason: error.description)
        }
        guard let fmt = item["fmt"]?.textValue else {
            throw .malformed("attestation object", reason: "fmt missing or not text")
        }
        guard let statement = item["attStmt"], statement.mapValue != nil else {
            throw .malformed("attestation object", reason: "attStmt missing or not a map")
        }
        guard let authData = item["authData"]?.bytesValue else {
            throw .malformed("attestation object", reason: "authData missing or not bytes")
        }
        try self.init(format: fmt, statement: statement, rawAuthenticatorData: authData)
    }
}
