import BoundedJSON
import Base64
import FoundationEssentials
import WebAuthnJSON

/// The WebAuthn steps of IDX (okta-bi.md §3.3), as data: the creation or
/// request options a browser would build from the server's `activationData`
/// or `challengeData`, and the form values that carry the key's answer back.
/// The ceremony itself runs elsewhere (the agent, on a key through libfido2):
/// this target does not touch devices.
public enum IDXWebAuthn {
    /// The creation options of `enroll-authenticator` for a webauthn authenticator.
    /// `issuerHost` is the last resort for the RP ID.
    public static func creationOptions(_ response: IDXResponse, issuerHost: String) throws(IDXError) -> PublicKeyCredentialCreationOptionsJSON {
        guard let current = response.currentAuthenticator, current.isWebAuthn,
              let activation = current.contextualData?["activationData"], activation.isObject else {
            throw .webauthn("`currentAuthenticator.value.contextualData.activationData` is missing")
        }
        guard let challenge = activation["challenge"]?.string.flatMap(decode), challenge.count >= 16 else {
            throw .webauthn("`activationData.challenge` is not base64 of at least 16 bytes")
        }
        guard let user = activation["user"], let userId = user["id"]?.string, (1...256).contains(userId.utf8.count) else {
            throw .webauthn("`activationData.user.id` is missing")
        }
        // okta-auth-js base64url-decodes user.id (the sign-in widget is the
        // reference client); an id that is not base64url goes as its UTF-8.
        let userIdBytes = Base64URL.decode(userId, padding: .tolerated).flatMap { (1...64).contains($0.count) ? $0 : nil } ?? Array(userId.utf8)
        guard userIdBytes.count <= 64 else { throw .webauthn("`activationData.user.id` is longer than 64 bytes") }
        let name = user["name"]?.string ?? response.userIdentifier ?? userId
        let displayName = user["displayName"]?.string ?? name
        var parameters: [PublicKeyCredentialParameters] = []
        for entry in (activation["pubKeyCredParams"]?.array ?? []).prefix(16) {
            guard case .number(let value)? = entry["alg"], let alg = Int(exactly: value) else {
                throw .webauthn("`activationData.pubKeyCredParams[].alg` is not an integer")
            }
            parameters.append(PublicKeyCredentialParameters(type: entry["type"]?.string ?? "public-key", alg: alg))
        }
        let exclude = try descriptors(activation["excludeCredentials"], path: "activationData.excludeCredentials")
            + response.enrollments.filter(\.isWebAuthn).compactMap { enrollment in
                enrollment.credentialId.flatMap(decode).map { PublicKeyCredentialDescriptorJSON(id: Base64URLBytes($0)) }
            }
        let selection = activation["authenticatorSelection"]
        let criteria = AuthenticatorSelectionCriteria(
            authenticatorAttachment: selection?["authenticatorAttachment"]?.string.flatMap(AuthenticatorAttachment.init(rawValue:)),
            residentKey: selection?["residentKey"]?.string.flatMap(ResidentKeyRequirement.init(rawValue:)),
            requireResidentKey: selection?["requireResidentKey"]?.bool,
            userVerification: selection?["userVerification"]?.string.flatMap(UserVerificationRequirement.init(rawValue:)))
        var extensions = AuthenticationExtensionsClientInputsJSON()
        extensions.credProps = activation["extensions"]?["credProps"]?.bool
        return PublicKeyCredentialCreationOptionsJSON(
            rp: PublicKeyCredentialRpEntity(id: rpId(activation, issuerHost: issuerHost), name: activation["rp"]?["name"]?.string ?? issuerHost),
            user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(userIdBytes), name: name, displayName: displayName),
            challenge: Base64URLBytes(challenge), pubKeyCredParams: parameters,
            timeout: activation["timeout"].flatMap { if case .number(let ms) = $0 { return UInt32(exactly: ms) } else { return nil } },
            excludeCredentials: exclude, authenticatorSelection: selection == nil ? nil : criteria,
            attestation: activation["attestation"]?.string.flatMap(AttestationConveyancePreference.init(rawValue:)),
            extensions: extensions.credProps == nil ? nil : extensions)
    }

    /// The request options of `challenge-authenticator` for a webauthn
    /// authenticator: `challengeData`, and the credentials from the user's
    /// webauthn enrollments (they are not in `challengeData`).
    public static func requestOptions(_ response: IDXResponse, issuerHost: String) throws(IDXError) -> PublicKeyCredentialRequestOptionsJSON {
        guard let current = response.currentAuthenticator, current.isWebAuthn,
              let data = current.contextualData?["challengeData"], data.isObject else {
            throw .webauthn("`currentAuthenticator.value.contextualData.challengeData` is missing")
        }
        guard let challenge = data["challenge"]?.string.flatMap(decode), challenge.count >= 16 else {
            throw .webauthn("`challengeData.challenge` is not base64 of at least 16 bytes")
        }
        var allowed: [PublicKeyCredentialDescriptorJSON] = []
        for (index, enrollment) in response.enrollments.enumerated() where enrollment.isWebAuthn {
            guard let text = enrollment.credentialId else { continue }
            guard let id = decode(text), !id.isEmpty else {
                throw .webauthn("`authenticatorEnrollments.value[\(index)].credentialId` is not base64")
            }
            let transports = enrollment.transports.map(AuthenticatorTransport.init(rawValue:))
            allowed.append(PublicKeyCredentialDescriptorJSON(id: Base64URLBytes(id), transports: transports.isEmpty ? nil : transports))
        }
        return PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URLBytes(challenge), rpId: rpId(data, issuerHost: issuerHost), allowCredentials: allowed,
            userVerification: data["userVerification"]?.string.flatMap(UserVerificationRequirement.init(rawValue:)))
    }

    /// The RP ID as okta-mobile-swift derives it (okta-bi.md §3.3): `rp.id`,
    /// `rpId`, the host of `u2fParams.appid`, the host of `extensions.appid`,
    /// then the issuer's host.
    public static func rpId(_ data: JSONValue, issuerHost: String) -> String {
        if let id = data["rp"]?["id"]?.string, !id.isEmpty { return id }
        if let id = data["rpId"]?.string, !id.isEmpty { return id }
        for appid in [data["u2fParams"]?["appid"]?.string, data["extensions"]?["appid"]?.string] {
            if let appid, let host = URLComponents(string: appid)?.host, !host.isEmpty { return host }
        }
        return issuerHost
    }

    /// `enroll-authenticator`'s values: the attestation and clientData, base64url as the sign-in widget sends them.
    public static func enrollValues(attestationObject: [UInt8], clientDataJSON: [UInt8]) -> [String: String] {
        ["credentials.attestation": Base64URL.encode(attestationObject), "credentials.clientData": Base64URL.encode(clientDataJSON)]
    }

    /// `challenge-authenticator`'s values for a webauthn assertion.
    public static func challengeValues(authenticatorData: [UInt8], clientDataJSON: [UInt8], signature: [UInt8]) -> [String: String] {
        ["credentials.authenticatorData": Base64URL.encode(authenticatorData), "credentials.clientData": Base64URL.encode(clientDataJSON),
         "credentials.signatureData": Base64URL.encode(signature)]
    }

    /// Binary from the server: standard base64 (okta-mobile-swift) or base64url
    /// (okta-auth-js), padded or not; one alphabet per value (`Base64URL.decodeEitherAlphabet`).
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 8192 else { return nil }
        return Base64URL.decodeEitherAlphabet(text)
    }

    private static func descriptors(_ json: JSONValue?, path: String) throws(IDXError) -> [PublicKeyCredentialDescriptorJSON] {
        var list: [PublicKeyCredentialDescriptorJSON] = []
        for (index, entry) in (json?.array ?? []).prefix(64).enumerated() {
            guard let id = entry["id"]?.string.flatMap(decode), !id.isEmpty else {
                throw .webauthn("`\(path)[\(index)].id` is not base64")
            }
            list.append(PublicKeyCredentialDescriptorJSON(id: Base64URLBytes(id)))
        }
        return list
    }
}
