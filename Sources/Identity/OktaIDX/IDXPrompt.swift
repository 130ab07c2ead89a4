import Reports

/// What a person is asked to fill in a form: the fields the server shows
/// (visible, not fixed, not `stateHandle`), flattened to dotted paths, with
/// their choices and messages. The terminal asks these and sends the
/// answers back by path.
public struct IDXPrompt: Sendable, Equatable {
    public var path: String
    public var label: String
    public var type: String?
    public var required: Bool
    public var secret: Bool
    /// Labels of the choices, in order (answer with 1…n).
    public var options: [String]
    public var messages: [IDXMessage]
}

extension IDXRemediation {
    public var prompts: [IDXPrompt] {
        var prompts: [IDXPrompt] = []
        Self.collect(fields, prefix: "", into: &prompts)
        return prompts
    }

    private static func collect(_ fields: [IDXField], prefix: String, into prompts: inout [IDXPrompt]) {
        for field in fields where field.name != "stateHandle" && field.visible && field.mutable {
            let path = prefix + field.name
            if field.options.isEmpty, let form = field.form {
                collect(form, prefix: path + ".", into: &prompts)
                continue
            }
            // A secret is also what a password field is, whatever `secret` says.
            let secret = field.secret || field.name == "passcode" || field.type == "password"
            prompts.append(IDXPrompt(path: path, label: field.label ?? field.name, type: field.type, required: field.required,
                                     secret: secret, options: field.options.map(\.label), messages: field.messages))
        }
    }
}
