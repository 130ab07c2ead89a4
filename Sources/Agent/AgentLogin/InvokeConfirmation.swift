import AgentDevices
import AgentRuntime
import AgentTokens
import AgentVault
import BeyondIdentity
import Interaction
import Tokens
import URLPolicy
import WebAuthnJSON

/// What the person is asked before an invoke URL touches the key: the facts
/// the agent checked (the RP ID the key signs for, the trusted application
/// and where the proof goes, the identity) apart from what the request says
/// about itself (application name, IP, user agent), which is labelled as the
/// requester's words. `ConfirmationRequest` strips every control, format and
/// separator character from each value.
package enum InvokeConfirmation {
    package static func signIn(_ request: AuthenticateRequest, application: TrustedApplication) -> ConfirmationRequest {
        ConfirmationRequest(
            title: "Sign in to \(request.rpId) with your security key?",
            facts: [
                .init("Your key signs for", request.rpId),
                .init("Trusted application", "\(application.name) (\(application.shown))"),
                .init("The proof goes to", Endpoint.shown(request.baseURL)),
            ],
            claims: [
                .init("Application", request.applicationName ?? ""),
                .init("Requested from IP", request.requestOrigin.ip),
                .init("Browser", request.requestOrigin.userAgent),
                .init("Location", request.requestOrigin.geolocation),
            ])
    }

    package static func binding(_ options: PublicKeyCredentialCreationOptionsJSON, application: TrustedApplication) -> ConfirmationRequest {
        let rpId = options.rp.id ?? ""
        return ConfirmationRequest(
            title: "Add a passkey for \(rpId) to your security key?",
            facts: [
                .init("Passkey for", rpId),
                .init("Trusted application", "\(application.name) (\(application.shown))"),
            ],
            claims: [
                .init("Identity", options.user.name),
                .init("Display name", options.user.displayName),
                .init("Site name", options.rp.name),
            ])
    }
}
