import CBOR
import WebAuthn

/// What a client hands a relying party that asked for `attestation: "none"`
/// (the default): WebAuthn §5.1.3's "replace potentially uniquely identifying
/// information" — fmt `none`, an empty attStmt, and (as Level 2 words it, and
/// this issue asks) the AAGUID as 16 zero bytes, so neither a batch
/// certificate nor the key's model reaches a site that did not ask for them.
/// Self attestation (fmt `packed`, a zero AAGUID, no `x5c`) identifies
/// nothing and is left alone. The authenticator data changes, so the
/// response's `authenticatorData` must be the returned one too; nothing
/// signs over it in format `none`.
enum NoneAttestation {
    static let aaguidOffset = 32 + 1 + 4
    static let aaguidLength = 16

    /// The attestation object and authenticator data as sent to the RP.
    static func anonymized(attestationObject bytes: [UInt8]) throws(WebAuthnError) -> (attestationObject: [UInt8], authenticatorData: [UInt8]) {
        let object = try AttestationObject(bytes: bytes)
        let attested = object.authenticatorData.attestedCredentialData
        let zeroAAGUID = attested.map { $0.aaguid.allSatisfy { $0 == 0 } } ?? true
        if object.format == "packed", zeroAAGUID, object.statement["x5c"] == nil {
            return (bytes, object.rawAuthenticatorData)
        }
        var authData = object.rawAuthenticatorData
        if attested != nil, authData.count >= aaguidOffset + aaguidLength {
            authData.replaceSubrange(aaguidOffset..<(aaguidOffset + aaguidLength), with: [UInt8](repeating: 0, count: aaguidLength))
        }
        let none = try AttestationObject(format: "none", statement: .map([:]), rawAuthenticatorData: authData)
        return (none.encoded(), authData)
    }
}
