import Foundation
import LedgerCLI
import LedgerDomain
import LedgerKit
import Testing

/// `ledger verify` and `ledger events`, end to end through the built binary.
struct VerifyEventsCLITests {
    static let demoHash = "90978856cb226b5f6aaf6147f7eae3a2a313288c4a3483ca237c5987c66b6ebf"

    /// The demo log's lines (without newlines), with their seq, type and stream.
    static func demoLines() throws -> [(text: String, seq: Int, type: String, stream: String)] {
        try readText(Paths.demoLog).split(separator: "\n").map { line in
            let object = try #require(try JSONReader.parse(String(line)).objectValue)
            return (String(line), object["seq"]!.intValue!, object["type"]!.stringValue!, object["stream"]!.stringValue!)
        }
    }

    /// Runs `ledger` in a fresh temp directory (so `./ledger-data` is empty there) with `LEDGER_DATA` unset.
    static func ledgerInTemp(_ arguments: String...) throws -> ProcessResult {
        try withTempDirectory { dir in try run(Paths.ledger, arguments, env: ["LEDGER_DATA": ""], cwd: dir) }
    }

    // MARK: - verify

    @Test func verifyOnTheDemoLog() throws {
        let human = try Self.ledgerInTemp("verify", Paths.demoLog)
        #expect(human.status == 0)
        #expect(human.stdout == "ok: 25 events, head 25:\(Self.demoHash)\n")
        #expect(human.stderr.isEmpty)

        let json = try Self.ledgerInTemp("verify", Paths.demoLog, "--json")
        #expect(json.status == 0)
        #expect(json.stdout == #"{"ok":true,"events":25,"head":{"seq":25,"hash":"\#(Self.demoHash)"},"anchor":"25:\#(Self.demoHash)","problems":[]}"# + "\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["ok", "events", "head", "anchor", "problems"])
        #expect(object["ok"] as? Bool == true)
        #expect(object["events"] as? Int == 25)
        let head = try #require(object["head"] as? [String: Any])
        #expect(Set(head.keys) == ["seq", "hash"])
        #expect(head["seq"] as? Int == 25)
        #expect(head["hash"] as? String == Self.demoHash)
        #expect((object["problems"] as? [Any])?.isEmpty == true)
    }

    @Test func verifyOnTheEditedSample() throws {
        let human = try Self.ledgerInTemp("verify", Paths.editedSample)
        #expect(human.status == 1)
        #expect(human.stdoutLines.first?.hasPrefix("line 9: bad-hash: ") == true, "\(human)")
        #expect(human.stdoutLines.last?.hasPrefix("NOT INTACT: first problem on line 9 (bad-hash); intact through seq 8 hash ") == true)

        let json = try Self.ledgerInTemp("verify", "--json", Paths.editedSample)
        #expect(json.status == 1)
        #expect(json.stdoutLines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["ok", "events", "head", "anchor", "problems"])
        #expect(object["ok"] as? Bool == false)
        #expect((object["head"] as? [String: Any])?["seq"] as? Int == 8)
        let problems = try #require(object["problems"] as? [[String: Any]])
        let first = try #require(problems.first)
        #expect(Set(first.keys) == ["line", "kind", "message"])
        #expect(first["line"] as? Int == 9)
        #expect(first["kind"] as? String == "bad-hash")
    }

    @Test func verifyOnTheTornSample() throws {
        let json = try Self.ledgerInTemp("verify", Paths.tornSample, "--json")
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let problems = try #require(object["problems"] as? [[String: Any]])
        #expect(problems.count == 1)
        #expect(problems.first?["line"] as? Int == 25)
        #expect(problems.first?["kind"] as? String == "torn-tail")
        let head = try #require(object["head"] as? [String: Any])
        #expect(head["seq"] as? Int == 24)
        #expect(head["hash"] as? String == "b2f1ee4329a9c4551770189b023adb80e8fb7245877260209439f1ef2db9b5ea")
    }

