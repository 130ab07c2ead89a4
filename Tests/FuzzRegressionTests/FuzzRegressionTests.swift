import FuzzTargets
import Testing
import TestSupport

/// Every input the fuzz targets keep — the seed corpora and each input that
/// once crashed a parser — replayed through the plain (uninstrumented) build,
/// so a fixed crash cannot come back unnoticed and a target cannot lose its seeds.
@Suite(.ownThreads) struct FuzzRegressionTests {
    static let fuzzFolder: String = {
        // Tests/FuzzRegressionTests/FuzzRegressionTests.swift → the package root.
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/Fuzz"
    }()

    static let targetNames = FuzzTargets.all.map(\.name)

    /// Runs in a child process (an exit test): an input that traps again
    /// fails this test alone instead of ending the whole test run.
    @Test("seed corpus and regression inputs replay without a crash or finding", arguments: targetNames)
    func replaysKeptInputs(name: String) async throws {
        let paths = Self.keptInputs(of: name)
        #expect(CorpusFiles.list("\(Self.fuzzFolder)/Corpus/\(name)").count >= 3,
                "Fuzz/Corpus/\(name) needs at least 3 seeds; run `passkey-fuzz seeds Fuzz/Corpus \(name)`")
        let replay = "to see which input: swift build --product passkey-fuzz && .build/debug/passkey-fuzz \(name) Fuzz/Corpus/\(name) Fuzz/Regressions/\(name)"
        await #expect(processExitsWith: .success, Comment(rawValue: replay)) { [name = name as String, paths = paths as [String]] in
            guard let target = FuzzTargets.named(name) else { fatalError("no fuzz target \(name)") }
            for path in paths {
                guard let bytes = CorpusFiles.read(path) else { fatalError("cannot read \(path)") }
                guard bytes.count <= target.maximumLength else { fatalError("\(path) is longer than -max_len \(target.maximumLength)") }
                do { try target.run(bytes) } catch { fatalError("\(path): \(error)") }
            }
        }
    }

    /// The seeds and regression inputs of a target.
    static func keptInputs(of name: String) -> [String] {
        CorpusFiles.list("\(fuzzFolder)/Corpus/\(name)") + CorpusFiles.list("\(fuzzFolder)/Regressions/\(name)")
    }

    @Test("seeds made by the real code now run without a finding", arguments: targetNames)
    func freshSeedsRun(name: String) async throws {
        let target = try #require(FuzzTargets.named(name))
        let seeds = try await target.seeds()
        #expect(!seeds.isEmpty)
        for seed in seeds {
            #expect(seed.bytes.count <= target.maximumLength, "seed \(seed.name) is longer than the target's -max_len")
            #expect(throws: Never.self, "seed \(seed.name)") { try target.run(seed.bytes) }
        }
    }
}

