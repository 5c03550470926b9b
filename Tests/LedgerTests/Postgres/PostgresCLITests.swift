import Foundation
import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - A PostgreSQL store driven through the built `ledger`

/// A fresh database of the test server plus a data directory for blobs and `--data`.
struct PostgresLedger {
    /// The database.
    let url: PostgresURL
    /// The data directory (blobs).
    let dir: LedgerDir

    /// Runs `ledger ARGS --data DIR --store URL`.
    func run(_ arguments: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> ProcessResult {
        try dir.run(arguments + ["--store", url.text], stdin: stdin, env: env)
    }

    /// `ledger export` of the store, as bytes.
    func export() throws -> ProcessResult { try run(["export"]) }
}

/// A fresh database (with `ledger init` run on it) and data directory, removed afterwards.
func withPostgresLedger<T>(_ body: (PostgresLedger) throws -> T) throws -> T {
    let server = try PostgresServer.get()
    return try server.withDatabase { url in
        try withLedgerDir { dir in
            let ledger = PostgresLedger(url: url, dir: dir)
            let initialized = try ledger.run(["init"])
            guard initialized.status == 0 else { throw SystemTestError("ledger init failed: \(initialized)") }
            return try body(ledger)
        }
    }
}

// MARK: - PostgresCLITests

/// `init`, `export`, `import`, the read commands, connection errors and `events --follow` with `--store`.
struct PostgresCLITests {
    @Test func initIsIdempotentAndCommandsWorkAgainstTheStore() throws {
        try withPostgresLedger { pg in
            let again = try pg.run(["init"])
            #expect(again.status == 0, "\(again)")
            let json = try pg.run(["init", "--json"])
            let ready = try parseObject(json.stdout)
            #expect(json.status == 0 && ready["status"] as? String == "ready" && ready["store"] as? String == "postgres", "\(json)")
            #expect(ready["url"] as? String == pg.url.redacted && ready["schemaVersion"] as? Int == PostgresSchema.version, "\(json)")
            let email = uniqueEmail()
            let registered = try pg.run(LedgerDir.registerArguments(email: email, username: "PG"), stdin: "correct horse 1\n")
            #expect(registered.status == 0, "\(registered)")
            let taken = try pg.run(LedgerDir.registerArguments(email: email, username: "PG2"), stdin: "correct horse 1\n")
            #expect(taken.status == 1)
            #expect(taken.stdout.contains("email-already-in-use"))
            // Nothing went to the file log of the data directory.
            #expect(!FileManager.default.fileExists(atPath: pg.dir.logPath))
            let users = try parseJSON(try pg.run(["users", "--json"]).stdout) as? [[String: Any]]
            #expect(users?.count == 1)
            #expect(users?.first?["email"] as? String == email)
            let verify = try pg.run(["verify"])
            #expect(verify.status == 0, "\(verify)")
            #expect(verify.stdout.contains("ok: 4 events"))
            let login = try pg.run(["login", "--email", email, "--password-stdin", "--json"], stdin: "correct horse 1\n")
            #expect(login.status == 0, "\(login)")
            let audit = try pg.run(["audit"])
            #expect(audit.status == 0, "\(audit)")
            let replay = try pg.run(["replay", "--json"])
            #expect(replay.status == 0)
            // The same store through LEDGER_STORE instead of --store.
            let viaEnv = try pg.dir.run(["events", "--json"], env: ["LEDGER_STORE": pg.url.text])
            #expect(viaEnv.stdoutLines.count == 5, "\(viaEnv)")
        }
    }

    @Test func importThenExportIsByteIdenticalForTheDemoLog() throws {
        try withPostgresLedger { pg in
            let imported = try pg.run(["import", Paths.demoLog, "--json"])
            #expect(imported.status == 0, "\(imported)")
            let exported = try pg.export()
            #expect(exported.status == 0)
            #expect(Array(exported.stdout.utf8) == (try readBytes(Paths.demoLog)))
            // Importing the same file again adds nothing (the store holds all of it already).
            let again = try pg.run(["import", Paths.demoLog, "--json"])
            #expect(again.status == 0, "\(again)")
            #expect(again.stdout.contains("\"inserted\":0"))
        }
    }

