import BoundedJSON
import Tokens

/// One form of an IDX answer (`remediation.value[]`, `cancel`,
/// `successWithInteractionCode`): where to send it and what it holds.
public struct IDXRemediation: Sendable, Equatable {
    public var name: String
    public var href: String
    public var method: String
    public var accepts: String?
    public var fields: [IDXField]
    /// e.g. `["$.currentAuthenticator"]`.
    public var relatesTo: [String]
    /// `redirect-idp`: the identity provider it goes to.
    public var idpName: String?
    public var idpId: String?

    static let maximumCount = 32

    init(_ json: JSONValue, path: String, url: String) throws(IDXError) {
        guard json.isObject else { throw .malformed(url: url, reason: "`\(path)` is not an object") }
        guard let name = json["name"]?.string, (1...128).contains(name.utf8.count), TokenError.sanitised(name) == name else {
            throw .malformed(url: url, reason: "`\(path).name` is missing or not a name")
        }
        self.name = name
        guard let href = json["href"]?.string, (1...4096).contains(href.utf8.count) else {
            throw .malformed(url: url, reason: "`\(path).href` is missing")
        }
        self.href = href
        method = try IDXField.text(json["method"], "\(path).method", url: url)?.uppercased() ?? "POST"
        accepts = try IDXField.text(json["accepts"], "\(path).accepts", url: url)
        fields = try IDXField.form(json["value"], path: "\(path).value", url: url, depth: 0)
        switch json["relatesTo"] {
        case nil, .null?: relatesTo = []
        case .string(let one)?: relatesTo = [one]
        case .array(let many)?:
            relatesTo = many.prefix(8).compactMap(\.string)
        default:
            throw .malformed(url: url, reason: "`\(path).relatesTo` is not a list")
        }
        idpName = try IDXField.text(json["idp"]?["name"], "\(path).idp.name", url: url)
        idpId = try IDXField.text(json["idp"]?["id"], "\(path).idp.id", url: url)
    }

    /// The field named by a dotted path (`credentials.passcode`).
    public func field(_ path: String) -> IDXField? {
        var fields = self.fields
        var found: IDXField?
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let next = fields.first(where: { $0.name == part }) else { return nil }
            found = next
            fields = next.form ?? []
        }
        return found
    }
}
