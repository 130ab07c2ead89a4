import Foundation
import Testing
import TestSupport

/// Every program answers `--version` with its release and the git commit it
/// was built from (Plugins/BuildCommit), and a tree that is not a git
/// checkout says "unknown".
@Suite(.ownThreads) struct VersionTests {
    static let programs = ["passkey", "passkey-local", "passkey-agent", "passkey-demo", "passkey-devserver", "passkey-vcard"]

    @Test("--version: the program, its release and a commit of this repository", arguments: programs)
    func version(_ program: String) throws {
        let scratch = try TemporaryDirectory.make(prefix: "version")
        defer { TemporaryDirectory.remove(scratch) }
        let result = try ProcessResult.run(try ProgramPaths.built(program), ["--version"], standardInput: nil,
                                           environment: ProcessInfo.processInfo.environment, scratch: scratch, timeout: 60)
        #expect(result.status == 0, "\(program) --version: \(result.standardError)")
        let line = result.standardOutput.trimmingCharacters(in: .newlines)
        let prefix = "\(program) 0.1.0 (commit "
        #expect(line.hasPrefix(prefix) && line.hasSuffix(")"), "\(line)")
        guard line.hasPrefix(prefix), line.hasSuffix(")") else { return }
        var commit = String(line.dropFirst(prefix.count).dropLast())
        if commit.hasSuffix("+") { commit.removeLast() }  // built from a tree with uncommitted changes
        #expect(commit.count == 12 && commit.allSatisfy(\.isHexDigit), "12 hex digits, not \(commit)")
        let known = try ProcessResult.run("/usr/bin/git", ["-C", Interop.packageRoot, "cat-file", "-e", commit + "^{commit}"],
                                          standardInput: nil, environment: ProcessInfo.processInfo.environment,
                                          scratch: scratch, timeout: 60)
        #expect(known.status == 0, "\(commit) is a commit of this repository")
    }

    @Test("the commit script: a tree that is not a git checkout is \"unknown\"; a checkout gives its HEAD")
    func commitScript() throws {
        let scratch = try TemporaryDirectory.make(prefix: "build-commit")
        defer { TemporaryDirectory.remove(scratch) }
        let script = Interop.packageRoot + "/Plugins/BuildCommit/build-commit"
        let environment = ProcessInfo.processInfo.environment
        let tarball = scratch + "/unpacked"
        try FileManager.default.createDirectory(atPath: tarball, withIntermediateDirectories: true)
        let outside = try ProcessResult.run("/bin/sh", [script, tarball, scratch + "/out1"], standardInput: nil,
                                            environment: environment, scratch: scratch, timeout: 60)
        #expect(outside.status == 0)
        #expect(try String(contentsOfFile: scratch + "/out1/GeneratedCommit.swift", encoding: .utf8) == "let generatedCommit = \"unknown\"\n")

        let inside = try ProcessResult.run("/bin/sh", [script, Interop.packageRoot, scratch + "/out2"], standardInput: nil,
                                           environment: environment, scratch: scratch, timeout: 60)
        #expect(inside.status == 0)
        let head = try ProcessResult.run("/usr/bin/git", ["-C", Interop.packageRoot, "rev-parse", "--short=12", "HEAD"], standardInput: nil,
                                         environment: environment, scratch: scratch, timeout: 60)
        let written = try String(contentsOfFile: scratch + "/out2/GeneratedCommit.swift", encoding: .utf8)
        #expect(written.hasPrefix("let generatedCommit = \"\(head.standardOutput.trimmingCharacters(in: .newlines))"), "\(written)")
    }
}