    /// Without FILE, verify reads `DIR/events.jsonl` from `--data`, else `$LEDGER_DATA`, else `./ledger-data`.
    @Test func verifyFindsTheLogInTheDataDirectory() throws {
        try withTempDirectory { dir in
            let store = try SamplesTests.writeEveryTypeLog(in: "\(dir)/ledger-data")
            let head = try store.head()
            let expected = "ok: \(head.seq) events, head \(head.anchor)\n"
            let viaFlag = try run(Paths.ledger, ["verify", "--data", "\(dir)/ledger-data"], env: ["LEDGER_DATA": ""])
            #expect(viaFlag.status == 0)
            #expect(viaFlag.stdout == expected)
            let viaEquals = try run(Paths.ledger, ["verify", "--data=\(dir)/ledger-data"], env: ["LEDGER_DATA": ""])
            #expect(viaEquals.stdout == expected)
            let viaEnvironment = try run(Paths.ledger, ["verify"], env: ["LEDGER_DATA": "\(dir)/ledger-data"])
            #expect(viaEnvironment.stdout == expected)
            let viaDefault = try run(Paths.ledger, ["verify"], env: ["LEDGER_DATA": ""], cwd: dir)
            #expect(viaDefault.stdout == expected)
        }
    }

    @Test(arguments: [["verify", "/nonexistent/events.jsonl"], ["verify", "--data", "/nonexistent"], ["verify"],
                      ["events", "/nonexistent/events.jsonl"], ["events", "--json"], ["verify", "--json", "/nonexistent/x.jsonl"]])
    func aMissingLogIsAnEnvironmentError(arguments: [String]) throws {
        let result = try withTempDirectory { dir in try run(Paths.ledger, arguments, env: ["LEDGER_DATA": ""], cwd: dir) }
        #expect(result.status == 3, "\(result)")
        #expect(arguments.contains("--json") ? !result.stdout.isEmpty && result.stdoutIsAFailuresOnly : result.stdout.isEmpty, "\(result)")
        #expect(result.stderrLines.count == 1)
        #expect(result.stderrLines.first?.hasPrefix("ledger: ") == true)
    }

    // MARK: - Usage errors and help

