// The W3C JSON forms (options, responses, base64url, COSE algorithm ids) live
// in WebAuthnJSON, which needs only FoundationEssentials so the agent's
// protocol can use them without this target's crypto and CBOR. The model
// re-exports them: code that works with WebAuthn sees one vocabulary.
@_exported import WebAuthnJSON
