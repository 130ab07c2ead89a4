import OpenID
import Testing
import TestSupport

@Suite(.ownThreads) struct PKCETests {
    /// RFC 7636 Appendix B: the specification's own verifier and challenge.
    @Test func challengeMatchesTheRFCExample() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
    }

    @Test func freshVerifiersAreLongEnoughAndDiffer() {
        let first = PKCE(), second = PKCE()
        #expect(first.verifier.count == 43)
        #expect(first.verifier != second.verifier)
        #expect(first.verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }

    @Test func printingHidesTheVerifier() {
        let pkce = PKCE()
        #expect(!"\(pkce)".contains(pkce.verifier))
        #expect(!String(reflecting: pkce).contains(pkce.verifier))
        var dumped = ""
        dump(pkce, to: &dumped)
        #expect(!dumped.contains(pkce.verifier))
    }
}
