import Foundation
import LedgerCLI
import Testing

/// Help generated from the command definitions, close-match suggestions, and one-line errors that
/// say what is wrong and what to do.
struct HelpAndErrorsCLITests {
    /// Runs `ledger` in a fresh temp directory (so `./ledger-data` is empty there) with `LEDGER_DATA` unset.
    static func ledgerInTemp(_ arguments: [String], stdin: String? = nil) throws -> ProcessResult {
        try withTempDirectory { dir in try run(Paths.ledger, arguments, stdin: stdin, env: ["LEDGER_DATA": ""], cwd: dir) }
    }

    @Test func helpCommandEqualsCommandDashDashHelp() throws {
        for spec in LedgerCLI.specs {
            let viaHelp = try Self.ledgerInTemp(["help", spec.name])
            let viaFlag = try Self.ledgerInTemp([spec.name, "--help"])
            #expect(viaHelp.status == 0 && viaFlag.status == 0, "\(spec.name)")
            #expect(viaHelp.stdout == viaFlag.stdout, "\(spec.name)")
            #expect(viaHelp.stdout == spec.help + "\n")
            for option in spec.allOptions { #expect(viaHelp.stdout.contains("--\(option.name)"), "\(spec.name) --\(option.name)") }
        }
        #expect(LedgerCLI.specs.contains { $0.name == "completions" })
        let events = try #require(LedgerCLI.specs.first { $0.name == "events" })
        #expect(events.usage.hasSuffix("[--json] [--follow]"))
    }

    @Test func versionAndOverview() throws {
        let version = try Self.ledgerInTemp(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "ledger \(LedgerCLI.version)\n")
        let overview = try Self.ledgerInTemp(["--help"])
        #expect(overview.stdout.contains("  completions "))
        #expect(overview.stdout.contains("--version"))
        #expect(try Self.ledgerInTemp(["help"]).stdout == overview.stdout)
    }

    @Test func closeMatchesAreSuggested() throws {
        let cases: [([String], String)] = [
            (["replya"], "did you mean `replay`?"),
            (["complitions", "bash"], "did you mean `completions`?"),
            (["help", "evnts"], "did you mean `events`?"),
            (["--verison"], "did you mean --version?"),
            (["events", Paths.demoLog, "--folow"], "did you mean --follow?"),
            (["users", "--lgo", Paths.demoLog], "did you mean --log?"),
            (["completions", "bsah"], "did you mean bash?"),
            (["events", Paths.demoLog, "--type", "SessionStarte"], "did you mean SessionStarted?"),
        ]
        for (arguments, suggestion) in cases {
            let result = try Self.ledgerInTemp(arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderrLines.count == 1, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix("ledger: "))
            #expect(result.stderr.contains(suggestion), "\(arguments): \(result.stderr)")
        }
    }

    /// Each error names the problem and the way out, on one line, with the documented status.
    @Test func errorsSayWhatToDo() throws {
        let cases: [([String], Int32, String)] = [
            (["events", "/nonexistent/events.jsonl"], 3, "`ledger register` starts a new one"),
            (["verify"], 3, "pass the log as FILE or its folder as --data DIR"),
            (["verify", "-x"], 2, "see `ledger verify --help`"),
            (["verify", "--zzzzzz"], 2, "see `ledger verify --help`"),
            (["user"], 2, "(usage: ledger user UID|EMAIL"),
            (["verify", Paths.demoLog, "extra"], 2, "(usage: ledger verify [FILE] [--expect SEQ:HASH] [--keys FILE] [--migrated-from LOG] [--signed-head FILE] [--vkey FILE] [--witness-vkey FILE] [--json])"),
            (["verify", "--json=yes", Paths.demoLog], 2, "write --json alone"),
            (["events", Paths.demoLog, "--limit"], 2, "--limit needs a value: --limit N"),
            (["completions"], 2, "needs SHELL"),
            (["completions", "tcsh"], 2, "expected one of: bash, zsh, fish"),
            (["user", "nobody@example.com", "--log", Paths.demoLog], 1, "list them with `ledger users`"),
            (["login"], 2, "`ledger login` needs --email E"),
            (["logout", "--data", "/nonexistent"], 2, "`ledger sessions --active`"),
            (["--data", "x", "users"], 2, "options go after the command"),
        ]
        for (arguments, status, advice) in cases {
            let result = try Self.ledgerInTemp(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.stderrLines.count == 1, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix("ledger: "), "\(arguments)")
            #expect(result.stderr.contains(advice), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aPasswordOnEmptyStandardInputSaysWhereItGoes() throws {
        try withTempDirectory { dir in
            let result = try run(Paths.ledger, ["login", "--email", "a@example.com", "--password-stdin", "--data", dir], stdin: "")
            #expect(result.status == 2, "\(result)")
            #expect(result.stderrLines == ["ledger: --password-stdin: standard input is empty; write the password as its first line"])
        }
    }

    @Test func aBadEnvironmentVariableIsNamed() throws {
        try withTempDirectory { dir in
            let result = try run(Paths.ledger, ["login", "--email", "a@example.com", "--password-stdin", "--data", dir],
                                 stdin: "pw\n", env: ["LEDGER_HASH_COST": "99"])
            #expect(result.status == 2, "\(result)")
            #expect(result.stderrLines.count == 1)
            #expect(result.stderr.contains("fix or unset LEDGER_HASH_COST"), "\(result)")
        }
    }
}
