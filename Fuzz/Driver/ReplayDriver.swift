#if !FUZZING
import FuzzTargets
import StandardError
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// `passkey-fuzz` without libFuzzer: replays inputs (a crash found by a long
/// run reproduces here, in a plain debug build, under a debugger) and writes
/// the seed corpora from real code.
enum ReplayDriver {
    static let usage = """
        usage: passkey-fuzz --list
               passkey-fuzz TARGET FILE|DIR...     replay inputs through TARGET
               passkey-fuzz seeds DIR [TARGET...]  write seed corpora to DIR/<target>/
        The libFuzzer build is made and run by scripts/fuzz.
        """

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let first = arguments.first else { fail(usage) }
        switch first {
        case "--list":
            for target in FuzzTargets.all { print("\(target.name)\t\(target.maximumLength)\t\(target.summary)") }
        case "seeds":
            guard arguments.count >= 2 else { fail(usage) }
            await writeSeeds(to: arguments[1], only: Array(arguments.dropFirst(2)))
        default:
            guard let target = FuzzTargets.named(first), arguments.count >= 2 else { fail(usage) }
            replay(target, paths: Array(arguments.dropFirst()))
        }
    }

    static func replay(_ target: FuzzTarget, paths: [String]) {
        var count = 0
        for path in paths.flatMap(CorpusFiles.list) {
            // Said first: if the input traps, this is the last line before the crash report.
            StandardError.writeLine("replaying \(path)")
            guard let bytes = CorpusFiles.read(path) else { fail("cannot read \(path)") }
            do {
                try target.run(bytes)
            } catch {
                fail("\(path): \(error)")
            }
            count += 1
        }
        print("\(target.name): \(count) input(s) replayed, no finding")
    }

    static func writeSeeds(to directory: String, only names: [String]) async {
        for target in FuzzTargets.all where names.isEmpty || names.contains(target.name) {
            let folder = directory + "/" + target.name
            let seeds: [Seed]
            do { seeds = try await target.seeds() } catch { fail("\(target.name): cannot make seeds: \(error)") }
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for seed in seeds {
                    try Data(seed.bytes).write(to: URL(fileURLWithPath: folder + "/" + seed.name))
                }
            } catch {
                fail("\(folder): \(error)")
            }
            print("\(target.name): \(seeds.count) seed(s) in \(folder)")
        }
    }

    static func fail(_ message: String) -> Never {
        StandardError.writeLine(message)
        exit(1)
    }
}
#endif
