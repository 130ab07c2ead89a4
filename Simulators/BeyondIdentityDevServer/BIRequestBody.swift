import DevServerBase
import FoundationEssentials
import Hummingbird
import NIOCore

/// Reads the IdP's JSON bodies: `application/json`, at most 64 KiB, decoded
/// as the passwordless side decodes (WebAuthn member names in any case); a
/// failure names the member and why.
enum BIRequestBody {
    static let maxSize = 64 * 1024

    static func decode<Body: Decodable>(_ type: Body.Type, from request: Request) async throws(BIError) -> Body {
        let contentType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard contentType == "application/json" else { throw .invalidRequest("Send the body as application/json.") }
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: maxSize) } catch {
            throw .invalidRequest("The body is larger than \(maxSize) bytes.")
        }
        let bytes = Data(buffer.readableBytesView)
        do {
            return try RequestJSON.decoder().decode(Body.self, from: bytes)
        } catch let error as DecodingError {
            throw .invalidRequest(RequestJSON.describe(error))
        } catch {
            throw .invalidRequest("The body is not valid JSON.")
        }
    }
}

extension String {
    /// A path segment or identifier from outside: 1–`limit` characters from
    /// `[A-Za-z0-9-_]`, nothing else.
    func isIdentifier(upTo limit: Int = 128) -> Bool {
        (1...limit).contains(utf8.count) && utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