    @Test func importThenExportIsByteIdenticalForAGeneratedLog() throws {
        try withTempDirectory { folder in
            let log = "\(folder)/generated.jsonl"
            let generated = try LedgerTests.run("\(Paths.binaries)/ledger-bench", ["generate", "--events", "3000", "--out", log, "--seed", "11"])
            try #require(generated.status == 0, "\(generated)")
            try withPostgresLedger { pg in
                let imported = try pg.run(["import", log])
                #expect(imported.status == 0, "\(imported)")
                let exported = try pg.export()
                #expect(Array(exported.stdout.utf8) == (try readBytes(log)))
                let copy = "\(folder)/exported.jsonl"
                try writeBytes(Array(exported.stdout.utf8), to: copy)
                #expect(try ledger("verify", copy).status == 0)
                let python = try pythonTool("verify_log.py", [copy])
                #expect(python.status == 0, "\(python)")
                // The store appends after the imported head, and the chain still verifies.
                let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "After"), stdin: "correct horse 1\n")
                #expect(registered.status == 0, "\(registered)")
                #expect(try pg.run(["verify"]).status == 0)
            }
        }
    }

    /// A log may hold the year 0000, which PostgreSQL's `timestamptz` has no number for (its 1 BC):
    /// the store takes it, and gives the same bytes back.
    @Test func aLogOfTheYearZeroIsImportedAndExportedAsItIs() throws {
        try withTempDirectory { folder in
            var envelopes = try LogRewriting.envelopes(try readBytes(Paths.demoLog))
            envelopes[0].at = try #require(Timestamp(rfc3339: "0000-01-01T00:00:00.000Z"))
            envelopes[1].at = try #require(Timestamp(rfc3339: "0000-12-31T23:59:59.999Z"))
            let log = "\(folder)/year-zero.jsonl"
            try writeBytes(LogRewriting.chained(envelopes), to: log)
            #expect(try ledger("verify", log).status == 0)
            try withPostgresLedger { pg in
                let imported = try pg.run(["import", log])
                #expect(imported.status == 0, "\(imported)")
                #expect(Array(try pg.export().stdout.utf8) == (try readBytes(log)))
                #expect(try pg.run(["verify"]).status == 0)
            }
        }
    }

    /// A statement the server refuses is said as the server's refusal, not as a data folder's trouble.
    @Test func aStatementTheServerRefusesPointsAtTheServer() throws {
        try withPostgresLedger { pg in
            try PostgresConnection(pg.url).execute("ALTER TABLE ledger_events ADD CONSTRAINT few_lines CHECK (seq < 3)")
            let imported = try pg.run(["import", Paths.demoLog, "--json"])
            #expect(imported.status == 3, "\(imported)")
            #expect(imported.stderrLines.count == 1, "\(imported)")
            #expect(imported.stderr.contains("few_lines") && imported.stderr.contains("PostgreSQL server's log"), "\(imported)")
            #expect(!imported.stderr.contains("data directory"), "\(imported)")
            #expect(try pg.export().stdout.isEmpty, "all or nothing")
        }
    }

    /// A read the server refuses (a role without the right to read the table) says so, not that
    /// the server may be down.
    @Test func aReadTheServerRefusesPointsAtTheServer() throws {
        try withPostgresLedger { pg in
            #expect(try pg.run(["import", Paths.demoLog]).status == 0)
            let role = "ledger_no_read_\(UInt32.random(in: 0...UInt32.max))"
            let admin = try PostgresConnection(pg.url)
            try admin.execute("CREATE ROLE \(role) LOGIN")
            defer { _ = try? admin.execute("DROP OWNED BY \(role)"); _ = try? admin.execute("DROP ROLE \(role)") }
            let url = pg.url.text.replacingOccurrences(of: "://postgres@", with: "://\(role)@")
            try #require(url != pg.url.text)
            for command in [["users", "--json"], ["verify"]] {
                let refused = try pg.dir.run(command + ["--store", url], env: ["LEDGER_CHECKPOINT_EVERY": "0"])
                #expect(refused.status == 3 && refused.stderrLines.count == 1, "\(command): \(refused)")
                #expect(refused.stderr.contains("the PostgreSQL server's log says more") && !refused.stderr.contains("is running"), "\(command): \(refused)")
            }
        }
    }

    @Test func importRefusesADamagedFileOrOneThatDoesNotContinueTheStore() throws {
        try withPostgresLedger { pg in
            let damaged = try pg.run(["import", Paths.editedSample])
            #expect(damaged.status == 1, "\(damaged)")
            #expect(damaged.stderrLines.count == 1)
            #expect(try pg.export().stdout.isEmpty)  // all or nothing
            let torn = try pg.run(["import", Paths.tornSample])
            #expect(torn.status == 1, "\(torn)")
            _ = try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "First"), stdin: "correct horse 1\n")
            let other = try pg.run(["import", Paths.demoLog])
            #expect(other.status == 1, "\(other)")
            #expect(other.stderr.contains("does not continue this store"))
            let missing = try pg.run(["import", "/nonexistent/events.jsonl"])
            #expect(missing.status == 3, "\(missing)")
        }
    }

    @Test func connectionRefusedIsOneLineWithoutThePassword() throws {
        let port = try PostgresServer.freePort()
        try withLedgerDir { dir in
            for command in [["users"], ["verify"], ["export"], ["init"]] {
                let result = try dir.run(command + ["--store", "postgres://ledger:s3cret-pw@127.0.0.1:\(port)/ledger"])
                #expect(result.status == 3, "\(command): \(result)")
                #expect(result.stderrLines.count == 1, "\(result)")
                #expect(result.stderr.hasPrefix("ledger: cannot connect to PostgreSQL at postgres://ledger:***@127.0.0.1:\(port)/ledger"))
                #expect(!result.stderr.contains("s3cret-pw") && !result.stdout.contains("s3cret-pw"))
            }
            let register = try dir.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "X") + ["--store", "postgres://127.0.0.1:\(port)/x"],
                                       stdin: "correct horse 1\n")
            #expect(register.status == 3, "\(register)")
            #expect(register.stderrLines.count == 1, "\(register)")
            let bad = try dir.run(["users", "--store", "mysql://x"])
            #expect(bad.status == 2)
        }
    }

    @Test func aStoreWithoutTablesSaysToRunInit() throws {
        let server = try PostgresServer.get()
        try server.withDatabase { url in
            try withLedgerDir { dir in
                let result = try dir.run(["users", "--store", url.text])
                #expect(result.status == 3, "\(result)")
                #expect(result.stderr.contains("ledger init --store"))
            }
        }
    }

    @Test func followIsWokenByNotifyAndExitsZeroOnSIGINT() throws {
        try withPostgresLedger { pg in
            let follower = try BackgroundProcess(Paths.ledger, ["events", "--follow", "--json", "--store", pg.url.text, "--data", pg.dir.path])
            let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "F"), stdin: "correct horse 1\n")
            #expect(registered.status == 0)
            let sawAll = try follower.waitUntil(seconds: 20) { process in
                try process.stdout().split(separator: "\n").count >= 3
            }
            let seen = (try? follower.stdout()) ?? "", errors = (try? follower.stderr()) ?? ""
            #expect(sawAll, "\(seen) \(errors)")
            follower.send(SIGINT)
            let result = try follower.wait(seconds: 10)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutLines == (try pg.export().stdoutLines))
        }
    }
}

