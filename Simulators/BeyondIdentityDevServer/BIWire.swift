/// The IdP's small parsers of outside text, apart so the fuzz target
/// (oauth-request) reaches them without an HTTP request.
package enum BIWire {
    /// The one path segment between `prefix` and `suffix` (`suffix` "" for
    /// the last one): non-empty, without `/`; nil when the path has another shape.
    package static func pathSegment(_ path: String, after prefix: String, before suffix: String) -> String? {
        guard path.utf8.count <= 4096, path.utf8.starts(with: prefix.utf8), path.utf8.reversed().starts(with: suffix.utf8.reversed()),
              path.utf8.count >= prefix.utf8.count + suffix.utf8.count else { return nil }
        let bytes = Array(path.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count))
        guard !bytes.isEmpty, !bytes.contains(UInt8(ascii: "/")), let segment = String(validating: bytes, as: UTF8.self) else { return nil }
        return segment
    }
}
