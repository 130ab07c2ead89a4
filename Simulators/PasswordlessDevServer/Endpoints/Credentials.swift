import Base64
import DevServerBase
import FoundationEssentials
import Hexadecimal
import Hummingbird
import WebAuthn

/// GET|POST /credentials/list and POST /credentials/delete (secret).
extension DevServerAPI {
    struct UserIdRequest: Decodable {
        var userId: String?

        private enum CodingKeys: String, CodingKey { case userId }

        init(from decoder: any Decoder) throws {
            userId = try decoder.container(keyedBy: CodingKeys.self).decodeLenientString(forKey: .userId)
        }
    }

    struct DeleteCredentialRequest: Decodable {
        var credentialId: String?
    }

    /// The hosted StoredCredential: the descriptor's id is base64url, the
    /// other byte fields standard base64 (how ASP.NET writes byte arrays).
    struct CredentialView: Encodable {
        let credential: RegisteredCredential

        private enum CodingKeys: String, CodingKey {
            case descriptor, publicKey, userHandle, signatureCounter, attestationFmt, createdAt, lastUsedAt
            case aaGuid, rpid, origin, country, device, nickname, userId, backupState, isBackupEligible, isDiscoverable
        }

        private enum DescriptorKeys: String, CodingKey { case type, id, transports }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            var descriptor = c.nestedContainer(keyedBy: DescriptorKeys.self, forKey: .descriptor)
            try descriptor.encode("public-key", forKey: .type)
            try descriptor.encode(credential.credentialId, forKey: .id)
            try descriptor.encode(credential.transports, forKey: .transports)
            try c.encode(Data(credential.publicKey.bytes).base64EncodedString(), forKey: .publicKey)
            try c.encode(Data(credential.userId.utf8).base64EncodedString(), forKey: .userHandle)
            try c.encode(credential.signCount, forKey: .signatureCounter)
            try c.encode(credential.attestationFormat, forKey: .attestationFmt)
            try c.encode(credential.createdAt, forKey: .createdAt)
            try c.encode(credential.lastUsedAt, forKey: .lastUsedAt)
            try c.encode(Self.guid(credential.aaguid.bytes), forKey: .aaGuid)
            try c.encode(credential.rpId, forKey: .rpid)
            try c.encode(credential.origin, forKey: .origin)
            try c.encodeOrNull(credential.country, forKey: .country)
            try c.encodeOrNull(credential.device, forKey: .device)
            try c.encodeOrNull(credential.nickname, forKey: .nickname)
            try c.encode(credential.userId, forKey: .userId)
            try c.encode(credential.backupState, forKey: .backupState)
            try c.encode(credential.backupEligible, forKey: .isBackupEligible)
            try c.encodeOrNull(credential.isDiscoverable, forKey: .isDiscoverable)
        }

        /// An AAGUID in GUID form, as .NET writes a Guid.
        static func guid(_ bytes: [UInt8]) -> String {
            let hex = Array(Hexadecimal.encode(bytes))
            guard hex.count == 32 else { return String(hex) }
            return [hex[0..<8], hex[8..<12], hex[12..<16], hex[16..<20], hex[20..<32]].map { String($0) }.joined(separator: "-")
        }
    }

    func listCredentials(_ request: Request) async throws(APIProblem) -> Response {
        let userId: String?
        if request.method == .post {
            userId = try await RequestJSON.decode(UserIdRequest.self, from: request).userId
        } else {
            userId = request.uri.queryParameters["userId"].map(String.init)
        }
        let credentials = await store.credentials(ofUser: try Validation.userId(userId))
        return JSONResponse.ok(ValuesEnvelope(values: credentials.map(CredentialView.init)))
    }

    func deleteCredential(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(DeleteCredentialRequest.self, from: request)
        guard let text = body.credentialId, !text.isEmpty else { throw .invalidArgument("credentialId is required.") }
        guard let id = Base64URL.decode(text, padding: .tolerated) else { throw .invalidArgument("credentialId is not base64url.") }
        try await store.deleteCredential(id: id)
        return JSONResponse.noContent
    }
}
