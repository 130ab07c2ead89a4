import AgentProtocol

/// Where `passkey invoke` takes its URL from: standard input for `-`, else
/// the command line — only for a URL without a query or fragment, since
/// /proc/PID/cmdline is readable by every local user and an invoke URL's
/// secret (a binding link's `token`, a bind URL's `token`, an authenticate
/// URL's `request`, a redirect's `code` and `state`) sits in its query.
/// Any query counts, not only known names: a renamed field is still a secret.
enum InvokeArgument {
    static func mayHoldSecret(_ url: String) -> Bool {
        url.contains("?") || url.contains("#")
    }

    /// The URL itself: `argument`, or for `-` the first line of standard input
    /// without surrounding blanks.
    static func resolve(_ argument: String) throws(AgentError) -> String {
        guard argument == "-" else { return argument }
        guard let line = StandardInput.readLine() else {
            throw AgentError(.invalidInput, "passkey invoke -: no URL on standard input")
        }
        let url = line.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        guard !url.isEmpty else { throw AgentError(.invalidInput, "passkey invoke -: the line on standard input is empty, not a URL") }
        return String(url)
    }
}
