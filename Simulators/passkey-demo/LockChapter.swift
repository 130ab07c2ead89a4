import AgentProtocol

/// Chapter 4: `passkey lock` wipes the data key from the agent's memory;
/// `token get` is refused while locked; a touch on the key unlocks it.
struct LockChapter {
    let world: DemoWorld
    let say: DemoNarrator

    func run() async throws(AgentError) -> String {
        if !world.loggedIn { try await LoginChapter(world: world, say: say).login(narrated: false) }
        say.step("passkey lock")
        say.detail("→ \(try await world.require(["lock"]).output)")
        say.step("passkey token get work  (while locked)")
        let refused = try await world.passkey(["token", "get", "work"])
        guard refused.status == 7, refused.standardOutput.isEmpty, refused.standardError.contains("locked") else {
            throw AgentError(.internal, "token get was not refused while locked (exit \(refused.status))")
        }
        say.detail("→ exit 7: \(refused.standardError.split(separator: "\n").first ?? "")")
        say.step("passkey unlock --slot fido2 --device \(world.device)  (a touch: the key's hmac-secret unwraps the data key)")
        try await world.requireWithKey(["unlock", "--slot", "fido2", "--device", world.device])
        let again = try await world.require(["token", "get", "work"]).output
        guard again == world.lastAccessToken else { throw AgentError(.internal, "after unlock, token get gave another token") }
        say.detail("→ unlocked; token get gives the same access token again")
        return "while locked token get was refused (exit 7); after a touch it gave the stored token back"
    }
}
