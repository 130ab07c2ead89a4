import Base64
import Testing
import TestSupport

/// The one base64url: RFC 4648's vectors (§10, in the URL alphabet,
/// unpadded), and the two padding rules callers choose between.
@Suite(.ownThreads) struct Base64URLTests {
    static let vectors: [(String, String)] = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
                                              ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")]

    @Test("RFC 4648 §10's vectors encode unpadded and decode back under either rule")
    func knownAnswers() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded, padding: .refused) == Array(plain.utf8))
            #expect(Base64URL.decode(encoded, padding: .tolerated) == Array(plain.utf8))
        }
        // The URL alphabet: 0xfb 0xff is "-_8", where standard base64 has "+/8".
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8", padding: .refused) == [0xfb, 0xff])
    }

    @Test("padding: refused where the protocol forbids it (JOSE), up to two = tolerated where it does not (WebAuthn JSON)")
    func paddingRules() {
        #expect(Base64URL.decode("Zg==", padding: .refused) == nil)
        #expect(Base64URL.decode("Zg==", padding: .tolerated) == Array("f".utf8))
        #expect(Base64URL.decode("Zm8=", padding: .tolerated) == Array("fo".utf8))
        #expect(Base64URL.decode("Zg===", padding: .tolerated) == nil, "no encoder writes three")
        #expect(Base64URL.decode("Z=g", padding: .tolerated) == nil, "= only at the end")
    }

    @Test("the standard alphabet, stray characters, impossible lengths and text over the limit are not base64url")
    func refusals() {
        for text in ["+/8", "Zm9v YmFy", "Zm9vY", "Zm9v\n", "é"] {
            #expect(Base64URL.decode(text, padding: .tolerated) == nil, "\(text)")
            #expect(Base64URL.decode(text, padding: .refused) == nil, "\(text)")
        }
        #expect(Base64URL.decode("Zm9vYmFy", padding: .refused, limit: 7) == nil)
        #expect(Base64URL.decode("Zm9vYmFy", padding: .refused, limit: 8) == Array("foobar".utf8))
    }

    @Test("either alphabet (IDX servers send both), one per value")
    func eitherAlphabet() {
        #expect(Base64URL.decodeEitherAlphabet("-_8") == [0xfb, 0xff])
        #expect(Base64URL.decodeEitherAlphabet("+/8=") == [0xfb, 0xff])
        #expect(Base64URL.decodeEitherAlphabet("+_8") == nil)
        #expect(Base64URL.decodeEitherAlphabet("-_8===") == nil, "at most two =, as decode(_:padding: .tolerated) takes")
    }
}
