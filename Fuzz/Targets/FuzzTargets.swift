/// Every fuzz target, by name. A new parser of outside bytes gets a target
/// here, a seed corpus under Fuzz/Corpus/<name>/, and a line in docs/FUZZING.md.
public enum FuzzTargets {
    public static let all: [FuzzTarget] = [
        .cbor, .ctaphid, .ctap2, .iso7816, .piv, .vpcd, .webauthnBinary, .webauthnJSON, .webauthnVerify,
        .tokens, .urls, .toml, .agentLine, .oauthRequest, .openID, .beyondIdentity, .idxRequest, .idxResponse, .nfcTransport,
        .credentialHelpers, .tokenAnswer, .tokenRequest,
    ]

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
