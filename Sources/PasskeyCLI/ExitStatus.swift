/// The exit statuses of `passkey`, one per kind of failure a script may want
/// to tell apart. `--help` prints this table.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    case failure = 1
    case usage = 64

    static var helpText: String {
        """
        EXIT STATUS
          0   success
          1   the operation failed (the message says why)
          64  the command line is wrong
        """
    }
}
