import Settings

extension FuzzTarget {
    /// config.toml: the strict TOML subset the agent reads at start and on reload.
    static let toml = FuzzTarget(
        name: "toml",
        summary: "text as config.toml (TOMLDocument, then Settings)",
        // Room for nesting deep enough to overflow a plain build's 8 MB stack (the agent reads up to 1 MiB).
        maximumLength: 8192,
        seeds: {
            [
                Seed("config", text: """
                    # passkey-agent configuration
                    [device]
                    default = "virtual"
                    virtual-state = "/home/alice/.local/share/passkey-agent/virtual.json"

                    [passwordless]
                    api-url = "https://v4.passwordless.dev"
                    api-key = "myapp:public:0123456789abcdef"
                    rp-id = "example.com"
                    origin = "https://example.com"

                    [agent]
                    idle-timeout = 900

                    """),
                Seed("escapes-and-comments", text: "[passwordless] # tail\norigin = \"https://\\u00e9.example\\t\\\"q\\\"\" # c\r\n[agent]\nidle-timeout = -9223372036854775808\n"),
                Seed("huge-integer-and-duplicate", text: "[agent]\nidle-timeout = 99999999999999999999999\nidle-timeout = 1\n"),
                Seed("unknown-and-top-level", text: "stray = 1\n[agnet]\nidle-timout = true\n[device]\ndefault = 'literal'\n"),
            ]
        },
        run: { bytes in
            guard let document = try? TOMLDocument(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
            _ = Settings(toml: document)
            for (table, values) in document.tables {
                for key in values.keys {
                    _ = document.string(table, key)
                    _ = document.integer(table, key)
                    _ = document.boolean(table, key)
                }
            }
        })
}
