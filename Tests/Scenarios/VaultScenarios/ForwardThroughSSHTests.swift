import Foundation
import Testing
import TestSupport

/// Issue 29 end to end: `passkey forward` in the agent, a real sshd
/// (PrivateSSHD) and `ssh -R` carrying the restricted socket to the "remote"
/// side, where the same `passkey` with PASSKEY_AGENT_SOCK gets the token after
/// the local confirmation, and nothing else.
@Suite(.ownThreads, .serialized) struct ForwardThroughSSHTests {
    /// Run on the "remote" side: waits (bounded) for the forwarded socket, then
    /// asks for an allowed and a refused account, and for two refused methods raw.
    static let remoteScript = """
    R="$1"; PASSKEY="$2"; export HOME="$3" XDG_CONFIG_HOME="$3/config" XDG_DATA_HOME="$3/data" PASSKEY_AGENT_SOCK="$1"
    unset XDG_RUNTIME_DIR
    i=0; while [ ! -S "$R" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
    "$PASSKEY" token get work; echo "work-exit=$?"
    "$PASSKEY" token get home 2>&1; echo "home-exit=$?"
    "$PASSKEY" exec work -- sh -c 'echo "exec-token=$PASSKEY_ACCESS_TOKEN"'; echo "exec-exit=$?"
    python3 - "$R" <<'PY'
    import json, socket, sys
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
    for i, method in enumerate(["vault.removeSlot", "webauthn.get"]):
        f.write(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": method, "params": {"slot": "fido2"}}) + "\\n"); f.flush()
        print(method, json.loads(f.readline())["error"]["data"].get("errorCode"))
    PY
    """

    @Test("ssh -R: the remote passkey gets the token after the local confirmation, is refused other accounts and methods, and loses access on --close")
    func tokenThroughSSH() throws {
        let sshd = try PrivateSSHD()
        let agent = try VaultAgent(person: .allow)
        try agent.start()
        try agent.initializeVault()
        let endpoint = "https://127.0.0.1:9/token"  // never called: the tokens are fresh
        try agent.put("work", VaultAgent.document(access: "AT-WORK", refresh: "RT-WORK", expiresIn: 3600, endpoint: endpoint))
        try agent.put("home", VaultAgent.document(access: "AT-HOME", refresh: "RT-HOME", expiresIn: 3600, endpoint: endpoint))

        let remote = sshd.directory + "/remote.sock"
        let opened = try agent.passkey(["forward", "--account", "work", "--confirm", "always", "--ttl", "10m", "--remote-path", remote])
        #expect(opened.status == 0, "\(opened.standardError)")
        let local = try #require(opened.standardOutput.split(separator: "\n").first
            .flatMap { $0.split(separator: " ").dropFirst(2).first }.map { String($0) }, "\(opened.standardOutput)")
        #expect(local.hasSuffix(".sock") && FileManager.default.fileExists(atPath: local))
        #expect(opened.standardOutput.contains("-R \(remote):\(local) HOST"), "\(opened.standardOutput)")
        #expect(opened.standardOutput.contains("export PASSKEY_AGENT_SOCK=\(remote)"), "\(opened.standardOutput)")

        let script = sshd.directory + "/remote.sh"
        try Self.remoteScript.write(toFile: script, atomically: true, encoding: .utf8)
        let home = try TemporaryDirectory.make(prefix: "remote-home", in: sshd.directory)
        let passkey = try ProgramPaths.built("passkey")
        let session = try sshd.ssh(forwarding: ["\(remote):\(local)"], "sh \(script) \(remote) \(passkey) \(home)")
        let out = session.standardOutput
        #expect(session.status == 0, "ssh: \(session.standardError)")
        #expect(out.hasPrefix("AT-WORK\nwork-exit=0\n"), "\(out)\n\(session.standardError)")
        #expect(out.contains("home-exit=") && !out.contains("home-exit=0") && !out.contains("AT-HOME"), "\(out)")
        #expect(out.contains("exec-token=AT-WORK\nexec-exit=0\n"), "exec works through the forward: \(out)")
        #expect(out.contains("forwarding socket"), "the refusal names the restriction: \(out)")
        #expect(out.contains("vault.removeSlot forward_restricted\nwebauthn.get forward_restricted\n"), "\(out)")
        let asked = agent.pinentry?.confirmations ?? []
        #expect(asked.count == 2 && asked.allSatisfy { $0.contains("work") }, "confirm always: token get and exec each asked, for work: \(asked)")

        let listed = try agent.passkey(["forward", "--list"])
        #expect(listed.standardOutput.hasPrefix("forward 1: \(local)"), "\(listed.standardOutput)")
        let closed = try agent.passkey(["forward", "--close", "1"])
        #expect(closed.status == 0, "\(closed.standardError)")
        #expect(!FileManager.default.fileExists(atPath: local))
        let after = try sshd.ssh(forwarding: ["\(remote):\(local)"],
                                 "PASSKEY_AGENT_SOCK=\(remote) HOME=\(home) \(passkey) token get work 2>&1; echo after-exit=$?")
        // sshd leaves the remote socket behind when the session ends: passkey
        // there says nothing answers and how to forward, and runs no core of its own.
        let stale = try agent.harness.passkey(["token", "get", "work"], extraEnvironment: ["PASSKEY_AGENT_SOCK": remote])
        #expect(stale.status != 0 && stale.standardOutput.isEmpty, "\(stale.standardOutput)")
        #expect(stale.standardError.contains("no agent answers at PASSKEY_AGENT_SOCK=\(remote)")
                && stale.standardError.contains("passkey forward"), "\(stale.standardError)")
        #expect(!after.standardOutput.contains("AT-WORK") && !after.standardOutput.contains("after-exit=0"),
                "\(after.standardOutput) \(after.standardError)")
        #expect(after.standardOutput.contains("no agent answers") || after.standardOutput.contains("closed"), "\(after.standardOutput)")
        #expect(agent.pinentry?.confirmations.count == 2, "nothing more was asked")
        #expect(agent.filesContaining(["AT-WORK", "AT-HOME"]).isEmpty, "no token in the agent's logs")
    }
}
