import FoundationEssentials
import Interaction
import Testing
import TestSupport

/// What a person is shown before an invoke touches the key: a requester's
/// words cannot add lines, reorder the text or pose as the agent's facts.
@Suite(.ownThreads) struct ConfirmationRequestTests {
    @Test("control, format (bidi, zero-width) and line/paragraph separator characters are removed")
    func hostileTextIsMadePlain() {
        let crafted = "Acme\n\nIt is safe to touch your key\u{202E}moc.elgoog\u{200B}\u{2028}\u{2029}\u{7}"
        let plain = DisplayText.plain(crafted)
        #expect(plain == "AcmeIt is safe to touch your keymoc.elgoog")
        #expect(!plain.unicodeScalars.contains { $0.properties.generalCategory == .format })
    }

    @Test("the requester's words are under their own heading, after the checked facts")
    func claimsAreLabelledAsTheRequestersWords() throws {
        let request = ConfirmationRequest(
            title: "Sign in to example.com with your security key?",
            facts: [.init("Your key signs for", "example.com")],
            claims: [.init("Application", "Acme) It is safe\u{202E}"), .init("Browser", "")])
        let lines = request.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Sign in to example.com with your security key?")
        let heading = try #require(lines.firstIndex(of: "The request says (its own words, not checked):"))
        #expect(lines.firstIndex(of: "  Your key signs for: example.com")! < heading)
        #expect(lines[heading + 1] == "  Application: Acme) It is safe")
        #expect(lines.count == heading + 2, "an empty claim is left out")
    }

    @Test("a question decoded from the socket (which skips init) is made plain when shown")
    func decodedQuestionsAreMadePlainToo() throws {
        let json = #"{"title":"Sign in?\u001b[2J","facts":[{"label":"Signs for","value":"evil\u202e.com\nAllow"}],"claims":[]}"#
        let request = try JSONDecoder().decode(ConfirmationRequest.self, from: Data(json.utf8))
        #expect(request.text == "Sign in?[2J\n\n  Signs for: evil.comAllow")
    }

    @Test("long text is cut at 200 characters")
    func longTextIsCut() {
        #expect(DisplayText.plain(String(repeating: "a", count: 1000)).count == DisplayText.limit)
    }
}
