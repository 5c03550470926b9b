import Foundation
import Testing

/// The bounded run of `Tests/Drills/crash_states.py` (Docs/Reliability.md, "Crash states explored"):
/// the system calls of `register` with an image, `login`, `account change-password`, `account
/// reset-password`, `account delete` and `recover` recorded with strace, and the crash states the
/// model allows after each call materialized, recovered and checked. Bounded to 30 states per
/// command, spread round robin over every crash point of its trace; the full run is documented.
/// Nothing is skipped: without strace the test fails and says so (`.ci/run` installs it).
@Suite struct CrashStatesDrillTests {
    /// Where `name` is on `PATH`, if anywhere.
    private static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    @Test func boundedCrashStatesHaveNoViolation() throws {
        try #require(Self.onPath("strace") != nil, "strace is not installed: the crash-state drill needs it (apt-get install strace; .ci/run installs it)")
        let result = try run(Paths.python3, [Paths.repo("Tests/Drills/crash_states.py"), Paths.ledger, "--bounded", "30", "--verbose"])
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.hasPrefix("explored "), "\(result)")
        #expect(summary.hasSuffix(" 0 violations") && result.status == 0, "\(result)")
        for command in ["register", "login", "change-password", "reset-password", "delete", "recover"] {
            #expect(result.stdout.contains("\(command): "), "\(command) was explored: \(result)")
        }
    }
}
