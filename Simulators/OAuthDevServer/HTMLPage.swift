/// The server's few HTML pages: plain forms, no scripts, every outside value escaped.
enum HTMLPage {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func document(title: String, _ body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title)) · passkey-devserver</title>
        <style>body{font-family:sans-serif;max-width:40em;margin:2em auto}fieldset{margin:1em 0}
        .shortcut{border-color:#c60}</style></head>
        <body><h1>\(escape(title))</h1>
        \(body)
        </body></html>
        """
    }

    static func error(_ title: String, _ detail: String) -> String {
        document(title: title, "<p>\(escape(detail))</p>")
    }

    /// The two ways to approve: a passkey sign-in's verify token, or the
    /// development shortcut naming the user. `action` is the form target;
    /// `userCode`, when given, adds the device's user code field to both forms.
    static func signInForms(action: String, loginHint: String?, userCode: String? = nil) -> String {
        let fields = userCode.map { "<label>User code <input name=\"user_code\" value=\"\(escape($0))\" required></label>" } ?? ""
        return """
        <form method="post" action="\(escape(action))"><fieldset><legend>Sign in with a passkey</legend>
        \(fields)<p>Sign in on the passwordless API (/signin/begin, /signin/complete) and paste the verify token it returns.</p>
        <label>Verify token <input name="verify_token" autocomplete="off" required></label>
        <button name="action" value="allow">Sign in and allow</button>
        <button name="action" value="deny" formnovalidate>Deny</button></fieldset></form>
        <form method="post" action="\(escape(action))"><fieldset class="shortcut"><legend>DEVELOPMENT SHORTCUT: no sign-in</legend>
        \(fields)<p>Approves as whichever user you name, without any authentication. For tests and development only.</p>
        <label>User (sub) <input name="user" value="\(escape(loginHint ?? ""))" required></label>
        <button name="action" value="allow">Allow as this user</button>
        <button name="action" value="deny" formnovalidate>Deny</button></fieldset></form>
        """
    }
}
