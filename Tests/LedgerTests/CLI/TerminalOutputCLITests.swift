import Foundation
@testable import LedgerCLI
import Testing

/// Human output on and off a terminal: colors only on a terminal without `NO_COLOR`, rows fitted
/// to the terminal's width there and nowhere else, ids never cut.
struct TerminalOutputCLITests {
    static let escape = "\u{1B}"

    /// Human (non-JSON) invocations over the shipped samples, covering tables, verify and audit.
    static let commands: [[String]] = [
        ["users", "--log", Paths.demoLog],
        ["sessions", "--log", Paths.demoLog],
        ["images", "--log", Paths.demoLog],
        ["audit", "--log", Paths.demoLog],
        ["events", Paths.demoLog],
        ["verify", Paths.demoLog],
        ["verify", Paths.editedSample],
        ["replay", Paths.demoLog],
    ]

    /// `text` without SGR escape sequences (`ESC [ … m`).
    static func stripped(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }

    @Test func aPipeGetsNoEscapeCodesAndNoFitting() throws {
        for arguments in Self.commands {
            // `COLUMNS` means nothing when standard output is not a terminal.
            let narrow = try run(Paths.ledger, arguments, env: ["NO_COLOR": "", "COLUMNS": "20"])
            #expect(!narrow.stdout.contains(Self.escape), "\(arguments): \(narrow)")
            #expect(!narrow.stderr.contains(Self.escape), "\(arguments)")
            let plain = try run(Paths.ledger, arguments, env: ["NO_COLOR": "1", "COLUMNS": ""])
            #expect(narrow.stdout == plain.stdout, "\(arguments)")
            if !["verify", "replay", "audit"].contains(arguments[0]) {
                #expect(!narrow.stdout.contains("…"), "\(arguments): no table value in the samples is longer than 64 characters")
            }
        }
        let events = try run(Paths.ledger, ["events", Paths.demoLog], env: ["COLUMNS": "20"])
        #expect(events.stdoutLines.dropFirst().dropLast().allSatisfy { ($0.split(separator: " ").last?.count ?? 0) >= "signin-".count + 36 }, "full streams: \(events)")
    }

    @Test(.enabled(if: PseudoTerminal.isAvailable)) func noColorTurnsColorOffOnATerminal() throws {
        for value in ["1", "anything"] {
            for arguments in Self.commands {
                let result = try PseudoTerminal.run(Paths.ledger, arguments, env: ["NO_COLOR": value, "COLUMNS": "60"])
                #expect(!result.stdout.isEmpty, "\(arguments)")
                #expect(!result.stdout.contains(Self.escape), "\(arguments): \(result)")
            }
        }
    }

    @Test(.enabled(if: PseudoTerminal.isAvailable)) func aTerminalGetsColorAndRowsFittedToItsWidth() throws {
        let env = ["NO_COLOR": "", "COLUMNS": "80"]
        let users = try PseudoTerminal.run(Paths.ledger, ["users", "--log", Paths.demoLog], env: env)
        #expect(users.status == 0, "\(users)")
        let lines = users.stdoutLines
        #expect(lines.first?.contains("\u{1B}[1mUID\u{1B}[0m") == true, "a bold header: \(users)")
        #expect(lines.last == "\u{1B}[2m3 users\u{1B}[0m", "a dim count line: \(users)")
        #expect(lines.count == 5)
        for line in lines { #expect(Self.stripped(line).count <= 80, "\(line)") }
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.contains("…") }, "emails, names and times are cut: \(users)")
        #expect(lines[1].hasPrefix("9bf9a51f-f644-5e6e-819e-db7c11fcae94 "), "the uid is whole: \(users)")

        // Every table fits unless its ids alone do not (two ids a row); no id is cut.
        let uuid = #"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#
        for arguments in Self.commands {
            let terminal = try PseudoTerminal.run(Paths.ledger, arguments, env: env)
            guard !arguments.contains("verify") && !arguments.contains("replay") else { continue }
            let lines = terminal.stdoutLines.map(Self.stripped)
            func ids(_ line: String) -> Int { line.components(separatedBy: " ").filter { $0.range(of: uuid, options: .regularExpression) != nil }.count }
            for (i, line) in lines.enumerated() where !line.hasPrefix("ledger: ") {
                #expect(line.range(of: #"[0-9a-f]{8}-[0-9a-f-]{0,27}…"#, options: .regularExpression) == nil, "\(arguments): a cut id: \(line)")
                let twoIDs = ids(line) >= 2 || (i + 1 < lines.count && ids(lines[i + 1]) >= 2)  // a row or its header
                if !twoIDs { #expect(line.count <= 80, "\(arguments): \(line)") }
            }
        }

        let ok = try PseudoTerminal.run(Paths.ledger, ["verify", Paths.demoLog], env: env)
        #expect(ok.stdout.hasPrefix("\u{1B}[32mok:\u{1B}[0m 25 events"), "\(ok)")
        let damaged = try PseudoTerminal.run(Paths.ledger, ["verify", Paths.editedSample], env: env)
        #expect(damaged.status == 1)
        #expect(damaged.stdout.contains("\u{1B}[31mNOT INTACT:\u{1B}[0m first problem on line 9"), "\(damaged)")
    }

    @Test func wideNamesLineUpInTheUsersTable() throws {
        try withLedgerDir { dir in
            for name in ["山田太郎", "Zoë 😀", "Bob"] {
                let result = try dir.register(email: uniqueEmail("wide"), username: name)
                try #require(result.status == 0, "\(result)")
            }
            let users = try dir.run(["users"])
            #expect(users.status == 0, "\(users)")
            let rows = users.stdoutLines.dropLast()
            #expect(rows.count == 4)
            // STATUS starts at one display column on every line (the header's, after USERNAME's padding).
            let starts = rows.map { line in
                DisplayWidth.of(String(line[..<(line.range(of: " active ") ?? line.range(of: " STATUS ")!).upperBound]))
            }
            #expect(Set(starts).count == 1, "\(users)")
        }
    }

    @Test(.enabled(if: PseudoTerminal.isAvailable)) func aWideTerminalCutsNothing() throws {
        let wide = try PseudoTerminal.run(Paths.ledger, ["users", "--log", Paths.demoLog], env: ["NO_COLOR": "1", "COLUMNS": "200"])
        let piped = try run(Paths.ledger, ["users", "--log", Paths.demoLog])
        #expect(wide.stdout == piped.stdout, "\(wide)")
    }

    @Test(.enabled(if: PseudoTerminal.isAvailable)) func theShrinkingTakesTheWidestColumnFirst() throws {
        // SEQ (3), AT (24), TYPE (14), STREAM (49, an id: kept whole): 93 columns; 80 takes 13 from
        // AT down to TYPE's 14, then from each in turn (the rightmost first).
        let result = try PseudoTerminal.run(Paths.ledger, ["events", Paths.demoLog, "--limit", "1"], env: ["NO_COLOR": "1", "COLUMNS": "80"])
        let row = try #require(result.stdoutLines.dropFirst().first)
        #expect(row.count == 80, "\(result)")
        let cells = row.split(separator: " ", omittingEmptySubsequences: true)
        #expect(cells.count == 4)
        #expect(cells[1] == "2026-11-29T0…", "AT cut to 13: \(row)")
        #expect(cells[2] == "AccountCrea…", "TYPE cut to 12: \(row)")
        #expect(cells[3] == "registration-3aceca44-e332-51df-be16-d613d3befa8b", "STREAM whole")
    }
}
