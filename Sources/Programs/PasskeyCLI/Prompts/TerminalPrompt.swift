import StandardError

#if canImport(Glibc)
import Glibc
#endif

/// Talks to the user on the controlling terminal (/dev/tty), so prompts
/// work even when stdout is piped into another program.
enum TerminalPrompt {
    /// True when a person is likely at a terminal: stdin and stderr are TTYs.
    static var isInteractive: Bool { isatty(0) == 1 && isatty(2) == 1 }

    /// Reads a secret with echo off. Returns nil when there is no terminal or the user gives up (EOF).
    static func readSecret(prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        // Echo off before the prompt shows: a person (or a script) answering
        // as soon as it sees the prompt must not have the secret echoed, nor
        // flushed away by TCSAFLUSH and then waited for forever.
        guard tcsetattr(fd, TCSAFLUSH, &silent) == 0 else { return nil }
        defer { _ = tcsetattr(fd, TCSADRAIN, &saved) }  // keeps what was typed ahead
        OutputDescriptor(fd).write(prompt)
        return readLine(fd)
    }

    /// Reads a visible answer (a choice, a confirmation).
    static func ask(_ prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        OutputDescriptor(fd).write(prompt)
        return readLine(fd)
    }

    /// Writes a status line ("Touch your security key…") to stderr when it is a terminal.
    static func status(_ text: String) {
        guard isatty(2) == 1 else { return }
        StandardError.writeLine(text)
    }

    /// One line without its newline; nil on EOF before any byte.
    private static func readLine(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        defer { for i in bytes.indices { bytes[i] = 0 } }
        return String(decoding: bytes, as: UTF8.self)
    }
}
