import BoundedJSON
import Reports
import Tokens

/// One field of an IDX form, as the server describes it (okta-bi.md §3.2):
/// what to ask, whether it is secret or fixed, its choices, its nested form.
public struct IDXField: Sendable, Equatable {
    public var name: String
    public var label: String?
    public var type: String?
    public var required: Bool
    public var visible: Bool
    /// false: the value is fixed by the server and sent back as it is.
    public var mutable: Bool
    public var secret: Bool
    public var value: JSONValue?
    /// A nested form (`form.value`): the field's value is an object of these.
    public var form: [IDXField]?
    public var options: [IDXOption]
    public var messages: [IDXMessage]

    static let maximumFields = 64
    static let maximumOptions = 64
    static let maximumNesting = 4

    /// Reads a form's `value` array.
    static func form(_ json: JSONValue?, path: String, url: String, depth: Int) throws(IDXError) -> [IDXField] {
        guard depth <= maximumNesting else { throw .malformed(url: url, reason: "`\(path)` nests forms more than \(maximumNesting) deep") }
        guard let json else { return [] }
        guard let values = json.array else { throw .malformed(url: url, reason: "`\(path)` is not a list of fields") }
        guard values.count <= maximumFields else { throw .malformed(url: url, reason: "`\(path)` has more than \(maximumFields) fields") }
        var fields: [IDXField] = []
        for (index, value) in values.enumerated() {
            fields.append(try IDXField(value, path: "\(path)[\(index)]", url: url, depth: depth))
        }
        return fields
    }

    init(_ json: JSONValue, path: String, url: String, depth: Int) throws(IDXError) {
        guard json.isObject else { throw .malformed(url: url, reason: "`\(path)` is not an object") }
        guard let name = json["name"]?.string, Self.isName(name) else {
            throw .malformed(url: url, reason: "`\(path).name` is missing or not a field name")
        }
        self.name = name
        label = try Self.text(json["label"], "\(path).label", url: url)
        type = try Self.text(json["type"], "\(path).type", url: url).map { String($0.prefix(32)) }
        required = try Self.flag(json["required"], "\(path).required", url: url) ?? false
        visible = try Self.flag(json["visible"], "\(path).visible", url: url) ?? true
        mutable = try Self.flag(json["mutable"], "\(path).mutable", url: url) ?? true
        secret = try Self.flag(json["secret"], "\(path).secret", url: url) ?? false
        value = json["value"]
        if let nested = json["form"], nested != .null {
            form = try Self.form(nested["value"], path: "\(path).form.value", url: url, depth: depth + 1)
        } else {
            form = nil
        }
        var options: [IDXOption] = []
        if let list = json["options"], list != .null {
            guard let values = list.array else { throw .malformed(url: url, reason: "`\(path).options` is not a list") }
            guard values.count <= Self.maximumOptions else {
                throw .malformed(url: url, reason: "`\(path).options` has more than \(Self.maximumOptions) choices")
            }
            for (index, value) in values.enumerated() {
                options.append(try IDXOption(value, path: "\(path).options[\(index)]", url: url, depth: depth))
            }
        }
        self.options = options
        messages = try IDXMessage.list(json["messages"], path: "\(path).messages", url: url)
    }

    /// A field name: 1 to 128 letters, digits, `_`, `-` or `$` (a dot would
    /// break the dotted paths values are given by).
    static func isName(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "$"):
                return true
            default:
                return false
            }
        }
    }

    static func text(_ json: JSONValue?, _ path: String, url: String) throws(IDXError) -> String? {
        guard let json, json != .null else { return nil }
        guard let text = json.string else { throw .malformed(url: url, reason: "`\(path)` should be a string") }
        return TokenError.sanitised(text)
    }

    static func flag(_ json: JSONValue?, _ path: String, url: String) throws(IDXError) -> Bool? {
        guard let json, json != .null else { return nil }
        guard let flag = json.bool else { throw .malformed(url: url, reason: "`\(path)` should be true or false") }
        return flag
    }
}

/// One choice of a field (`options[]`): a constant value, or a form whose
/// fixed values (and any open ones) make the field's object — an authenticator
/// choice is `{id, methodType}`.
public struct IDXOption: Sendable, Equatable {
    public var label: String
    /// A constant value (`"email"`), when the option has no form.
    public var value: JSONValue?
    public var form: [IDXField]?
    /// Where the option points, e.g. `$.authenticators.value[1]`.
    public var relatesTo: String?

    init(_ json: JSONValue, path: String, url: String, depth: Int) throws(IDXError) {
        guard json.isObject else { throw .malformed(url: url, reason: "`\(path)` is not an object") }
        label = try IDXField.text(json["label"], "\(path).label", url: url) ?? ""
        relatesTo = try IDXField.text(json["relatesTo"], "\(path).relatesTo", url: url)
        if let nested = json["value"]?["form"] {
            form = try IDXField.form(nested["value"], path: "\(path).value.form.value", url: url, depth: depth + 1)
            value = nil
        } else {
            form = nil
            value = json["value"]
        }
    }

    /// A fixed member of the option's form (`id`, `methodType`).
    public func fixed(_ name: String) -> String? {
        form?.first { $0.name == name }?.value?.text
    }
}
