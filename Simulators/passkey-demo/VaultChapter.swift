import AgentProtocol

/// Chapter 2: the vault. Its data key is wrapped by the security key's
/// hmac-secret (`vault init --slot fido2`), through the demo's own agent;
/// with a card on the private pcscd, a PIV slot is added and a wrong PIN
/// is answered with the tries left.
struct VaultChapter {
    let world: DemoWorld
    let say: DemoNarrator
    static let pin = "123456"

    func run() async throws(AgentError) -> String {
        say.step("Start a passkey-agent of the demo's own (temporary XDG directories, socket in $XDG_RUNTIME_DIR)")
        try await world.startAgent()
        say.step("passkey vault init --slot fido2 --device \(world.device)")
        say.detail("a random 256-bit data key; the key's hmac-secret output for a stored salt wraps it")
        let created = try await world.requireWithKey(["vault", "init", "--slot", "fido2", "--device", world.device])
        say.detail(created.output.split(separator: "\n").first.map(String.init) ?? "")
        world.vaultReady = true

        say.step("passkey token put demo  (a token response on stdin), then passkey token get demo")
        let secret = "AT-demo-\(UInt64.random(in: .min ... .max))"
        try await world.require(["token", "put", "demo"], input: """
            {"access_token":"\(secret)","token_type":"Bearer","expires_in":3600,"issuer":"https://id.example.org","client_id":"cli","token_endpoint":"https://id.example.org/token"}
            """)
        let got = try await world.require(["token", "get", "demo"])
        guard got.output == secret else { throw AgentError(.internal, "token get returned another token than was stored") }
        let leaks = DemoFiles.filesContaining(secret, under: world.scratch + "/data")
        guard leaks.isEmpty else { throw AgentError(.internal, "the token is in \(leaks) unencrypted") }
        say.detail("→ the same token back; it is in no file under $XDG_DATA_HOME (AES-256-GCM entries)")
        var verified = "a vault opened by the key's hmac-secret stores a token and gives it back; no file holds it in the clear"

        guard let pcsc = world.pcsc else {
            say.step("PIV card: skipped (\(world.pcscMissing ?? "not started")): it would run `passkey card setup`, "
                     + "`passkey vault add-slot piv` and a wrong PIN answered with the tries left; enable it with "
                     + "`sudo apt install pcscd vsmartcard-vpcd` (scripts/demo installs them: scripts/install-dependencies --demo)")
            return verified
        }
        say.step("passkey card setup --reader \"\(DemoPCSC.reader)\"  (passkey-vcard on a private pcscd: a new P-256 key in PIV slot 9D)")
        _ = pcsc
        try await world.require(["card", "setup", "--reader", DemoPCSC.reader, "--pin-stdin", "--yes"], input: Self.pin + "\n")
        say.step("passkey vault add-slot piv --reader \"\(DemoPCSC.reader)\"  (the same data key, wrapped a second time for the card)")
        try await world.require(["vault", "add-slot", "piv", "--reader", DemoPCSC.reader, "--pin-stdin"], input: Self.pin + "\n")
        try await world.require(["lock"])
        say.step("passkey lock; passkey unlock --slot piv with a wrong PIN")
        let wrong = try await world.passkey(["unlock", "--slot", "piv", "--pin-stdin"], input: "999999\n")
        guard wrong.status == 6, wrong.standardError.contains("2 tries left") else {
            throw AgentError(.internal, "a wrong PIN was not answered with the tries left: \(wrong.standardError)")
        }
        say.detail("→ \(wrong.standardError.split(separator: "\n").first ?? "")  (the card's own retry counter; never retried for you)")
        say.step("passkey unlock --slot piv with the right PIN")
        try await world.require(["unlock", "--slot", "piv", "--pin-stdin"], input: Self.pin + "\n")
        guard try await world.require(["token", "get", "demo"]).output == secret else {
            throw AgentError(.internal, "the card's slot opened another vault")
        }
        say.detail("→ unlocked by the card; the same token back")
        verified += "; the card's PIV slot opens the same vault, a wrong PIN left 2 tries"
        return verified
    }
}
