import FoundationEssentials
import HTTPTypes
import Hummingbird

/// Writes answers: camelCase JSON (the Swift property names), dates in ISO
/// 8601 with milliseconds as ASP.NET writes them, problem details for errors.
package enum JSONResponse {
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(date))
        }
        return encoder
    }

    package static func ok(_ value: some Encodable) -> Response {
        json(value, status: .ok, contentType: "application/json")
    }

    package static let noContent = Response(status: .noContent)

    /// 200 with an empty body, as the hosted `/users/delete` answers.
    package static let emptyOK = Response(status: .ok, headers: [.contentLength: "0"])

    package static func problem(_ problem: APIProblem) -> Response {
        var response = json(ProblemBody(problem), status: problem.status, contentType: "application/problem+json")
        if let challenge = problem.wwwAuthenticate {
            response.headers[.wwwAuthenticate] = challenge
        }
        return response
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status, contentType: String) -> Response {
        // Encoding our own Codable values cannot fail; if it ever did, a 500
        // without a body is the honest answer.
        guard let data = try? encoder().encode(value) else { return Response(status: .internalServerError) }
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The problem-details body; `errorCode` and the extras appear only when set.
    struct ProblemBody: Encodable {
        let type: String
        let title: String
        let status: Int
        let errorCode: String?
        let detail: String?
        let credentialId: String?

        init(_ problem: APIProblem) {
            type = problem.type
            title = problem.title
            status = problem.status.code
            errorCode = problem.errorCode
            detail = problem.detail
            credentialId = problem.credentialId
        }
    }
}

/// Dates on the wire: `2025-01-31T12:34:56.789Z`.
package enum Timestamp {
    package static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Parses ISO 8601 with or without fractional seconds. A time without a
    /// zone is UTC, as the hosted API documents `expiresAt`.
    package static func parse(_ text: String) -> Date? {
        for candidate in [text, text + "Z"] {
            if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(candidate) { return date }
            if let date = try? Date.ISO8601FormatStyle().parse(candidate) { return date }
        }
        return nil
    }
}

extension KeyedEncodingContainer {
    /// Writes the value, or an explicit `null` as ASP.NET does for absent members.
    package mutating func encodeOrNull<Value: Encodable>(_ value: Value?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
