import Foundation

/// Options documents as relying-party libraries emit them.
public enum WebAuthnFixtures {
    /// `count` random bytes, for ids and challenges.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    public static func randomBase64URL(_ count: Int) -> String {
        Data(randomBytes(count)).base64EncodedString().replacingOccurrences(of: "+", with: "-")
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
