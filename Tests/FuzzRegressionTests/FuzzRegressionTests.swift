import FuzzTargets
import Testing

/// Every input the fuzz targets keep — the seed corpora and each input that
/// once crashed a parser — replayed through the plain (uninstrumented) build,
/// so a fixed crash cannot come back unnoticed and a target cannot lose its seeds.
@Suite struct FuzzRegressionTests {
    static let fuzzFolder: String = {
        // Tests/FuzzRegressionTests/FuzzRegressionTests.swift → the package root.
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/Fuzz"
    }()

    static let targetNames = FuzzTargets.all.map(\.name)

    @Test("seed corpus and regression inputs replay without a finding", arguments: targetNames)
    func replaysKeptInputs(name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let seeds = CorpusFiles.list("\(Self.fuzzFolder)/Corpus/\(name)")
        #expect(seeds.count >= 3, "Fuzz/Corpus/\(name) holds \(seeds.count) seed(s); run `passkey-fuzz seeds Fuzz/Corpus \(name)`")
        let regressions = CorpusFiles.list("\(Self.fuzzFolder)/Regressions/\(name)")
        for path in seeds + regressions {
            let bytes = try #require(CorpusFiles.read(path), "cannot read \(path)")
            #expect(bytes.count <= target.maximumLength, "\(path) is longer than the target's -max_len")
            #expect(throws: Never.self, "\(path)") { try target.run(bytes) }
        }
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