    @Test func usageErrorsExit2WithOneLine() throws {
        let cases: [([String], String)] = [
            (["verify", "--jsn", Paths.demoLog], "did you mean --json?"),
            (["verfy", Paths.demoLog], "did you mean `verify`?"),
            (["evnts"], "did you mean `events`?"),
            (["events", Paths.demoLog, "--limit", "abc"], "--limit needs a positive integer"),
            (["events", Paths.demoLog, "--limit", "0"], "--limit needs a positive integer"),
            (["events", Paths.demoLog, "--from", "-3"], "--from needs a positive integer"),
            (["events", Paths.demoLog, "--limit"], "--limit needs a value"),
            (["events", Paths.demoLog, "--type", "AccountCreatd"], "did you mean AccountCreated?"),
            (["verify", Paths.demoLog, "extra"], "unexpected argument"),
            (["verify", "--json=yes", Paths.demoLog], "takes no value"),
            (["verify", "-x"], "unknown option -x"),
        ]
        for (arguments, message) in cases {
            let result = try withTempDirectory { dir in try run(Paths.ledger, arguments, cwd: dir) }
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(arguments.contains { $0.hasPrefix("--json") } ? result.stdoutIsAFailuresOnly : result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderrLines.count == 1, "\(arguments): \(result)")
            #expect(result.stderrLines.first?.hasPrefix("ledger: ") == true, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test func everyCommandHasHelp() throws {
        #expect(LedgerCLI.specs.map(\.name).contains("verify"))
        #expect(LedgerCLI.specs.map(\.name).contains("events"))
        for spec in LedgerCLI.specs {
            for arguments in [[spec.name, "--help"], [spec.name, "-h"], ["help", spec.name]] {
                let result = try withTempDirectory { dir in try run(Paths.ledger, arguments, cwd: dir) }
                #expect(result.status == 0, "\(arguments): \(result)")
                #expect(result.stdout == spec.help + "\n", "\(arguments)")
                #expect(result.stdout.contains("Usage: ledger \(spec.name)"), "\(arguments)")
                #expect(result.stderr.isEmpty, "\(arguments)")
            }
        }
        let overview = try Self.ledgerInTemp("--help")
        #expect(overview.status == 0)
        for spec in LedgerCLI.specs { #expect(overview.stdout.contains("  \(spec.name) "), "\(spec.name) is listed") }
    }

    // MARK: - events

    @Test func eventsOfOneTypeAsRawLines() throws {
        let expected = try Self.demoLines().filter { $0.type == "AccountCreated" }.map(\.text)
        #expect(expected.count == 3)
        let result = try Self.ledgerInTemp("events", Paths.demoLog, "--type", "AccountCreated", "--json")
        #expect(result.status == 0)
        #expect(result.stdoutLines == expected)
        #expect(result.stderr.isEmpty)
    }

    @Test func eventsFilters() throws {
        let lines = try Self.demoLines()
        let stream = lines[0].stream
        func events(_ arguments: String...) throws -> [String] {
            let result = try run(Paths.ledger, ["events", Paths.demoLog, "--json"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            return result.stdoutLines
        }
        #expect(try events() == lines.map(\.text))
        #expect(try events("--stream", stream) == lines.filter { $0.stream == stream }.map(\.text))
        #expect(try events("--stream", stream).count == 3)
        #expect(try events("--from", "10") == lines.filter { $0.seq >= 10 }.map(\.text))
        #expect(try events("--from", "26").isEmpty)
        #expect(try events("--limit", "4") == Array(lines.prefix(4).map(\.text)))
        #expect(try events("--from", "5", "--limit", "2") == lines.filter { [5, 6].contains($0.seq) }.map(\.text))
        #expect(try events("--type", "SessionStarted", "--limit", "2") == Array(lines.filter { $0.type == "SessionStarted" }.prefix(2).map(\.text)))
        #expect(try events("--type", "SignInFailed", "--from", "17") == lines.filter { $0.type == "SignInFailed" && $0.seq >= 17 }.map(\.text))
        #expect(try events("--stream", "session-00000000-0000-4000-8000-000000000000").isEmpty)
    }

    @Test func eventsAsATable() throws {
        let result = try Self.ledgerInTemp("events", Paths.demoLog, "--type", "AccountCreated")
        #expect(result.status == 0)
        let rows = result.stdoutLines
        #expect(rows.first?.split(separator: " ", omittingEmptySubsequences: true) == ["SEQ", "AT", "TYPE", "STREAM"])
        #expect(rows.count == 5)
        #expect(rows.last == "3 events")
        let lines = try Self.demoLines().filter { $0.type == "AccountCreated" }
        for (row, line) in zip(rows.dropFirst(), lines) {
            #expect(row.split(separator: " ", omittingEmptySubsequences: true).first.map(String.init) == String(line.seq))
            #expect(row.hasSuffix(line.stream))
        }
    }

    @Test func eventsStopsAtDamage() throws {
        let lines = try Self.demoLines()
        let json = try Self.ledgerInTemp("events", Paths.editedSample, "--json")
        #expect(json.status == 1)
        #expect(json.stdoutLines == Array(lines.prefix(8).map(\.text)), "the events before line 9, as stored")
        #expect(json.stderrLines.count == 1)
        #expect(json.stderr.hasPrefix("ledger: line 9: bad-hash"))

        let table = try Self.ledgerInTemp("events", Paths.editedSample)
        #expect(table.status == 1)
        #expect(table.stdoutLines.last == "8 events")
    }

    @Test func eventsSkipsATornTailWithAWarning() throws {
        let lines = try Self.demoLines()
        let result = try Self.ledgerInTemp("events", Paths.tornSample, "--json")
        #expect(result.status == 0)
        #expect(result.stdoutLines == Array(lines.prefix(24).map(\.text)))
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("ledger: warning: line 25: torn-tail"))
    }
}
