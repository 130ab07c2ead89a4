import Foundation
import Testing
import TestSupport
import WebAuthn

/// `webauthn create` honours the RP's attestation preference (WebAuthn
/// §5.1.3): with "none" (or none given) the client sends fmt `none`, an empty
/// statement and a zero AAGUID — no batch certificate, no model — and the
/// response's authenticatorData is the same bytes; with "direct" the key's
/// own packed attestation and AAGUID go through.
@Suite(.ownThreads) struct NoneAttestationTests {
    static func create(_ harness: AgentHarness, attestation: String?) throws -> (AttestationObject, [String: Any]) {
        var options = WebAuthnFixtures.creationOptions()
        options = options.replacingOccurrences(of: #","attestation":"none""#, with: attestation.map { #","attestation":"\#($0)""# } ?? "")
        let created = try harness.passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                          standardInput: options)
        #expect(created.status == 0, "\(created.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(created.standardOutput.utf8)) as? [String: Any])
        let response = try #require(json["response"] as? [String: Any])
        let object = try AttestationObject(bytes: try #require(Self.base64URL(response["attestationObject"] as? String)))
        return (object, response)
    }

    static func base64URL(_ text: String?) -> [UInt8]? {
        guard var text = text?.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") else { return nil }
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text).map { Array($0) }
    }

    @Test func noneAndAbsentGiveFormatNoneAndAZeroAAGUID() throws {
        let harness = try AgentHarness()
        for preference in ["none", nil] as [String?] {
            let (object, response) = try Self.create(harness, attestation: preference)
            #expect(object.format == "none", "\(preference ?? "absent")")
            #expect(object.statement == .map([:]))
            #expect(object.authenticatorData.attestedCredentialData?.aaguid == [UInt8](repeating: 0, count: 16))
            #expect(Self.base64URL(response["authenticatorData"] as? String) == object.rawAuthenticatorData,
                    "authenticatorData is the anonymised bytes too")
        }
    }

    @Test func directKeepsTheKeysAttestation() throws {
        let harness = try AgentHarness()
        let (object, _) = try Self.create(harness, attestation: "direct")
        #expect(object.format == "packed")
        let aaguid = object.authenticatorData.attestedCredentialData?.aaguid ?? []
        #expect(aaguid.map { String(format: "%02x", $0) }.joined() == "6f4d2a1e9c3b4e578a602b7d1c5e9f03")
    }
}
