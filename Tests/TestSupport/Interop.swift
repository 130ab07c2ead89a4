import Foundation
import Harness

/// Independent peers the tests check our output against. They are installed
/// by scripts/test (a Python virtual environment under .build/interop-venv).
public enum Interop {
    /// The package's root directory, from this file's path.
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static var python: String { packageRoot + "/.build/interop-venv/bin/python3" }

    /// Runs `Tests/Interop/<script>`; fails loudly when the verifier is not installed.
    public static func run(_ script: String, _ arguments: [String], scratch: String) throws -> ProcessResult {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw HarnessError("the independent verifier is not installed at \(python): run ./scripts/test, which installs it")
        }
        return try ProcessResult.run(python, [packageRoot + "/Tests/Interop/" + script] + arguments, standardInput: nil,
                                     environment: ProcessInfo.processInfo.environment, scratch: scratch, timeout: 60)
    }
}
