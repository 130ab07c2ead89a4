import Base64
import Crypto
import FoundationEssentials

/// The relying-party side of WebAuthn: verifies what a client returns from a
/// registration (`verifyRegistration`, L3 §7.1) or an authentication
/// (`verifyAuthentication`, L3 §7.2).
///
/// Every failure is `WebAuthnError.verificationFailed("<check>: <why>")`, the
/// check named as the JSON field or the flag it concerns, so the answer to a
/// developer says what to fix.
public enum RelyingParty {
    /// The attestation statement formats this verifier implements.
    public static let supportedAttestationFormats: Set<String> = ["none", "packed"]

    static func fail(_ check: String, _ why: String) -> WebAuthnError {
        .verificationFailed("\(check): \(why)")
    }

    /// The credential-level checks both ceremonies share: `type` and `id` ↔ `rawId`.
    static func checkCredential(type: String, id: String, rawId: [UInt8]) throws(WebAuthnError) {
        guard type == "public-key" else { throw fail("type", "expected \"public-key\", got \"\(type)\"") }
        guard Base64URL.decode(id, padding: .tolerated) == rawId else { throw fail("id", "does not match rawId") }
    }

    /// §7.1 steps 5–12 / §7.2 steps 10–15: parse the client data and check its
    /// type, challenge, origin, crossOrigin and topOrigin.
    static func checkClientData(_ json: [UInt8], type: CollectedClientData.CeremonyType, challenge: [UInt8],
                                allowedOrigins: [String], allowedTopOrigins: [String]) throws(WebAuthnError) {
        let clientData: CollectedClientData
        do { clientData = try CollectedClientData(json: json) } catch {
            throw fail("clientDataJSON", reasonOf(error))
        }
        guard clientData.type == type else {
            throw fail("clientDataJSON.type", "expected \"\(type.rawValue)\", got \"\(clientData.type.rawValue)\"")
        }
        guard clientData.challenge == Base64URL.encode(challenge) else {
            throw fail("clientDataJSON.challenge", "does not match the challenge this ceremony was given")
        }
        guard allowedOrigins.contains(clientData.origin) else {
            throw fail("clientDataJSON.origin", "\"\(clientData.origin)\" is not an allowed origin")
        }
        if clientData.crossOrigin, allowedTopOrigins.isEmpty {
            throw fail("clientDataJSON.crossOrigin", "the ceremony ran in a cross-origin iframe, which is not allowed")
        }
        if let topOrigin = clientData.topOrigin, !allowedTopOrigins.contains(topOrigin) {
            throw fail("clientDataJSON.topOrigin", "\"\(topOrigin)\" is not an allowed top-level origin")
        }
    }

    /// §7.1 steps 13–16 / §7.2 steps 15–18: rpIdHash, UP, UV when required, BE/BS.
    static func checkAuthenticatorData(_ authData: AuthenticatorData, rpId: String,
                                       userVerificationRequired: Bool) throws(WebAuthnError) {
        let expectedHash = Array(SHA256.hash(data: Array(rpId.utf8)))
        guard authData.rpIdHash == expectedHash else {
            throw fail("authenticatorData.rpIdHash", "is not SHA-256 of the RP ID \"\(rpId)\"")
        }
        guard authData.flags.contains(.userPresent) else {
            throw fail("authenticatorData.flags.UP", "user presence was not asserted")
        }
        if userVerificationRequired, !authData.flags.contains(.userVerified) {
            throw fail("authenticatorData.flags.UV", "user verification is required but was not performed")
        }
        if authData.flags.contains(.backupState), !authData.flags.contains(.backupEligible) {
            throw fail("authenticatorData.flags.BS", "backup state is set on a credential that is not backup eligible")
        }
    }

    /// The `reason` of a malformed-structure error, so the field name is not repeated.
    static func reasonOf(_ error: WebAuthnError) -> String {
        switch error {
        case .malformed(_, let reason): return reason
        case .unsupportedAlgorithm(let alg): return "COSE algorithm \(alg) is not supported"
        case .verificationFailed(let why): return why
        }
    }
}
