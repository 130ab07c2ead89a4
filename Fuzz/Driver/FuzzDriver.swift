#if FUZZING
import FuzzTargets
import StandardError

#if canImport(Glibc)
import Glibc
#endif

/// libFuzzer's entry for a program that has its own `main` (SwiftPM gives every
/// executable one): it parses the flags in argv and calls `callback` per input.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The target this process fuzzes; set once before libFuzzer starts.
nonisolated(unsafe) private var selected: FuzzTarget?

enum FuzzDriver {
    /// The environment variable that names the target. libFuzzer re-runs its
    /// own command line for -fork/-jobs/-minimize_crash, which would lose a
    /// target given as an argument, so an argument is moved here.
    static let targetVariable = "PASSKEY_FUZZ_TARGET"

    static func runLibFuzzer() throws -> Never {
        var arguments = CommandLine.arguments
        if arguments.count == 2, arguments[1] == "--list" {
            for target in FuzzTargets.all { print("\(target.name)\t\(target.maximumLength)\t\(target.summary)") }
            exit(0)
        }
        if arguments.count > 1, FuzzTargets.named(arguments[1]) != nil {
            setenv(targetVariable, arguments.remove(at: 1), 1)
        }
        guard let name = getenv(targetVariable).map({ String(cString: $0) }), let target = FuzzTargets.named(name) else {
            let names = FuzzTargets.all.map(\.name).joined(separator: " ")
            StandardError.writeLine("usage: passkey-fuzz TARGET [libFuzzer flags] [corpus dirs]   (or \(targetVariable)=TARGET)\ntargets: \(names)")
            exit(2)
        }
        selected = target
        var argc = Int32(arguments.count)
        var cStrings: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let status = cStrings.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
                do {
                    try selected!.run(bytes)
                } catch {
                    // A broken promise is a crash to libFuzzer: it keeps the input.
                    fatalError("fuzz target \(selected!.name): \(error)")
                }
                return 0
            }
        }
        exit(status)
    }
}
#endif
