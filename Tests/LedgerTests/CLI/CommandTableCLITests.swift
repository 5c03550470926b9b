import Foundation
import LedgerCLI
import Testing

/// What the command table says a command needs: required options in `usage` and enforced by the
/// parser, the global options that apply, option values that are really values, and secrets that
/// never go on the command line.
struct CommandTableCLITests {
    private static func ledgerInTemp(_ arguments: [String], stdin: String? = nil) throws -> ProcessResult {
        try HelpAndErrorsCLITests.ledgerInTemp(arguments, stdin: stdin)
    }

    private static func spec(_ name: String) throws -> CommandSpec { try #require(LedgerCLI.specs.first { $0.name == name }) }

    @Test func requiredOptionsAreShownWithoutBracketsAndEnforced() throws {
        #expect(try Self.spec("report").usage.hasPrefix("ledger report --html FILE ["))
        #expect(try Self.spec("login").usage.hasPrefix("ledger login --email E ["))
        #expect(try Self.spec("logout").usage == "ledger logout --session ID [--json]")
        let cases: [([String], String)] = [
            (["report", "--log", Paths.demoLog], "`ledger report` needs --html FILE: "),
            (["report", "--log", Paths.demoLog, "--html="], "`ledger report` needs --html FILE: "),
            (["login", "--password-stdin"], "`ledger login` needs --email E: "),
            (["logout"], "`ledger logout` needs --session ID: the session id: list them with `ledger sessions --active`"),
            (["account", "change-email", "--email", "a@example.com", "--password-stdin"], "`ledger account change-email` needs --new-email N: "),
            (["account", "change-password"], "`ledger account change-password` needs --email E: "),
            (["account", "send-verification"], "`ledger account send-verification` needs --email E: "),
            (["account", "verify-email"], "`ledger account verify-email` needs --token-stdin: "),
        ]
        for (arguments, message) in cases {
            let result = try Self.ledgerInTemp(arguments, stdin: "")
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stderrLines.count == 1, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix("ledger: " + message), "\(arguments): \(result.stderr)")
        }
        // --help still works without them.
        #expect(try Self.ledgerInTemp(["report", "--help"]).status == 0)
    }

    /// Each account action's help line names the options it needs.
    @Test func accountActionsNameWhatTheyNeedInTheirHelpLine() throws {
        let help = try Self.spec("account").help
        for line in ["change-password --email E:", "change-email --email E --new-email N:", "send-verification, request-reset --email E:",
                     "verify-email, reset-password --token-stdin:"] {
            #expect(help.contains("\n" + line), "\(line)")
        }
    }

    @Test func completionsTakesNoDataOrStore() throws {
        let help = try Self.ledgerInTemp(["help", "completions"])
        #expect(!help.stdout.contains("--data") && !help.stdout.contains("--store"), "\(help.stdout)")
        #expect(help.stdout.contains("--help"))
        let result = try Self.ledgerInTemp(["completions", "bash", "--data", "x"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option --data for `ledger completions`"), "\(result.stderr)")
        #expect(try Self.spec("users").allOptions.contains { $0.name == "store" })
    }

    /// `help users` lists the columns the table prints.
    @Test func theUsersSummaryNamesTheTablesColumns() throws {
        let table = try Self.ledgerInTemp(["users", "--log", Paths.demoLog])
        let header = try #require(table.stdoutLines.first).split(separator: " ").map { $0.lowercased() }
        let summary = try Self.spec("users").summary
        let listed = try #require(summary.split(separator: "(").last?.dropLast()).split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(listed == header, "\(summary) vs \(header)")
    }

    @Test func anOptionIsNotTakenAsTheValueOfTheOneBefore() throws {
        try withLedgerDir { dir in
            let result = try dir.run(["register", "--email", "--username", "X", "--password-stdin"], stdin: "long enough password\n")
            #expect(result.status == 2, "\(result)")
            #expect(result.stderrLines == ["ledger: --email needs a value: --email E"])
            #expect(!FileManager.default.fileExists(atPath: dir.logPath), "nothing appended")
            let inline = try dir.run(["users", "--log", "--json=x"])
            #expect(inline.stderrLines == ["ledger: --log needs a value: --log FILE"], "\(inline)")
        }
        // A value that only looks like an option, and is none of the command's, is a value.
        let stream = try Self.ledgerInTemp(["events", Paths.demoLog, "--stream", "--not-an-option"])
        #expect(stream.status == 0, "\(stream)")
        #expect(stream.stdoutLines.last == "0 events", "\(stream)")
    }

    @Test func aSecretOnTheCommandLineIsRefusedWithoutEchoingIt() throws {
        let cases: [([String], String)] = [
            (["login", "--email", "a@example.com", "--password", "hunter2-secret"], "pass --password-stdin and write it to standard input"),
            (["register", "--password=hunter2-secret", "--email", "a@example.com"], "pass --password-stdin"),
            (["users", "--password", "hunter2-secret"], "`ledger users` takes no password"),
            (["account", "verify-email", "--token", "hunter2-secret"], "pass --token-stdin and write it to standard input"),
            (["logout", "--token=hunter2-secret"], "`ledger logout` takes no token"),
        ]
        for (arguments, advice) in cases {
            let result = try Self.ledgerInTemp(arguments + ["--json"])
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stderrLines.count == 1, "\(arguments): \(result)")
            #expect(result.stderr.contains(advice), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("hunter2") && !result.stdout.contains("hunter2"), "\(arguments): \(result)")
        }
    }
}
