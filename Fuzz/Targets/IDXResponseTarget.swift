import FoundationEssentials
import OktaIDX

extension FuzzTarget {
    /// What an Okta Identity Engine server answers the agent: the bytes as an
    /// IDX answer (`IDXResponse.parse`: the ION envelope, remediation forms,
    /// options, nested forms, messages, authenticators), then everything the
    /// agent does with an accepted one: the loop's decision, each form's
    /// prompts and body, the WebAuthn options. Beyond not crashing: an
    /// accepted answer's forms have field names without dots, bodies are JSON
    /// objects, and a chosen option is one the form offered.
    static let idxResponse = FuzzTarget(
        name: "idx-response",
        summary: "JSON as an IDX answer (IDXResponse.parse), then IDXNextStep, prompts, form bodies and WebAuthn creation/request options",
        maximumLength: 65536,
        seeds: {
            let form = #"{"rel":["create-form"],"name":"identify","href":"https://o.test/idp/idx/identify","method":"POST","#
                + #""value":[{"name":"identifier","label":"Username","required":true},{"name":"credentials","type":"object","form":{"value":["#
                + #"{"name":"passcode","label":"Password","secret":true,"messages":{"type":"array","value":[{"message":"Wrong","class":"ERROR"}]}}]}},"#
                + #"{"name":"stateHandle","required":true,"value":"02.s","visible":false,"mutable":false}]}"#
            let select = #"{"name":"select-authenticator-enroll","href":"https://o.test/idp/idx/credential/enroll","value":[{"name":"authenticator","#
                + #""type":"object","options":[{"label":"Security Key","value":{"form":{"value":[{"name":"id","value":"aut1","mutable":false},"#
                + #"{"name":"methodType","value":"webauthn","mutable":false}]}},"relatesTo":"$.authenticators.value[0]"}]},"#
                + #"{"name":"stateHandle","value":"02.s","visible":false,"mutable":false}]}"#
            let authenticators = #""authenticators":{"type":"array","value":[{"type":"security_key","key":"webauthn","id":"aut1","#
                + #""displayName":"Security Key","methods":[{"type":"webauthn"}]}]}"#
            let enroll = #"{"stateHandle":"02.s","remediation":{"type":"array","value":[{"name":"enroll-authenticator","#
                + #""href":"https://o.test/idp/idx/challenge/answer","relatesTo":["$.currentAuthenticator"],"value":[{"name":"credentials","#
                + #""form":{"value":[{"name":"attestation","required":true,"visible":false},{"name":"clientData","required":true,"visible":false}]}}]}]},"#
                + #""currentAuthenticator":{"type":"object","value":{"key":"webauthn","type":"security_key","id":"aut1","contextualData":{"activationData":"#
                + #"{"rp":{"name":"Org"},"user":{"id":"00uabcdefghijklmnop","name":"jane","displayName":"Jane"},"challenge":"q83vASNFZ4mrze8BI0VniavN7wEjRWeJ","#
                + #""pubKeyCredParams":[{"type":"public-key","alg":-7}],"u2fParams":{"appid":"https://o.test"},"excludeCredentials":[{"id":"AQID"}]}}}}}"#
            let challenge = #"{"stateHandle":"02.s","remediation":{"type":"array","value":[{"name":"challenge-authenticator","#
                + #""href":"https://o.test/idp/idx/challenge/answer","value":[{"name":"credentials","form":{"value":[{"name":"authenticatorData"},"#
                + #"{"name":"clientData"},{"name":"signatureData"}]}}]}]},"currentAuthenticator":{"value":{"key":"webauthn","contextualData":"#
                + #"{"challengeData":{"challenge":"3q2+7wABAgMEBQYHCAkKCwwNDg8QERIT","extensions":{"appid":"https://o.test"}}}}},"#
                + #""authenticatorEnrollments":{"value":[{"key":"webauthn","credentialId":"+/7+/Q==","profile":{"transports":"[\"usb\"]"}}]}}"#
            return [
                Seed("identify", text: #"{"version":"1.0.0","stateHandle":"02.s","remediation":{"type":"array","value":["# + form + "]}}"),
                Seed("select-enroll", text: #"{"stateHandle":"02.s","remediation":{"type":"array","value":["# + select + "]}," + authenticators + "}"),
                Seed("enroll-webauthn", text: enroll),
                Seed("challenge-webauthn", text: challenge),
                Seed("session-expired", text: #"{"messages":{"type":"array","value":[{"message":"The session has expired.","i18n":{"key":"idx.session.expired"},"class":"ERROR"}]}}"#),
                Seed("success", text: #"{"successWithInteractionCode":{"name":"issue","href":"https://o.test/oauth2/v1/token","value":[{"name":"interaction_code","value":"c"}]}}"#),
            ]
        },
        run: { bytes in
            guard let response = try? IDXResponse.parse(bytes, url: "https://o.test/idp/idx/introspect") else { return }
            _ = IDXNextStep.next(response)
            _ = IDXNextStep.next(response, authenticator: "okta_password")
            _ = response.allMessages
            for form in response.remediations + [response.cancel, response.success].compactMap({ $0 }) {
                for prompt in form.prompts {
                    try expect(!prompt.path.isEmpty && !prompt.path.hasPrefix(".") && !prompt.path.hasSuffix("."), "a prompt path \(prompt.path.debugDescription)")
                }
                var values: [String: String] = [:]
                for prompt in form.prompts { values[prompt.path] = prompt.options.isEmpty ? "x" : "1" }
                if let body = try? form.body(values: values, stateHandle: response.stateHandle) {
                    try expect(body.isObject, "a form body that is not an object")
                }
                _ = try? form.body(values: [:], stateHandle: nil)
            }
            _ = try? IDXWebAuthn.creationOptions(response, issuerHost: "o.test")
            _ = try? IDXWebAuthn.requestOptions(response, issuerHost: "o.test")
        })
}
