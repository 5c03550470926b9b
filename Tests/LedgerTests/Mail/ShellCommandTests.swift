import Foundation
import Glibc
import LedgerKit
import Testing

// MARK: - ShellCommandTests

/// `ShellCommand`, the spawning the mailer and the witness command share: input and output flow at
/// once (no deadlock past a pipe's buffer), the output and error limits hold, a timeout kills the
/// command with what it started, and the exit, the signal and an unread input are told apart.
@Suite struct ShellCommandTests {
    /// A command with a bare environment.
    private func command(_ line: String) -> ShellCommand { ShellCommand(command: line, environment: ["PATH=/usr/bin:/bin"]) }

    @Test func inputAndOutputFlowAtOncePastAPipesBuffer() throws {
        let input = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let outcome = try command("cat").run(input: input, outputLimit: 1 << 20, errorLimit: 1024, timeout: 30)
        #expect(outcome.termination == .exited(0) && outcome.output == input && outcome.inputError == nil)
    }

    @Test func theOutputLimitStopsAFlood() throws {
        let started = Date()
        let outcome = try command("yes").run(input: [], outputLimit: 4096, timeout: 30)
        #expect(outcome.termination == .outputTooLarge && outcome.output.count <= 4096)
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func standardErrorIsKeptUpToItsLimitAndTheRestDropped() throws {
        let outcome = try command("head -c 100000 /dev/zero >&2; echo done").run(input: [], outputLimit: 64, errorLimit: 1000, timeout: 30)
        #expect(outcome.termination == .exited(0) && outcome.errors.count == 1000 && outcome.output == Array("done\n".utf8))
    }

    @Test func aTimeoutKillsTheCommandAndWhatItStarted() throws {
        try withTempDirectory { folder in
            let started = Date()
            let outcome = try command("sleep 30 & echo $! > '\(folder)/pid'; wait").run(input: [], outputLimit: 64, errorLimit: 64, timeout: 0.5)
            #expect(outcome.termination == .timedOut)
            #expect(Date().timeIntervalSince(started) < 10)
            let pid = try #require(Int32(try String(contentsOfFile: folder + "/pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            var gone = false
            for _ in 0..<100 where !gone {
                let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
                gone = state == nil || state == "Z"
                if !gone { usleep(10_000) }
            }
            #expect(gone, "the background sleep \(pid) outlived the timeout")
        }
    }

    @Test func exitsSignalsAndAnUnreadInputAreToldApart() throws {
        #expect(try command("cat > /dev/null; exit 7").run(input: [1, 2, 3]).termination == .exited(7))
        #expect(try command("kill -9 $$").run(input: [], outputLimit: 16, timeout: 30).termination == .killed(signal: 9))
        let unread = try command("exit 0").run(input: [UInt8](repeating: 0x41, count: 1 << 20), outputLimit: 16, timeout: 30)
        #expect(unread.termination == .exited(0) && unread.inputError == EPIPE)
    }

    @Test func theCommandSeesOnlyTheEnvironmentItIsGiven() throws {
        let outcome = try ShellCommand(command: "env", environment: ["PATH=/usr/bin:/bin", "ONLY=this"]).run(input: [], outputLimit: 65_536, timeout: 30)
        let seen = String(decoding: outcome.output, as: UTF8.self)
        let inherited = ProcessInfo.processInfo.environment.keys.filter { !["PATH", "PWD", "SHLVL", "_", "OLDPWD"].contains($0) }
        #expect(seen.contains("ONLY=this") && !inherited.contains { seen.contains("\n\($0)=") || seen.hasPrefix("\($0)=") }, "\(seen)")
    }
}
