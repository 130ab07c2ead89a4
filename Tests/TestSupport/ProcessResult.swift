import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a finished program printed and how it ended.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String

    /// Runs `executable` to completion (killing it after `timeout`), with
    /// stdin from a file holding `standardInput` (or /dev/null) and output
    /// captured through files, so large outputs cannot dead-lock a pipe.
    public static func run(_ executable: String, _ arguments: [String], standardInput: String?,
                           environment: [String: String], scratch: String,
                           timeout: TimeInterval) throws -> ProcessResult {
        let directory = try TemporaryDirectory.make(prefix: "run", in: scratch)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let inputPath = directory + "/stdin"
        try (standardInput ?? "").write(toFile: inputPath, atomically: true, encoding: .utf8)
        let outputPath = directory + "/stdout"
        let errorPath = directory + "/stderr"

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput == nil ? "/dev/null" : inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let pid = try PCSCHarness.spawn([executable] + arguments, environment: environment, actions: &actions)

        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        var finished = false
        while Date() < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { finished = true; break }
            usleep(10_000)
        }
        if !finished {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            throw HarnessError("\(executable) \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s")
        }
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ProcessResult(status: exitStatus,
                             standardOutput: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
                             standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }
}

/// Temporary directories (mode 0700) made with mkdtemp.
public enum TemporaryDirectory {
    public static func make(prefix: String, in parent: String? = nil) throws -> String {
        let base = parent ?? (ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let pointer = buffer.baseAddress else { return false }
            return mkdtemp(pointer) != nil
        }
        guard made else { throw HarnessError("mkdtemp in \(base): \(String(cString: strerror(errno)))") }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
