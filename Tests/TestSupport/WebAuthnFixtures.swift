import Foundation

/// Options documents as relying-party libraries emit them.
public enum WebAuthnFixtures {
    public static func randomBase64URL(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// PublicKeyCredentialCreationOptionsJSON: rp example.org, a 64-byte
    /// challenge, residentKey required, algorithms -8/-7/-257.
    public static func creationOptions(rpId: String = "example.org", userName: String = "alice",
                                       userId: String? = nil, residentKey: String = "required",
                                       userVerification: String = "preferred",
                                       exclude: [String] = []) -> String {
        let excludeJSON = exclude.map { "{\"type\":\"public-key\",\"id\":\"\($0)\"}" }.joined(separator: ",")
        return """
        {"rp":{"id":"\(rpId)","name":"Example"},\
        "user":{"id":"\(userId ?? randomBase64URL(16))","name":"\(userName)","displayName":"\(userName.capitalized)"},\
        "challenge":"\(randomBase64URL(64))",\
        "pubKeyCredParams":[{"type":"public-key","alg":-8},{"type":"public-key","alg":-7},{"type":"public-key","alg":-257}],\
        "timeout":60000,"excludeCredentials":[\(excludeJSON)],\
        "authenticatorSelection":{"residentKey":"\(residentKey)","requireResidentKey":\(residentKey == "required"),"userVerification":"\(userVerification)"},\
        "attestation":"none","extensions":{"credProps":true}}
        """
    }

    /// PublicKeyCredentialRequestOptionsJSON; empty `allow` asks for discoverable credentials.
    public static func requestOptions(rpId: String = "example.org", allow: [String] = [],
                                      userVerification: String = "preferred") -> String {
        let allowJSON = allow.map { "{\"type\":\"public-key\",\"id\":\"\($0)\"}" }.joined(separator: ",")
        return """
        {"challenge":"\(randomBase64URL(32))","timeout":60000,"rpId":"\(rpId)",\
        "allowCredentials":[\(allowJSON)],"userVerification":"\(userVerification)"}
        """
    }
}
