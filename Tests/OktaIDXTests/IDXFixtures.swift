import Foundation
import OktaIDX

/// The recorded IDX answers in Fixtures/, shaped like okta-mobile-swift's
/// MockResponses (written for these tests, not copied): `{{ORIGIN}}` stands
/// for the origin of the server that serves them.
enum IDXFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func text(_ name: String, origin: String = "https://example.okta.test") throws -> String {
        let raw = try String(contentsOf: directory.appendingPathComponent(name + ".json"), encoding: .utf8)
        return raw.replacingOccurrences(of: "{{ORIGIN}}", with: origin)
    }

    static func response(_ name: String, origin: String = "https://example.okta.test") throws -> IDXResponse {
        try IDXResponse.parse(Array(try text(name, origin: origin).utf8), url: origin + "/idp/idx/introspect")
    }
}
