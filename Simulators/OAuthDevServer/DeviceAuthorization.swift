import DevServerBase
import FoundationEssentials
import Hummingbird
import URLPolicy

/// POST {issuer}/v1/device/authorize (RFC 8628 §3.1, §3.2).
extension OAuthServer {
    struct DeviceAuthorizationResponse: Encodable {
        let device_code: String
        let user_code: String
        let verification_uri: String
        let verification_uri_complete: String
        let expires_in: Int
        let interval: Int
    }

    var verificationURI: String { origin + "/activate" }

    func deviceAuthorization(_ request: Request) async -> Response {
        do {
            let fields = try await request.formFields()
            let client = try authenticateClient(request, fields)
            // RFC 8628 makes scope optional; without one the device gets an ID token.
            guard let scopes = Self.parseScopes(fields["scope"] ?? "openid") else {
                throw OAuthError.invalidScope("Supported scopes: \(Self.supportedScopes.joined(separator: " ")).")
            }
            let lifetime = configuration.deviceCodeLifetime.timeInterval
            let record = DeviceRecord(clientId: client.clientId, scopes: scopes, userCode: "",
                                      expiresAt: now.addingTimeInterval(lifetime), interval: configuration.deviceInterval)
            let issued: (deviceCode: String, userCode: String)
            do { issued = try await store.issueDeviceCode(record, now: now) } catch { throw OAuthError.busy }
            let shown = UserCode.display(issued.userCode)
            return OAuthResponse.json(DeviceAuthorizationResponse(
                device_code: issued.deviceCode, user_code: shown, verification_uri: verificationURI,
                verification_uri_complete: verificationURI + "?user_code=" + PercentEncoding.encode(shown),
                expires_in: Int(lifetime.rounded()), interval: configuration.deviceInterval))
        } catch let error as OAuthError {
            return OAuthResponse.error(error)
        } catch {
            return OAuthResponse.error(.serverError)
        }
    }
}
