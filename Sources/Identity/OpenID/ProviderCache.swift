import Crypto
import FoundationEssentials
import Hexadecimal
import SecureFiles
import Tokens

/// One provider's discovery document and key set, each with the instant it
/// goes stale, as kept in memory and in `<cache directory>/<sha256(issuer)
/// hex>.json` (0600, in a directory made 0700; written atomically through
/// SecureFiles). Nothing here is secret, but a key set decides which ID tokens
/// are believed: the file is read only when it is ours and nobody else may
/// change it, and what it holds is checked again as if it came from the network.
struct ProviderCache: Codable, Sendable, Equatable {
    var issuer: String
    var metadata: ProviderMetadata?
    var metadataExpiresAt: Int64 = 0
    /// The JWKS document as the provider sent it.
    var jwks: String?
    var jwksExpiresAt: Int64 = 0

    /// How long an answer is kept: its `Cache-Control: max-age`, else an hour;
    /// never more than a day, never less than a minute (one login reads the
    /// metadata several times; a provider saying `max-age=0` still gets no
    /// more than one request a minute from us, except a key set refetched for
    /// an unknown `kid`).
    static let defaultLifetime: Int64 = 3600
    static let longestLifetime: Int64 = 86_400
    static let shortestLifetime: Int64 = 60
    static let fileLimit = 1 << 20

    static func lifetime(cacheControl: String?) -> Int64 {
        var seconds = defaultLifetime
        for directive in (cacheControl ?? "").lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.filter { $0 != " " && $0 != "\t" && $0 != "\"" } }
            if parts.first == "no-store" || parts.first == "no-cache" { seconds = 0 }
            if parts.count == 2, parts[0] == "max-age", let maxAge = OutsideSeconds.whole(String(parts[1])) { seconds = maxAge }
        }
        return min(max(seconds, shortestLifetime), longestLifetime)
    }

    /// Whether a Cache-Control header forbids keeping the answer on disk.
    static func mayStore(cacheControl: String?) -> Bool {
        !(cacheControl ?? "").lowercased().contains("no-store")
    }

    static func path(directory: String, issuer: String) -> String {
        directory + "/" + Hexadecimal.encode(SHA256.hash(data: Array(issuer.utf8))) + ".json"
    }

    /// The file's content when it is ours, for `issuer`, and decodes; nil
    /// otherwise (a cache that cannot be used is refetched, not an error).
    /// Expiry instants beyond `now` + a day are a damaged or planted file: stale.
    static func load(directory: String, issuer: String, now: Int64) -> ProviderCache? {
        guard let bytes = try? SecureFile.read(path(directory: directory, issuer: issuer), limit: fileLimit),
              var cache = try? JSONDecoder().decode(ProviderCache.self, from: Data(bytes)), cache.issuer == issuer else { return nil }
        let latest = OutsideSeconds.instant(longestLifetime, after: now)
        if cache.metadataExpiresAt > latest { cache.metadataExpiresAt = 0 }
        if cache.jwksExpiresAt > latest { cache.jwksExpiresAt = 0 }
        if let metadata = cache.metadata, (try? metadata.check(issuer: issuer, url: "the cache")) == nil { cache.metadata = nil }
        return cache
    }

    /// Writes the file; a cache that cannot be written only costs a fetch next time.
    func store(directory: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(self) else { return }
        try? SecureFile.write(Array(bytes), to: Self.path(directory: directory, issuer: issuer))
    }
}
