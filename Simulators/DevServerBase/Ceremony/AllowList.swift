/// The app's allow-list of RP IDs and origins: stricter than the hosted
/// service, which takes whatever origin a client posts. A request naming an
/// RP ID or origin that is not listed is refused before any ceremony work.
package struct AllowList: Sendable {
    package let rpIds: [String]
    package let origins: [String]

    /// Validates the configured lists; every entry must be in canonical form,
    /// because matching is exact (as browsers serialise origins exactly).
    package init(rpIds: [String], origins: [String]) throws(DevServerError) {
        guard !rpIds.isEmpty else { throw .invalidConfiguration("RP IDs", reason: "at least one is needed") }
        for rpId in rpIds {
            guard Self.isValidRpId(rpId) else {
                throw .invalidConfiguration("RP ID \"\(rpId)\"",
                                            reason: "use a lowercase domain such as localhost or example.com, without scheme or port")
            }
        }
        for origin in origins {
            if let reason = Self.problem(withOrigin: origin) {
                throw .invalidConfiguration("origin \"\(origin)\"", reason: reason)
            }
        }
        self.rpIds = rpIds
        self.origins = origins
    }

    /// The `Origin` a request names: required, and on the list.
    package func checkOrigin(_ origin: String?) throws(APIProblem) -> String {
        guard let origin, !origin.isEmpty else { throw .originRequired }
        guard origins.contains(origin) else { throw .originNotAllowed(origin, allowed: origins) }
        return origin
    }

    /// The `RPID` a request names: required, and on the list.
    package func checkRpId(_ rpId: String?) throws(APIProblem) -> String {
        guard let rpId, !rpId.isEmpty else { throw .invalidArgument("RPID is required.") }
        guard rpIds.contains(rpId) else { throw .rpIdNotAllowed(rpId, allowed: rpIds) }
        return rpId
    }

    /// A domain of lowercase labels (letters, digits, hyphens), as a WebAuthn RP ID must be.
    package static func isValidRpId(_ rpId: String) -> Bool {
        guard !rpId.isEmpty, rpId.utf8.count <= 253 else { return false }
        let labels = rpId.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") }
        }
    }

    /// Why an origin is not in the serialised form a client would send, or nil if it is.
    package static func problem(withOrigin origin: String) -> String? {
        if origin.hasPrefix("android:apk-key-hash:") {
            let hash = origin.dropFirst("android:apk-key-hash:".count)
            return hash.isEmpty ? "the APK key hash is missing" : nil
        }
        let scheme: String
        if origin.hasPrefix("https://") { scheme = "https" } else if origin.hasPrefix("http://") { scheme = "http" } else {
            return "use https://host[:port], http://host[:port] or android:apk-key-hash:<hash>"
        }
        let authority = origin.dropFirst(scheme.count + 3)
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("?"), !authority.contains("#") else {
            return "an origin has no path, query or trailing slash"
        }
        guard authority == authority.lowercased() else { return "write the host in lowercase, as browsers do" }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return "expected host[:port]" }
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65535).contains(port), String(port) == parts[1] else {
                return "the port must be a number from 1 to 65535"
            }
            if (scheme == "https" && port == 443) || (scheme == "http" && port == 80) {
                return "leave out the default port, as browsers do"
            }
        }
        return nil
    }
}
