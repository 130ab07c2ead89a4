import DecodingErrors
import Foundation
import Testing
import TestSupport

/// The one reading of a DecodingError: which member, what is wrong, never the value.
@Suite(.ownThreads) struct DecodingErrorTextTests {
    struct Options: Decodable {
        struct Party: Decodable { var id: String }
        struct Parameter: Decodable { var alg: Int }
        var rp: Party
        var timeout: Int?
        var pubKeyCredParams: [Parameter]
        var flag: Bool?
    }

    private func failure(_ json: String) -> any Error {
        do {
            _ = try JSONDecoder().decode(Options.self, from: Data(json.utf8))
        } catch {
            return error
        }
        Issue.record("\(json) decoded")
        return CancellationError()
    }

    @Test func aMissingMemberIsNamedByItsFullPath() {
        let error = failure(#"{"rp": {}, "pubKeyCredParams": []}"#)
        #expect(DecodingProblem(error) == DecodingProblem(path: "rp", kind: .missing(member: "id")))
        #expect(DecodingProblem(error)?.missingMemberPath == "rp.id")
        #expect(DecodingErrorText.describe(error) == "missing field `rp.id`")
    }

    @Test func aWrongTypeNamesTheKindExpectedAndArrayIndices() {
        let error = failure(#"{"rp": {"id": "x"}, "pubKeyCredParams": [{"alg": -7}, {"alg": "ES256"}]}"#)
        #expect(DecodingProblem(error) == DecodingProblem(path: "pubKeyCredParams[1].alg", kind: .wrongType(expected: .number)))
        #expect(DecodingErrorText.describe(error) == "field `pubKeyCredParams[1].alg` should be a number")
        let flag = failure(#"{"rp": {"id": "x"}, "pubKeyCredParams": [], "flag": "yes"}"#)
        #expect(DecodingErrorText.describe(flag) == "field `flag` should be true or false")
    }

    @Test func nullWhereAValueIsNeeded() {
        let error = failure(#"{"rp": {"id": null}, "pubKeyCredParams": []}"#)
        #expect(DecodingProblem(error)?.path == "rp.id")
        #expect(DecodingErrorText.describe(error) == "field `rp.id` is null but should be a string")
    }

    @Test func textThatIsNotJSONNamesNoMember() {
        let error = failure("{ not json")
        #expect(DecodingProblem(error)?.path == "")
        #expect(DecodingErrorText.describe(error) == "not valid JSON")
    }

    @Test func otherErrorsAreNotDecodingProblems() {
        #expect(DecodingProblem(CancellationError()) == nil)
    }
}
