import Foundation
import Testing

/// Human output on and off a terminal: colors only on a terminal without `NO_COLOR`, rows fitted
/// to the terminal's width there and nowhere else.
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
        let env = ["NO_COLOR": "", "COLUMNS": "60"]
        let users = try PseudoTerminal.run(Paths.ledger, ["users", "--log", Paths.demoLog], env: env)
        #expect(users.status == 0, "\(users)")
        let lines = users.stdoutLines
        #expect(lines.first?.contains("\u{1B}[1mUID\u{1B}[0m") == true, "a bold header: \(users)")
        #expect(lines.last == "\u{1B}[2m3 users\u{1B}[0m", "a dim count line: \(users)")
        #expect(lines.count == 5)
        for line in lines { #expect(Self.stripped(line).count <= 60, "\(line)") }
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.contains("…") }, "the 36-character uids are cut: \(users)")
        #expect(lines[1].hasPrefix("9bf9a51f"), "cut values keep their start")

        // Every table fits; nothing else changes but the escape codes.
        for arguments in Self.commands {
            let terminal = try PseudoTerminal.run(Paths.ledger, arguments, env: env)
            for line in terminal.stdoutLines where !line.hasPrefix("ledger: ") && !arguments.contains("verify") && !arguments.contains("replay") {
                #expect(Self.stripped(line).count <= 60, "\(arguments): \(line)")
            }
        }

        let ok = try PseudoTerminal.run(Paths.ledger, ["verify", Paths.demoLog], env: env)
        #expect(ok.stdout.hasPrefix("\u{1B}[32mok:\u{1B}[0m 25 events"), "\(ok)")
        let damaged = try PseudoTerminal.run(Paths.ledger, ["verify", Paths.editedSample], env: env)
        #expect(damaged.status == 1)
        #expect(damaged.stdout.contains("\u{1B}[31mNOT INTACT:\u{1B}[0m first problem on line 9"), "\(damaged)")
    }

    @Test(.enabled(if: PseudoTerminal.isAvailable)) func aWideTerminalCutsNothing() throws {
        let wide = try PseudoTerminal.run(Paths.ledger, ["users", "--log", Paths.demoLog], env: ["NO_COLOR": "1", "COLUMNS": "200"])
        let piped = try run(Paths.ledger, ["users", "--log", Paths.demoLog])
        #expect(wide.stdout == piped.stdout, "\(wide)")
    }

    @Test(.enabled(if: PseudoTerminal.isAvailable)) func theShrinkingTakesTheWidestColumnFirst() throws {
        // SEQ (3), AT (24), TYPE (14), STREAM (49): 93 columns; 80 shrinks only STREAM, by 13.
        let result = try PseudoTerminal.run(Paths.ledger, ["events", Paths.demoLog, "--limit", "1"], env: ["NO_COLOR": "1", "COLUMNS": "80"])
        let row = try #require(result.stdoutLines.dropFirst().first)
        #expect(row.count == 80, "\(result)")
        let cells = row.split(separator: " ", omittingEmptySubsequences: true)
        #expect(cells.count == 4)
        #expect(cells[1].count == 24 && !cells[1].contains("…"), "AT untouched")
        #expect(cells[2] == "AccountCreated")
        #expect(cells[3].count == 36 && cells[3].hasSuffix("…"), "STREAM cut to 36")
    }
}
