import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Tests signal agents they did not spawn (a detached agent, one the bus
/// started) through `DetachedProcess`: a pidfd, so a signal sent after the
/// process ended reaches nothing — a bare kill(pid) in a cleanup once killed
/// another test's server that had been given the same pid.
@Suite(.ownThreads) struct DetachedProcessTests {
    @Test func onlyTheProcessItWasOpenedForIsSignalled() throws {
        let directory = try TemporaryDirectory.make(prefix: "detached")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let marker = "DETACHED_TEST_MARKER=\(UUID().uuidString)"
        var environment = ProcessInfo.processInfo.environment
        environment["DETACHED_TEST_MARKER"] = String(marker.split(separator: "=")[1])
        let sleeper = try RunningProcess("/bin/sleep", ["600"], environment: environment, directory: directory, name: "sleep")
        defer { sleeper.stop(signal: SIGKILL) }
        // Until its exec has set up the new image, the child's /proc shows
        // nothing or our own environment: posix_spawn's parent is woken inside
        // execve, before the new argument and environment pages exist. No
        // event marks that moment, so this one wait looks again on a timer.
        try sleeper.waitUntil("sleep has started", timeout: 30) {
            TextFile.read("/proc/\(sleeper.pid)/cmdline").hasPrefix("/bin/sleep\0")
        }

        #expect(DetachedProcess(pid: sleeper.pid, environmentEntry: "DETACHED_TEST_MARKER=other") == nil,
                "a process whose environment lacks the entry is not opened")
        let held = try #require(DetachedProcess(pid: sleeper.pid, environmentEntry: marker))
        #expect(!held.hasEnded)
        #expect(held.signal(SIGTERM))
        #expect(held.waitForEnd(timeout: 10))
        #expect(sleeper.stop() == 128 + SIGTERM)
        // Reaped: the pid is free for anyone, and the held process is gone.
        #expect(!held.signal(SIGKILL), "a signal after the end reaches nothing")
        #expect(DetachedProcess(pid: sleeper.pid, environmentEntry: marker) == nil)
    }
}