// MARK: - Tampering

/// An edit made directly in the table is caught the same way an edit of the file is.
struct PostgresTamperTests {
    @Test func anEditedRowFailsVerifyAndStopsReads() throws {
        try withPostgresLedger { pg in
            #expect(try pg.run(["import", Paths.demoLog]).status == 0)
            let admin = try PostgresConnection(pg.url)
            let edited = try admin.execute("UPDATE ledger_events SET line = replace(line, 'Alice Liddell', 'Alice Lidell') WHERE line LIKE '%Alice Liddell%'")
            #expect(edited.affectedRows >= 1)
            let verify = try pg.run(["verify"])
            #expect(verify.status == 1, "\(verify)")
            #expect(verify.stdout.contains("bad-hash"))
            let users = try pg.run(["users"])
            #expect(users.status == 1, "\(users)")
            #expect(users.stderrLines.count == 1)
        }
    }

    /// The last line edited in place (its `hash` member kept): no writer chains onto it.
    @Test func noWriterAppendsAfterAnEditedHead() throws {
        try withPostgresLedger { pg in
            #expect(try pg.run(["import", Paths.demoLog]).status == 0)
            let admin = try PostgresConnection(pg.url)
            let edited = try admin.execute("UPDATE ledger_events SET line = replace(line, '\"v\":1', '\"v\":2') WHERE seq = (SELECT max(seq) FROM ledger_events)")
            #expect(edited.affectedRows == 1)
            let before = try pg.export().stdout
            let refused = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("after"), username: "After"), stdin: "correct horse 1\n")
            #expect(refused.status == 1 && refused.stderr.contains("bad-hash") && refused.stderrLines.count == 1, "\(refused)")
            #expect(try pg.export().stdout == before, "nothing appended")
        }
    }

    /// The account tables' mark naming a line that is not a ledger line is damage named at that line;
    /// a mark whose hash is not one ledger writes records no line (the tables are folded again).
    @Test func aMarkNamingABadLineOrHoldingNoHash() throws {
        try withPostgresLedger { pg in
            for name in ["A", "B"] {
                #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail(name), username: name), stdin: "correct horse 1\n").status == 0)
            }
            let admin = try PostgresConnection(pg.url)
            let hash = try #require(try admin.execute("SELECT hash FROM ledger_account_state").string(0, 0))
            try admin.execute("UPDATE ledger_account_state SET hash = $1", [hash.uppercased()])
            let verified = try pg.run(["verify"])
            #expect(verified.status == 0, "an uppercase hash is no record of another history: \(verified)")
            let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("C"), username: "C"), stdin: "correct horse 1\n")
            #expect(registered.status == 0, "\(registered)")
            #expect(try pg.run(["verify"]).status == 0)

            try admin.execute("UPDATE ledger_account_state SET seq = 5, hash = (SELECT hash FROM ledger_events WHERE seq = 5)")
            try dropPostgresLineGuards(pg.url)  // the server refuses a row that is not a JSON line otherwise
            try admin.execute("UPDATE ledger_events SET line = 'not json' WHERE seq = 5")
            let refused = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("D"), username: "D"), stdin: "correct horse 1\n")
            #expect(refused.status == 1 && refused.stderr.contains("line 5") && !refused.stderr.contains("line 0"), "\(refused)")
        }
    }
}
