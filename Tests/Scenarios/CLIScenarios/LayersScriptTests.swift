import Foundation
import Testing
import TestSupport

/// scripts/layers on a throwaway package: a target's Swift files import
/// another package's module only through a product the target declares, and
/// only the modules of that product's own targets (a module the product's
/// targets depend on is not declared by naming the product). System modules
/// (Foundation, Glibc) are no package's and pass. A target under Sources/
/// neither depends on nor imports a Simulators/ target. No network: the other
/// package is a path dependency, whose manifest `swift package dump-package`
/// reads without resolving anything.
@Suite(.ownThreads) struct LayersScriptTests {
    /// `stand-in/`: a package whose product `Crypto` is the target Crypto, which
    /// depends on CryptoCore (in no product). `app/`: a package depending on it,
    /// with two targets in the Wire layer; Encoding declares `encoding`, and
    /// `more` adds targets after them.
    static func packages(encoding: String, more: String = "", sources: [String: String]) throws -> String {
        let root = try TemporaryDirectory.make(prefix: "layers")
        let standIn = """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(
                name: "stand-in",
                products: [.library(name: "Crypto", targets: ["Crypto"])],
                targets: [.target(name: "CryptoCore"), .target(name: "Crypto", dependencies: ["CryptoCore"])]
            )
            """
        let app = """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(
                name: "app",
                dependencies: [.package(path: "../stand-in")],
                targets: [
                    .target(name: "Encoding", dependencies: \(encoding), path: "Sources/Wire/Encoding"),
                    .target(name: "Signing", dependencies: [.product(name: "Crypto", package: "stand-in")], path: "Sources/Wire/Signing"),
                    \(more)
                ]
            )
            """
        var files = ["stand-in/Package.swift": standIn, "app/Package.swift": app,
                     "stand-in/Sources/CryptoCore/Core.swift": "public let core = 1\n",
                     "stand-in/Sources/Crypto/Crypto.swift": "public let crypto = 1\n"]
        files.merge(sources) { _, new in new }
        for (path, text) in files {
            let file = root + "/" + path
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: file, atomically: false, encoding: .utf8)
        }
        return root
    }

    static func layers(_ root: String) throws -> ProcessResult {
        try ProcessResult.run(Interop.packageRoot + "/scripts/layers", [root + "/app"], standardInput: nil,
                              environment: ProcessInfo.processInfo.environment, scratch: root, timeout: 60)
    }

    @Test("an undeclared import of another package's module fails, naming the file, the module and the product to declare")
    func undeclaredExternalImportFails() throws {
        let root = try Self.packages(encoding: "[]", sources: [
            "app/Sources/Wire/Encoding/Encoding.swift": "import Foundation\nimport Crypto\n\npublic let encoding = 1\n",
            "app/Sources/Wire/Signing/Signing.swift": "import Glibc\nimport Crypto\n@_implementationOnly import CryptoCore\n\npublic let signing = 1\n",
        ])
        defer { TemporaryDirectory.remove(root) }
        let result = try Self.layers(root)
        #expect(result.status == 1, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines == [
            #"scripts/layers: Sources/Wire/Encoding/Encoding.swift: imports Crypto (of stand-in), which Encoding declares no product for: declare .product(name: "Crypto", package: "stand-in")"#,
            "scripts/layers: Sources/Wire/Signing/Signing.swift: imports CryptoCore (of stand-in), which Signing declares no product for: no product of stand-in provides it",
        ], "\(result.standardError)")
    }

    @Test("the same imports pass once the product is declared, and system modules need nothing")
    func declaredExternalImportPasses() throws {
        let root = try Self.packages(encoding: #"[.product(name: "Crypto", package: "stand-in")]"#, sources: [
            "app/Sources/Wire/Encoding/Encoding.swift": "import Foundation\nimport Crypto\n\npublic let encoding = 1\n",
            "app/Sources/Wire/Signing/Signing.swift": "import Glibc\nimport Crypto\n\npublic let signing = 1\n",
        ])
        defer { TemporaryDirectory.remove(root) }
        let result = try Self.layers(root)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
    }

    @Test("a target under Sources/ that depends on and imports a Simulators/ target fails; the simulator may use Sources")
    func sourcesUsingASimulatorFails() throws {
        let root = try Self.packages(encoding: #"["FakeServer"]"#,
                                     more: #".target(name: "FakeServer", dependencies: ["Signing"], path: "Simulators/FakeServer"),"#,
                                     sources: [
            "app/Sources/Wire/Encoding/Encoding.swift": "import FakeServer\n\npublic let encoding = 1\n",
            "app/Sources/Wire/Signing/Signing.swift": "public let signing = 1\n",
            "app/Simulators/FakeServer/FakeServer.swift": "import Signing\n\npublic let fake = signing\n",
        ])
        defer { TemporaryDirectory.remove(root) }
        let result = try Self.layers(root)
        #expect(result.status == 1, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines == [
            "scripts/layers: Encoding (Sources/Wire) depends on FakeServer (Simulators), which no target under Sources/ may use: what ships carries no simulators",
            "scripts/layers: Sources/Wire/Encoding/Encoding.swift: imports FakeServer (Simulators), which no target under Sources/ may use: what ships carries no simulators",
        ], "\(result.standardError)")
    }
}
