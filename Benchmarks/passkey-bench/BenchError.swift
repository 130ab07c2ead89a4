/// Why a benchmark could not run. Each case says what to do about it.
enum BenchError: Error, CustomStringConvertible {
    /// A program the benchmark runs is not built or not installed.
    case missingProgram(String, hint: String)
    /// A step of the benchmark failed; `reason` is the underlying error's own line.
    case stepFailed(String, reason: String)
    /// A command-line value is out of range.
    case invalidOption(String)

    var description: String {
        switch self {
        case .missingProgram(let program, let hint):
            return "\(program) is not there; \(hint)"
        case .stepFailed(let step, let reason):
            return "\(step) failed: \(reason)"
        case .invalidOption(let text):
            return text
        }
    }

    /// Runs `body`, reporting any failure as the step `step`.
    static func during<T>(_ step: String, _ body: () throws -> T) throws(BenchError) -> T {
        do { return try body() } catch let error as BenchError { throw error } catch {
            throw .stepFailed(step, reason: "\(error)")
        }
    }

    /// `during` for work that awaits.
    static func awaiting<T>(_ step: String, _ body: () async throws -> T) async throws(BenchError) -> T {
        do { return try await body() } catch let error as BenchError { throw error } catch {
            throw .stepFailed(step, reason: "\(error)")
        }
    }
}
