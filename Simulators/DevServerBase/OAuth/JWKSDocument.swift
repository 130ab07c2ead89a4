/// `{"keys":[…]}` with `kid`, `alg` and `use: sig` on each key.
package struct JWKSDocument: Encodable, Sendable {
    package struct Key: Encodable, Sendable {
        let kty: String
        let kid: String
        let alg: String
        var use = "sig"
        let crv: String?
        let x: String?
        let y: String?
        let n: String?
        let e: String?

        package init(kty: String, kid: String, alg: String, crv: String?, x: String?, y: String?, n: String?, e: String?) {
            self.kty = kty; self.kid = kid; self.alg = alg; self.crv = crv; self.x = x; self.y = y; self.n = n; self.e = e
        }
    }

    let keys: [Key]

    package init(keys: [Key]) { self.keys = keys }
}
