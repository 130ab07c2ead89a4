import Foundation
import Locking
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What every other local user can read: each process's /proc/PID/cmdline,
/// read over and over on a thread of its own while a test runs, recording
/// every process whose command line holds `needle` (a binding token).
/// There is no event to wait for — a command line is there only while its
/// process lives — so the watch samples /proc in a loop, with a 1 ms pause
/// between passes to leave the test's programs a core.
final class CommandLineWatch: @unchecked Sendable {
    struct Sighting: Sendable, CustomStringConvertible {
        let pid: pid_t
        let commandLine: String
        var description: String { "pid \(pid): \(commandLine)" }
    }

    private let needle: [UInt8]
    private let state = Locked<(running: Bool, passes: Int, sightings: [pid_t: Sighting])>((true, 0, [:]))
    private var thread: BackgroundThread?

    init(needle: String) throws {
        self.needle = Array(needle.utf8)
        thread = try BackgroundThread { [self] in
            while state.withLock({ $0.running }) {
                let found = Self.pass(looking: self.needle)
                state.withLock { state in
                    state.passes += 1
                    for sighting in found { state.sightings[sighting.pid] = sighting }
                }
                usleep(1000)
            }
        }
    }

    /// Full passes over /proc so far.
    var passes: Int { state.withLock { $0.passes } }

    /// The processes seen with the needle on their command line.
    var sightings: [Sighting] { state.withLock { Array($0.sightings.values) } }

    func stop() {
        state.withLock { $0.running = false }
        thread?.join()
        thread = nil
    }

    deinit { if thread != nil { stop() } }

    private static func pass(looking needle: [UInt8]) -> [Sighting] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var found: [Sighting] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = pid_t(name) else { continue }
            let bytes = commandLine(of: pid)
            if contains(bytes, needle) {
                found.append(Sighting(pid: pid, commandLine: String(decoding: bytes.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)))
            }
        }
        return found
    }

    private static func commandLine(of pid: pid_t) -> [UInt8] {
        let file = open("/proc/\(pid)/cmdline", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return [] }
        defer { close(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
