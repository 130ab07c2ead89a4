import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Debian's sshd on 127.0.0.1:<free port>, with its own config, host key and
/// authorized key in a temporary directory (never the system's sshd), letting
/// the current user in with a throwaway key and allowing `ssh -R` of Unix sockets.
final class PrivateSSHD: @unchecked Sendable {
    let directory: String
    let port: UInt16
    let user: String
    private let daemon: RunningProcess

    init() throws {
        directory = try TemporaryDirectory.make(prefix: "sshd")
        let sshd = "/usr/sbin/sshd"
        guard FileManager.default.isExecutableFile(atPath: sshd) else {
            throw TestFailure("\(sshd) is missing: install openssh-server (scripts/install-dependencies --test)")
        }
        // sshd run as root insists on its privilege-separation directory.
        if getuid() == 0 { try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true) }
        for (name, file) in [("host", "host_ed25519"), ("client", "client_ed25519")] {
            let made = try ProcessResult.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", directory + "/" + file],
                                             standardInput: nil, environment: ProcessInfo.processInfo.environment, scratch: directory, timeout: 30)
            guard made.status == 0 else { throw TestFailure("ssh-keygen: \(made.standardError)") }
        }
        try FileManager.default.copyItem(atPath: directory + "/client_ed25519.pub", toPath: directory + "/authorized_keys")
        user = String(cString: getpwuid(getuid()).pointee.pw_name)
        port = try Self.freePort()
        let config = """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(directory)/host_ed25519
        PidFile \(directory)/sshd.pid
        AuthorizedKeysFile \(directory)/authorized_keys
        UsePAM no
        StrictModes no
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        PubkeyAuthentication yes
        PermitRootLogin prohibit-password
        AllowStreamLocalForwarding yes
        StreamLocalBindUnlink yes
        LogLevel VERBOSE

        """
        try config.write(toFile: directory + "/sshd_config", atomically: true, encoding: .utf8)
        daemon = try RunningProcess(sshd, ["-D", "-e", "-f", directory + "/sshd_config"],
                                    environment: ProcessInfo.processInfo.environment, directory: directory, name: "sshd")
        try daemon.waitUntil("sshd listens on 127.0.0.1:\(port)") { Self.accepts(port) || daemon.poll() != nil }
        if let status = daemon.poll() { throw TestFailure("sshd exited \(status): \(daemon.standardError)") }
    }

    deinit {
        _ = daemon.stop()
        TemporaryDirectory.remove(directory)
    }

    /// `ssh` to this sshd with the throwaway key, forwarding `forwards` (`-R REMOTE:LOCAL`), running `command` there.
    func ssh(forwarding forwards: [String], _ command: String, timeout: TimeInterval = 120) throws -> ProcessResult {
        var arguments = ["-n", "-T", "-p", "\(port)", "-i", directory + "/client_ed25519", "-F", "/dev/null",
                         "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no",
                         "-o", "UserKnownHostsFile=/dev/null", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes"]
        for forward in forwards { arguments += ["-R", forward] }
        arguments += ["\(user)@127.0.0.1", command]
        return try ProcessResult.run("/usr/bin/ssh", arguments, standardInput: nil,
                                     environment: ProcessInfo.processInfo.environment, scratch: directory, timeout: timeout)
    }

    private static func accepts(_ port: UInt16) -> Bool {
        guard let fd = LoopbackTCP.connect(port: port) else { return false }
        close(fd)
        return true
    }

    /// A port the kernel just handed out on 127.0.0.1 (bound to 0, then closed).
    private static func freePort() throws -> UInt16 { try LoopbackTCP.freePort() }
}
