import AgentProtocol

/// The exit statuses of `passkey`, one per kind of failure a script may want
/// to tell apart (AgentErrorKind.exitStatus maps every error kind onto them).
/// `passkey --help` prints this table after the subcommands
/// (PasskeyCommand.rootHelp); docs/PROTOCOL.md lists the kinds.
enum ExitStatus {
    /// The command line is wrong (BSD's EX_USAGE, as ArgumentParser exits).
    static let usage: Int32 = 64

    /// Wrapped by hand to 80 columns: ArgumentParser would re-wrap it to the
    /// terminal's width and lose the second column's indent.
    static let helpText = """
        EXIT STATUS:
          0   success
          1   failed for another reason (the message says why)
          3   no usable device: no security key, card or reader, pcscd not
              running, key unplugged
          4   cancelled or declined (at the key, or at a prompt)
          5   timed out waiting for a touch
          6   PIN problem: needed, wrong (tries left are printed), blocked, or not set
          7   the vault is locked, or cannot be opened
          8   the server answered with an error (its errorCode is printed)
          9   the network failed (the URL is printed)
          10  already registered, no matching credential, or no such account
          11  invalid input (which field, and why, is printed)
          12  the provider signed in another user than the account's (nothing
              was stored; --force replaces it)
          13  an invoke request was refused as untrusted: its key-set host,
              application, RP ID or hosts are not the trusted application's,
              or it does not verify
          64  the command line is wrong
        """

    /// An invoke refusal's `errorCode` (InvokeError): the request did not come
    /// from the application config.toml trusts, or does not verify.
    static let untrustedInvokeCodes: Set<String> = ["untrusted_jku_host", "untrusted_application", "foreign_rp_id", "foreign_host",
                                                     "bad_signature", "unknown_key", "algorithm_not_allowed", "wrong_issuer",
                                                     "wrong_verb"]

    /// The status for an error: its kind's, except two `denied` errors a
    /// script must tell from a person's "no" (4), told apart by `errorCode`.
    static func of(_ error: AgentError) -> Int32 {
        guard error.kind == .denied, case .string(let code)? = error.details["errorCode"] else { return error.kind.exitStatus }
        if code == "subject_mismatch" { return 12 }
        if untrustedInvokeCodes.contains(code) { return 13 }
        return error.kind.exitStatus
    }
}
