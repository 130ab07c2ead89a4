import AgentDevices
import AgentRuntime
import AgentTokens
import AgentVault
import Locking
import SecureFiles
import Settings

#if canImport(Glibc)
import Glibc
#endif

/// What the browser is handed instead of the authorization URL: a file only
/// this user can read that sends the browser on to it.
///
/// The authorization URL carries the login's `state`, `nonce` and PKCE
/// challenge. Given to a browser as an argument it sits in
/// /proc/PID/cmdline, which every local user can read; another user who
/// reads it can sign in at the provider as themselves with our challenge and
/// nonce and hand the code, with our `state`, to our loopback listener
/// first — and our vault then holds their tokens. A launch page's path is
/// on the browser's command line instead; its content is not readable by
/// anyone else: mode 0600, in the runtime directory (0700, ours), under an
/// unguessable name.
///
/// The page lives as long as its login. Its writer holds an flock on it
/// until it is removed, so a page whose lock no one holds (its writer
/// crashed) is stale and `removeStale` takes it away — at start and when a
/// login begins, in the agent or in a `passkey` running the core itself.
package final class LaunchPage: Sendable {
    /// Where the page is.
    package let path: String
    /// Open (with its flock) until `remove`: the lock tells sweepers the page is live.
    private let descriptor = Locked<Int32?>(nil)

    package static let prefix = "launch-"
    package static let suffix = ".html"
    /// A page younger than this is never swept: it covers the instant between
    /// a writer's create and its flock.
    package static let minimumStaleAge = 5

    /// Why no page could be written (the login goes on; the person opens the URL).
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// `$XDG_RUNTIME_DIR/passkey-agent`, the agent's own directory; nil
    /// without a runtime directory (there is then no private tmpfs to use).
    package static func directory(_ paths: AgentPaths) -> String? {
        paths.xdg.runtimeDir.map { $0 + "/passkey-agent" }
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor.withLock { $0 = descriptor }
    }

    deinit { remove() }

    /// Writes a page for `url` (an http or https address) in `directory`,
    /// which is made 0700 when missing and must otherwise be ours and closed
    /// to everyone else.
    package static func write(_ url: String, issuer: String, in directory: String) throws(Problem) -> LaunchPage {
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw Problem(description: "the authorization endpoint is not an http(s) address")
        }
        let folder = try openPrivateDirectory(directory)
        defer { close(folder) }
        let name = prefix + randomHex() + suffix
        // O_EXCL with O_CREAT refuses an existing name, a symbolic link included.
        let file = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Problem(description: "cannot create a page in \(directory): \(text(errno))") }
        let path = directory + "/" + name
        flock(file, LOCK_EX)
        // open's mode passes through the umask, which may only narrow it; fchmod makes it exactly 0600.
        guard fchmod(file, 0o600) == 0, writeAll(Array(html(url: url, issuer: issuer).utf8), to: file) else {
            let reason = text(errno)
            unlinkat(folder, name, 0)
            close(file)
            throw Problem(description: "cannot write \(path): \(reason)")
        }
        return LaunchPage(path: path, descriptor: file)
    }

    /// Removes the page (once; later calls do nothing).
    package func remove() {
        descriptor.withLock { descriptor in
            guard let open = descriptor else { return }
            unlink(path)
            close(open)  // after the unlink: the lock covers it
            descriptor = nil
        }
    }

    /// Removes the pages in `directory` no live writer holds: left by a
    /// process that died mid-login. Only regular files of this user named
    /// as pages are considered; what cannot be examined stays.
    @discardableResult
    package static func removeStale(in directory: String) -> Int {
        let names = (DirectoryEntries.names(in: directory) ?? []).filter(isPageName)
        return names.filter { removeIfStale(directory + "/" + $0) }.count
    }

    package static func isPageName(_ name: String) -> Bool {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return false }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        return middle.utf8.count == 32 && middle.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func removeIfStale(_ path: String) -> Bool {
        let file = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { return false }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { return false }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let age = now.tv_sec.subtractingReportingOverflow(info.st_mtim.tv_sec)
        guard !age.overflow, age.partialValue >= minimumStaleAge else { return false }
        // Held across the unlink: a live writer's lock makes this fail, and no writer can take it meanwhile.
        guard flock(file, LOCK_EX | LOCK_NB) == 0 else { return false }
        return unlink(path) == 0
    }

    /// The page: a refresh to `url` at once, and a link for a browser that
    /// does not follow refreshes. No script; a policy that forbids any.
    package static func html(url: String, issuer: String) -> String {
        let target = escaped(url)
        return """
        <!DOCTYPE html>
        <html><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'">
        <meta name="referrer" content="no-referrer">
        <meta http-equiv="refresh" content="0;url=\(target)">
        <title>Sign in to \(escaped(issuer))</title></head>
        <body><p><a href="\(target)">Continue to sign in to \(escaped(issuer))</a></p></body></html>

        """
    }

    /// Text safe in HTML content and in a double- or single-quoted attribute.
    package static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Opens `directory` (made 0700 when missing) without following a final
    /// symlink, and checks the directory opened: ours, closed to group and others.
    private static func openPrivateDirectory(_ directory: String) throws(Problem) -> Int32 {
        var folder = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if folder < 0 && errno == ENOENT {
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                throw Problem(description: "cannot make \(directory): \(text(errno))")
            }
            folder = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard folder >= 0 else {
            let reason = errno == ELOOP || errno == ENOTDIR ? "it is not a directory (a symbolic link is not followed)" : text(errno)
            throw Problem(description: "cannot open \(directory): \(reason)")
        }
        var info = stat()
        guard fstat(folder, &info) == 0 else {
            close(folder)
            throw Problem(description: "cannot examine \(directory): \(text(errno))")
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            close(folder)
            throw Problem(description: "\(directory) must belong to this user with mode 0700 (it is uid \(info.st_uid), mode "
                          + String(info.st_mode & 0o777, radix: 8) + ")")
        }
        return folder
    }

    private static func writeAll(_ bytes: [UInt8], to file: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// 128 random bits (the system's CSPRNG, getrandom(2)) as 32 hex digits.
    private static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return [UInt64.random(in: 0...UInt64.max, using: &generator), UInt64.random(in: 0...UInt64.max, using: &generator)]
            .map { value in
                let digits = String(value, radix: 16)
                return String(repeating: "0", count: 16 - digits.count) + digits
            }.joined()
    }

    private static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
