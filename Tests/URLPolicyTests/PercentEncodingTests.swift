import Testing
import TestSupport
import URLPolicy

/// The one percent-encoding: what it keeps, what it escapes, and the escapes
/// its decoder refuses (each reader of forms, queries and file names used to
/// have its own, and one took a sign as a hex digit).
@Suite(.ownThreads) struct PercentEncodingTests {
    @Test("unreserved characters stay, every other byte is %XX in upper case, UTF-8 byte by byte")
    func encoding() {
        #expect(PercentEncoding.encode("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.encode("a b+c/d?e=f&g") == "a%20b%2Bc%2Fd%3Fe%3Df%26g")
        #expect(PercentEncoding.encode("é") == "%C3%A9")
        #expect(PercentEncoding.query([("redirect_uri", "http://127.0.0.1:8080/cb"), ("state", "x y")])
                    == "redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcb&state=x%20y")
    }

    @Test("form decoding reads + as a space; plain decoding keeps it; either case of hex")
    func decoding() {
        #expect(PercentEncoding.decode("a+b%2Bc", plusIsSpace: true) == Array("a b+c".utf8))
        #expect(PercentEncoding.decode("a+b%2bc", plusIsSpace: false) == Array("a+b+c".utf8))
        #expect(PercentEncoding.decode("%C3%a9", plusIsSpace: false) == [0xC3, 0xA9])
        #expect(PercentEncoding.decode("", plusIsSpace: true) == [])
    }

    @Test("a % without two hex digits after it is refused, signs included")
    func refusals() {
        for text in ["%", "%4", "%G0", "%+f", "%-1", "a%2", "%%41"] {
            #expect(PercentEncoding.decode(Substring(text), plusIsSpace: false) == nil, "\(text)")
        }
    }

    @Test("what encode writes, decode reads back")
    func roundTrip() {
        for text in ["", "plain", "with space+plus", "ünïcödé/?#[]@!$&'()*,;=%"] {
            #expect(PercentEncoding.decode(Substring(PercentEncoding.encode(text)), plusIsSpace: true) == Array(text.utf8))
        }
    }
}
