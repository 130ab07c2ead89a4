import BoundedJSON
import Reports
import Tokens

/// Reading the messages of an IDX answer (okta-bi.md §3.4): at the top level
/// or on a field, `{message, i18n{key}, class}` in a `{type:"array", value:[…]}`.
extension IDXMessage {
    /// At most this many messages are kept per list.
    static let maximumCount = 32

    /// Reads an ION messages member; `path` names it in errors.
    static func list(_ json: JSONValue?, path: String, url: String) throws(IDXError) -> [IDXMessage] {
        guard let json, json != .null else { return [] }
        guard let values = json["value"]?.array ?? json.array else {
            throw .malformed(url: url, reason: "`\(path)` is not a messages list")
        }
        var messages: [IDXMessage] = []
        for (index, value) in values.prefix(maximumCount).enumerated() {
            guard let text = value["message"]?.string, let line = TokenError.sanitised(text) else {
                throw .malformed(url: url, reason: "`\(path).value[\(index)].message` is missing")
            }
            messages.append(IDXMessage(text: line, key: TokenError.sanitised(value["i18n"]?["key"]?.string).map { String($0.prefix(128)) },
                                       severity: TokenError.sanitised(value["class"]?.string).map { String($0.prefix(16)) }))
        }
        return messages
    }
}
