import DevServerBase
import FoundationEssentials
import Hummingbird

/// GET and POST /activate: where the user enters a device's user code and
/// approves or denies it (RFC 8628 §3.3), showing which client asks (§5.4).
extension OAuthServer {
    func activatePage(_ request: Request) async -> Response {
        let typed = (try? request.queryFields())?["user_code"]
        let code = typed.flatMap(UserCode.normalize)
        var body = ""
        if let code, let record = await store.pendingDevice(userCode: code, now: now) {
            body += "<p>Client <b>\(HTMLPage.escape(record.clientId))</b> asks for "
                + "<b>\(HTMLPage.escape(record.scopes.joined(separator: " ")))</b>. Approve only if you started this on your device.</p>"
        }
        let shown = code.map(UserCode.display) ?? ""
        body += "<p>The code your device shows: <b>\(HTMLPage.escape(shown.isEmpty ? "(enter it below)" : shown))</b></p>"
        body += HTMLPage.signInForms(action: "/activate", loginHint: nil, userCode: shown)
        return OAuthResponse.html(HTMLPage.document(title: "Activate a device", body))
    }

    /// `user_code`, `action=allow|deny`, and for allow `user` or `verify_token`.
    func activateDecision(_ request: Request) async -> Response {
        let fields: FormFields
        do { fields = try await request.formFields() } catch {
            return OAuthResponse.html(HTMLPage.error("Bad form", error.description), status: .badRequest)
        }
        guard let code = fields["user_code"].flatMap(UserCode.normalize),
              await store.pendingDevice(userCode: code, now: now) != nil else {
            return OAuthResponse.html(HTMLPage.error("Unknown code", "No device is waiting for that code: it is wrong, expired or already used."),
                                      status: .badRequest)
        }
        let sub: String?
        switch fields["action"] {
        case "deny":
            sub = nil
        case "allow":
            do { sub = try await signedInUser(fields) } catch {
                return OAuthResponse.html(HTMLPage.error("Sign-in refused", error.reason), status: .badRequest)
            }
        default:
            return OAuthResponse.html(HTMLPage.error("Bad form", "action must be allow or deny."), status: .badRequest)
        }
        guard await store.decideDevice(userCode: code, sub: sub, now: now) else {
            return OAuthResponse.html(HTMLPage.error("Unknown code", "That code was decided or expired meanwhile."), status: .badRequest)
        }
        return OAuthResponse.html(sub == nil
            ? HTMLPage.error("Denied", "The device was refused. You can close this page.")
            : HTMLPage.error("Device approved", "Return to your device. You can close this page."))
    }
}
