import CBOR
import Crypto
import FoundationEssentials
import WebAuthn

extension FuzzTarget {
    /// The binary structures a relying party (the devserver) receives:
    /// authenticator data, attestation objects and COSE keys, each parsed from
    /// the same bytes and round-tripped through its encoder.
    static let webauthnBinary = FuzzTarget(
        name: "webauthn-binary",
        summary: "bytes as AuthenticatorData, AttestationObject and COSEKey, with re-encoding round trips",
        maximumLength: 4096,
        seeds: {
            let ceremony = try await RecordedCeremony.shared()
            let attestation = ceremony.registration.response.attestationObject.bytes
            var seeds = [Seed("attestation-object", attestation),
                         Seed("assertion-authenticator-data", ceremony.authentication.response.authenticatorData.bytes)]
            if let parsed = try? AttestationObject(bytes: attestation) {
                seeds.append(Seed("registration-authenticator-data", parsed.rawAuthenticatorData))
                if let key = parsed.authenticatorData.attestedCredentialData?.publicKey {
                    seeds.append(Seed("cose-key-es256", key.encoded()))
                }
            }
            return seeds
        },
        run: { bytes in
            if let data = try? AuthenticatorData(bytes: bytes) {
                try expect((try? AuthenticatorData(bytes: data.encoded())) == data, "authenticator data does not survive re-encoding")
            }
            if let object = try? AttestationObject(bytes: bytes) {
                try expect((try? AttestationObject(bytes: object.encoded())) == object, "an attestation object does not survive re-encoding")
            }
            if let key = try? COSEKey(encoded: bytes) {
                try expect((try? COSEKey(encoded: key.encoded())) == key, "a COSE key does not survive re-encoding")
                _ = key.isValidSignature(Array(bytes.prefix(72)), for: bytes)
            }
        })

    /// The JSON a relying party and a client receive: clientDataJSON (which
    /// must re-serialise to what parses the same, as browsers write it) and
    /// the WebAuthn Level 3 JSON forms of options and responses.
    static let webauthnJSON = FuzzTarget(
        name: "webauthn-json",
        summary: "JSON as CollectedClientData (with its browser serialisation round trip), creation/request options and registration/authentication responses",
        maximumLength: 8192,
        seeds: {
            let ceremony = try await RecordedCeremony.shared()
            let encoder = JSONEncoder()
            return [
                Seed("client-data-create", ceremony.registration.response.clientDataJSON.bytes),
                Seed("client-data-get", ceremony.authentication.response.clientDataJSON.bytes),
                Seed("creation-options", ceremony.creationOptions),
                Seed("request-options", ceremony.requestOptions),
                Seed("registration-response", Array(try encoder.encode(ceremony.registration))),
                Seed("authentication-response", Array(try encoder.encode(ceremony.authentication))),
                Seed("client-data-escapes", text: #"{"type":"webauthn.get","challenge":"\u0000\"\\","origin":"https://a\ud83d\ude00.example","crossOrigin":true,"topOrigin":"x"}"#),
            ]
        },
        run: { bytes in
            if let clientData = try? CollectedClientData(json: bytes) {
                try expect((try? CollectedClientData(json: clientData.json)) == clientData,
                           "clientDataJSON does not survive its own serialisation")
            }
            let data = Data(bytes)
            let decoder = JSONDecoder()
            _ = try? decoder.decode(PublicKeyCredentialCreationOptionsJSON.self, from: data)
            _ = try? decoder.decode(PublicKeyCredentialRequestOptionsJSON.self, from: data)
            _ = try? decoder.decode(RegistrationResponseJSON.self, from: data)
            _ = try? decoder.decode(AuthenticationResponseJSON.self, from: data)
        })

    /// The relying party's verifier (§7.1, §7.2) on responses a client posts,
    /// against fixed expectations that the recorded ceremony meets. The input
    /// is a registration response JSON, or, after a 0x00 byte and a 2-byte
    /// length, a stored COSE key and an authentication response JSON.
    static let webauthnVerify = FuzzTarget(
        name: "webauthn-verify",
        summary: "RelyingParty.verifyRegistration on a registration response JSON; after 00 ‖ 2-byte length ‖ COSE key, verifyAuthentication on an authentication response JSON",
        maximumLength: 8192,
        seeds: {
            let ceremony = try await RecordedCeremony.shared()
            let encoder = JSONEncoder()
            let registration = Array(try encoder.encode(ceremony.registration))
            guard let key = try? AttestationObject(bytes: ceremony.registration.response.attestationObject.bytes)
                .authenticatorData.attestedCredentialData?.publicKey.encoded() else { return [Seed("registration", registration)] }
            let authentication = Array(try encoder.encode(ceremony.authentication))
            let otherKey = COSEKey(p256: P256.Signing.PrivateKey().publicKey).encoded()
            func keyed(_ key: [UInt8]) -> [UInt8] { [0x00, UInt8(key.count >> 8), UInt8(key.count & 0xFF)] + key }
            var tampered = ceremony.registration
            tampered.response.authenticatorData = Base64URLBytes(ceremony.authentication.response.authenticatorData.bytes)
            return [Seed("registration", registration),
                    Seed("registration-authenticator-data-differs", Array(try encoder.encode(tampered))),
                    Seed("authentication", keyed(key) + authentication),
                    Seed("authentication-other-key", keyed(otherKey) + authentication)]
        },
        run: { bytes in
            let decoder = JSONDecoder()
            if bytes.first == 0x00, bytes.count >= 3 {
                let keyLength = Int(bytes[1]) << 8 | Int(bytes[2])
                guard bytes.count >= 3 + keyLength,
                      let key = try? COSEKey(encoded: Array(bytes[3..<(3 + keyLength)])),
                      let response = try? decoder.decode(AuthenticationResponseJSON.self, from: Data(bytes[(3 + keyLength)...]))
                else { return }
                let record = CredentialRecord(id: response.rawId.bytes, publicKey: key, signCount: 0,
                                              userHandle: response.response.userHandle?.bytes ?? [])
                _ = try? RelyingParty.verifyAuthentication(response, expecting: AuthenticationExpectation(
                    challenge: RecordedCeremony.challenge, allowedOrigins: [RecordedCeremony.origin],
                    rpId: RecordedCeremony.rpId, credential: record))
            } else if let response = try? decoder.decode(RegistrationResponseJSON.self, from: Data(bytes)) {
                _ = try? RelyingParty.verifyRegistration(response, expecting: RegistrationExpectation(
                    challenge: RecordedCeremony.challenge, allowedOrigins: [RecordedCeremony.origin],
                    rpId: RecordedCeremony.rpId, userVerificationRequired: true))
            }
        })
}
