import Base64
import Crypto
import FoundationEssentials
import Hexadecimal
import WebAuthn

/// The app's keys in the hosted formats — public `<app>:public:<32 hex>`,
/// secret `<app>:secret:<32 hex>` — and the material its tokens are MACed
/// with. Generated per start, or kept in the data directory.
package struct AppKeys: Sendable, Codable, Equatable {
    package var appId: String
    package var apiKey: String
    package var apiSecret: String
    /// 32 random bytes, base64url; token MAC keys are derived from it with HKDF.
    package var tokenKeyMaterial: String

    package static func generate(appId: String) -> AppKeys {
        AppKeys(appId: appId,
                apiKey: "\(appId):public:\(Hexadecimal.encode(randomBytes(16)))",
                apiSecret: "\(appId):secret:\(Hexadecimal.encode(randomBytes(16)))",
                tokenKeyMaterial: Base64URL.encode(randomBytes(32)))
    }

    /// An app id is the tenant name: lowercase letters, digits and hyphens, no `:`.
    package static func isValidAppId(_ appId: String) -> Bool {
        !appId.isEmpty && appId.utf8.count <= 62 && appId.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: "-")
        }
    }

    /// True when `key` has the hosted shape for `kind` (`public` or `secret`).
    static func hasShape(_ key: String, kind: String) -> Bool {
        let parts = key.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, isValidAppId(String(parts[0])), parts[1] == kind, parts[2].utf8.count == 32 else {
            return false
        }
        return parts[2].utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }

    /// Random bytes from the system CSPRNG, by way of swift-crypto.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }
}
