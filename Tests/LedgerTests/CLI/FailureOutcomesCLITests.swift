import Foundation
import Glibc
import Testing

/// Failures that name their real cause: a folder given as a log, a folder that may not be entered,
/// standard input as a log, a report in a missing folder, a bad `LEDGER_*` value; and with `--json`
/// every failure is one `{"status":"error","code":…,"message":…}` object on standard output.
struct FailureOutcomesCLITests {
    @Test func aFolderGivenAsALogSaysSo() throws {
        try withTempDirectory { dir in
            for arguments in [["verify", dir], ["events", dir], ["replay", dir], ["users", "--log", dir]] {
                let result = try run(Paths.ledger, arguments)
                #expect(result.status == 3, "\(arguments): \(result)")
                #expect(result.stderrLines == ["ledger: \(dir) is a directory, not a log file; pass the log file itself, or the folder as --data DIR"],
                        "\(arguments): \(result)")
            }
        }
    }

    /// A data folder its user may not enter is "permission denied", not "no log". The tests may run
    /// as root, whom no permission stops: then `ledger` runs as `nobody` (setpriv), which it stops.
    @Test func aFolderThatMayNotBeEnteredIsPermissionDenied() throws {
        try withTempDirectory { dir in
            let data = dir + "/data"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
            try writeBytes(try readBytes(Paths.demoLog), to: data + "/events.jsonl")
            chmod(dir, 0o755)
            chmod(data, 0)
            defer { chmod(data, 0o700) }
            let asUser = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", Paths.ledger] : [Paths.ledger]
            for arguments in [["verify"], ["replay"], ["users"], ["events"]] {
                let result = try run(asUser[0], Array(asUser.dropFirst()) + arguments + ["--data", data])
                #expect(result.status == 3, "\(arguments): \(result)")
                #expect(result.stderrLines.count == 1, "\(arguments): \(result)")
                #expect(result.stderr.hasPrefix("ledger: permission denied: cannot open \(data)/events.jsonl"), "\(arguments): \(result)")
            }
        }
    }

    @Test func verifyAndEventsReadStandardInputAsAStream() throws {
        let log = try readText(Paths.demoLog)
        let intact = try ledger("verify", "-", stdin: log)
        #expect(intact.status == 0, "\(intact)")
        #expect(intact.stdout.hasPrefix("ok: 25 events"), "\(intact)")
        let events = try ledger("events", "-", "--json", stdin: log)
        #expect(events.status == 0 && events.stdout == log, "\(events)")
        let damaged = try ledger("verify", "-", stdin: try readText(Paths.editedSample))
        #expect(damaged.status == 1, "\(damaged)")
        // A pipe cannot be seeked: `export | verify /dev/stdin` works all the same.
        try withLedgerDir { dir in
            try writeBytes(try readBytes(Paths.demoLog), to: dir.logPath)
            let piped = try run("/bin/sh", ["-c", "\"$0\" export --data \"$1\" | \"$0\" verify /dev/stdin", Paths.ledger, dir.path])
            #expect(piped.status == 0, "\(piped)")
            #expect(piped.stdout.hasPrefix("ok: 25 events"), "\(piped)")
        }
        let follow = try ledger("events", "-", "--follow", stdin: log)
        #expect(follow.status == 2 && follow.stderr.contains("standard input cannot be followed"), "\(follow)")
    }

    @Test func aReportInAMissingFolderNamesTheFolder() throws {
        try withTempDirectory { dir in
            let missing = try ledger("report", "--log", Paths.demoLog, "--html", dir + "/nope/report.html")
            #expect(missing.status == 3, "\(missing)")
            #expect(missing.stderrLines == ["ledger: cannot write \(dir)/nope/report.html: the folder \(dir)/nope does not exist; create it first, or name a file in an existing folder"])
            let folder = try ledger("report", "--log", Paths.demoLog, "--html", dir)
            #expect(folder.status == 3 && folder.stderr.contains("cannot write \(dir): it is a folder"), "\(folder)")
            #expect(!missing.stderr.contains("tmp-") && !missing.stderr.contains("--data"))
        }
    }

    /// Every `LEDGER_*` variable with a bad value stops any command with exit 2 and one line naming it.
    @Test func aBadLedgerVariableIsAUsageError() throws {
        let cases: [(String, String, String)] = [
            ("LEDGER_CHECKPOINT_EVERY", "abc", "must be a whole number of events, 0 or more"),
            ("LEDGER_CHECKPOINT_EVERY", "-1", "must be a whole number of events, 0 or more"),
            ("LEDGER_STORE_INDEX", "yes", "must be 0 (no index) or 1 (the index)"),
            ("LEDGER_HASH_COST", "99", "must be an integer from 1 to 11"),
            ("LEDGER_MAIL_FROM", "not an address", "must be one address"),
            ("LEDGER_FAILPOINTS", "Nothing=crash", "is not EVENT="),
            ("LEDGER_IO_FAULTS", "write=0", "must be OP=N entries"),
            ("LEDGER_STORE", "mysql://root:s3cret@db/x", "must be a postgres://USER@HOST:PORT/DATABASE URL"),
        ]
        for (variable, value, rule) in cases {
            let result = try run(Paths.ledger, ["users", "--log", Paths.demoLog], env: [variable: value])
            #expect(result.status == 2, "\(variable)=\(value): \(result)")
            #expect(result.stderrLines.count == 1, "\(variable)=\(value): \(result)")
            #expect(result.stderr.hasPrefix("ledger: \(variable) ") && result.stderr.contains(rule), "\(variable)=\(value): \(result.stderr)")
            #expect(result.stderr.contains("fix or unset \(variable)"), "\(result.stderr)")
        }
        let store = try run(Paths.ledger, ["users", "--log", Paths.demoLog], env: ["LEDGER_STORE": "mysql://root:s3cret@db/x"])
        #expect(!store.stderr.contains("s3cret"), "a store URL may hold a password: \(store.stderr)")
        for (variable, value) in [("LEDGER_CHECKPOINT_EVERY", "0"), ("LEDGER_STORE_INDEX", "1"), ("LEDGER_STORE_INDEX", ""), ("LEDGER_CHECKPOINT_EVERY", "")] {
            #expect(try run(Paths.ledger, ["users", "--log", Paths.demoLog], env: [variable: value]).status == 0, "\(variable)=\(value)")
        }
    }

    /// With `--json`, a failure of any kind prints exactly one JSON object on standard output with
    /// its stable code (and its line on standard error), with the documented exit status.
    @Test func everyJSONFailureIsOneObjectWithACode() throws {
        try withLedgerDir { dir in
            try writeBytes(try readBytes(Paths.demoLog), to: dir.logPath)
            let cases: [(arguments: [String], env: [String: String], status: Int32, code: String)] = [
                (["logout", "--session", "00000000-0000-0000-0000-000000000000", "--data", dir.path], [:], 1, "no-such-session"),
                (["replay", Paths.editedSample], [:], 1, "damaged"),
                (["users", "--lgo", Paths.demoLog], [:], 2, "usage"),
                (["register", "--email", "--username", "X"], [:], 2, "usage"),
                (["login"], [:], 2, "usage"),
                (["replya"], [:], 2, "usage"),
                (["events", Paths.demoLog, "--limit", "0"], [:], 2, "usage"),
                (["login", "--email", "a@example.com", "--password", "x"], [:], 2, "usage"),
                (["users", "--log", Paths.demoLog], ["LEDGER_CHECKPOINT_EVERY": "abc"], 2, "bad-environment"),
                (["verify", dir.path + "/missing.jsonl"], [:], 3, "no-log"),
                (["replay", dir.path], [:], 3, "is-a-directory"),
                (["sessions", "--data", dir.path + "/none"], [:], 3, "no-log"),
            ]
            for (arguments, env, status, code) in cases {
                let result = try run(Paths.ledger, arguments + ["--json"], env: env)
                #expect(result.status == status, "\(arguments): \(result)")
                #expect(result.stdoutLines.count == 1, "\(arguments): \(result)")
                let object = try #require(try parseJSON(result.stdout) as? [String: Any], "\(arguments): \(result)")
                #expect(object["status"] as? String == "error", "\(arguments): \(result)")
                #expect(object["code"] as? String == code, "\(arguments): \(result)")
                #expect(result.stderrLines == ["ledger: " + (object["message"] as? String ?? "?")], "\(arguments): \(result)")
            }
            // Without --json nothing goes to standard output.
            #expect(try run(Paths.ledger, ["replay", Paths.editedSample]).stdout.isEmpty)
        }
    }
}
