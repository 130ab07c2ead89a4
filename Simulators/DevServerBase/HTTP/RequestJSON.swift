import DecodingErrors
import FoundationEssentials
import Hummingbird
import NIOCore
import WebAuthn

/// Reads request bodies the way the hosted API (ASP.NET) does: member names
/// case-insensitively, so `RPID`/`rpId`, `Origin`/`origin` and
/// `clientDataJson`/`clientDataJSON` all bind.
///
/// JSONDecoder matches names exactly, so a key strategy first rewrites each
/// name to the spelling the Swift types use, looked up by its lowercase form.
/// Names not in the table pass through unchanged (and are then ignored).
package enum RequestJSON {
    /// Larger bodies are refused before parsing.
    package static let maxBodySize = 256 * 1024

    /// Every member name a request body or a WebAuthn response JSON may carry.
    static let canonicalNames: [String: String] = {
        let names = [
            // Request envelopes.
            "token", "rpId", "origin", "session", "response", "nickname", "alias", "userId", "purpose",
            "username", "displayName", "attestation", "authenticatorType", "discoverable", "userVerification",
            "aliases", "aliasHashing", "hints", "expiresAt", "timeToLive", "hashing", "credentialId",
            // RegistrationResponseJSON / AuthenticationResponseJSON.
            "id", "rawId", "type", "clientDataJSON", "authenticatorData", "transports", "publicKey",
            "publicKeyAlgorithm", "attestationObject", "signature", "userHandle", "authenticatorAttachment",
            "clientExtensionResults", "extensions",
            // Client extension outputs.
            "appid", "credProps", "rk", "hmacCreateSecret", "hmacGetSecret", "output1", "output2",
            "prf", "enabled", "results", "first", "second",
        ]
        return Dictionary(names.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
    }()

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
    }

    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            guard let last = path.last else { return Key(stringValue: "") }
            if last.intValue != nil { return last }
            return Key(stringValue: canonicalNames[last.stringValue.lowercased()] ?? last.stringValue)
        }
        return decoder
    }

    /// Collects and decodes a body; a decoding failure names the member and why.
    package static func decode<Body: Decodable>(_ type: Body.Type, from request: Request) async throws(APIProblem) -> Body {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: maxBodySize) } catch is NIOTooManyBytesError {
            throw .bodyTooLarge(limit: maxBodySize)
        } catch {
            throw .invalidArgument("The request body could not be read.")
        }
        let bytes = Data(buffer.readableBytesView)
        guard !bytes.isEmpty else { throw .invalidArgument("The request body must be a JSON object.") }
        do {
            return try decoder().decode(Body.self, from: bytes)
        } catch let error as DecodingError {
            throw .invalidArgument(describe(error))
        } catch {
            throw .invalidArgument("The request body is not valid JSON.")
        }
    }

    /// One line naming the member path and what is wrong with it, in the
    /// hosted API's words.
    package static func describe(_ error: DecodingError) -> String {
        guard let problem = DecodingProblem(error) else { return "The request body could not be read." }
        let at = problem.path
        switch problem.kind {
        case .missing(let member):
            return "The request body lacks \(at.isEmpty ? "" : at + ".")\(member)."
        case .wrongType(let expected):
            if at.isEmpty { return "The request body must be a JSON object." }
            return "\(at) has the wrong type (expected \(name(of: expected)))."
        case .null(let expected):
            return "\(at) is null (expected \(name(of: expected)))."
        case .invalid(let reason):
            if at.isEmpty { return "The request body is not valid JSON." }
            return "\(at) is invalid: \(reason)."
        }
    }

    private static func name(of kind: JSONKind) -> String {
        switch kind {
        case .string: return "a string"
        case .boolean: return "a boolean"
        case .number: return "a number"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension KeyedDecodingContainer {
    /// A text member as the hosted API reads it: numbers are accepted where
    /// strings are expected (`"userId": 42` binds as "42").
    package func decodeLenientString(forKey key: Key) throws -> String? {
        if let text = try? decodeIfPresent(String.self, forKey: key) { return text }
        if let number = try? decodeIfPresent(Int64.self, forKey: key) { return String(number) }
        if let number = try? decodeIfPresent(Double.self, forKey: key) { return String(number) }
        return try decodeIfPresent(String.self, forKey: key)
    }
}
