import FIDOTestSupport
import FoundationEssentials
import Interaction
import Locking
import TestSupport
import VirtualAuthenticator
import WebAuthn

/// Options as a relying party sends them.
enum Options {
    static func random(_ count: Int) -> Base64URLBytes { Base64URLBytes(WebAuthnFixtures.randomBytes(count)) }

    static func creation(rpId: String? = "example.org", userId: [UInt8] = Array("user-1".utf8), name: String = "alice",
                         displayName: String = "Alice", challenge: Base64URLBytes = random(32),
                         algorithms: [PublicKeyCredentialParameters] = [.init(.es256)],
                         residentKey: ResidentKeyRequirement? = .required, userVerification: UserVerificationRequirement? = .preferred,
                         attachment: AuthenticatorAttachment? = nil, attestation: AttestationConveyancePreference? = nil,
                         exclude: [[UInt8]] = [], extensions: AuthenticationExtensionsClientInputsJSON? = nil)
        -> PublicKeyCredentialCreationOptionsJSON {
        PublicKeyCredentialCreationOptionsJSON(
            rp: PublicKeyCredentialRpEntity(id: rpId, name: "Example"),
            user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(userId), name: name, displayName: displayName),
            challenge: challenge, pubKeyCredParams: algorithms,
            excludeCredentials: exclude.map { PublicKeyCredentialDescriptorJSON(id: Base64URLBytes($0)) },
            authenticatorSelection: AuthenticatorSelectionCriteria(authenticatorAttachment: attachment, residentKey: residentKey,
                                                                   userVerification: userVerification),
            attestation: attestation, extensions: extensions)
    }

    static func request(rpId: String? = "example.org", allow: [[UInt8]] = [], challenge: Base64URLBytes = random(32),
                        userVerification: UserVerificationRequirement? = .preferred,
                        extensions: AuthenticationExtensionsClientInputsJSON? = nil) -> PublicKeyCredentialRequestOptionsJSON {
        PublicKeyCredentialRequestOptionsJSON(challenge: challenge, rpId: rpId,
                                              allowCredentials: allow.map { PublicKeyCredentialDescriptorJSON(id: Base64URLBytes($0)) },
                                              userVerification: userVerification, extensions: extensions)
    }
}

/// clientDataJSON as a relying party reads it.
struct ClientData: Decodable, Equatable {
    var type: String
    var challenge: String
    var origin: String
    var crossOrigin: Bool?

    init(_ bytes: Base64URLBytes) throws {
        self = try JSONDecoder().decode(ClientData.self, from: Data(bytes.bytes))
    }
}
