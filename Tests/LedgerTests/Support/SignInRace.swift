import Foundation
import Testing

// MARK: - Parallel sign-ins

/// Runs `count` `ledger login` processes for `email` with `password` as nearly at once as the
/// machine allows: each starts, waits for a start file, then becomes `ledger login … ARGS`
/// (`arguments`: e.g. `--data DIR`, `--store URL`); the start file appears once all are waiting.
func raceLogins(_ count: Int, email: String, password: String, arguments: [String]) throws -> [ProcessResult] {
    try raceLedger(Array(repeating: (["login", "--email", email, "--password-stdin", "--json"] + arguments, password + "\n"), count: count))
}

/// Runs one `ledger ARGS` process per run (its arguments and standard input) as nearly at once as
/// the machine allows: each starts, waits for a start file, then becomes `ledger ARGS`; the start
/// file appears once all are waiting. Results in the order of `runs`.
func raceLedger(_ runs: [(arguments: [String], stdin: String?)]) throws -> [ProcessResult] {
    try withTempDirectory("ledger-race") { folder in
        let go = folder + "/go"
        let script = #"while [ ! -e "$0" ]; do sleep 0.01; done; exec "$@""#
        let running = try runs.map { run in
            try start("/bin/sh", ["-c", script, go, Paths.ledger] + run.arguments, stdin: run.stdin, env: fastHashEnvironment)
        }
        try writeBytes([], to: go)
        return try running.map { try $0.wait() }
    }
}

/// The reasons of the `SignInFailed` events for `email` in `events` (a log's lines, parsed, their
/// personal members opened: `LedgerDir.events()`, `LifecycleStore.events`), in log order.
func signInReasons(in events: [[String: Any]], email: String) -> [String] {
    events.compactMap { event in
        guard event["type"] as? String == "SignInFailed", let data = event["data"] as? [String: Any],
              data["email"] as? String == email else { return nil }
        return data["reason"] as? String
    }
}

/// The checks of a lockout race: `count` wrong passwords at once, then the right one, left at most
/// the policy's five password checks (`wrong-password`), every other attempt refused as `locked`,
/// the right password refused too, and no session started by any of them.
func expectLockoutHeld(count: Int, results: [ProcessResult], right: ProcessResult, reasons: [String], sessionsStarted: Int,
                       sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(results.allSatisfy { $0.status == 1 }, "\(results.first { $0.status != 1 }.map { "\($0)" } ?? "")",
            sourceLocation: sourceLocation)
    #expect(Set(results.map(\.stdout)).count == 1, "every refusal looks the same", sourceLocation: sourceLocation)
    #expect(reasons.filter { $0 == "wrong-password" }.count == 5, "\(reasons)", sourceLocation: sourceLocation)
    #expect(reasons.filter { $0 == "locked" }.count == count + 1 - 5, "\(reasons)", sourceLocation: sourceLocation)
    #expect(reasons.count == count + 1, "\(reasons)", sourceLocation: sourceLocation)
    #expect(reasons.last == "locked", "the right password comes to a locked account", sourceLocation: sourceLocation)
    #expect(right.status == 1, "\(right)", sourceLocation: sourceLocation)
    #expect(right.stdout == results.first?.stdout, "a locked account looks like any refusal", sourceLocation: sourceLocation)
    #expect(sessionsStarted == 1, "only the registration's session", sourceLocation: sourceLocation)
}
