import CSpawn
#if canImport(Glibc)
import Glibc
#endif

/// A helper program with its stdin and stdout on pipes (pinentry).
/// posix_spawn keeps the CLI free of Foundation's Process.
public final class PipedProcess {
    private let pid: pid_t
    private let input: Int32
    private let output: Int32
    private var buffer: [UInt8] = []

    public init?(program: String, arguments: [String]) {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        // Close-on-exec from the start: another thread's spawn must not inherit them.
        guard pipe2(&toChild, O_CLOEXEC) == 0 else { return nil }
        guard pipe2(&fromChild, O_CLOEXEC) == 0 else { close(toChild[0]); close(toChild[1]); return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        // Nothing else of ours: not the agent's client connections, which
        // NIO accepts inheritable (CSpawn/shim.h).
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawnp(&child, program, &actions, nil, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else { close(toChild[1]); close(fromChild[0]); return nil }
        pid = child
        input = toChild[1]
        output = fromChild[0]
    }

    public func writeLine(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(input, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }

    public func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 1024)
            let n = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    public func finish() {
        close(input)
        close(output)
        for i in buffer.indices { buffer[i] = 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
