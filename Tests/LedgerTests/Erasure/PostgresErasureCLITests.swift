import Foundation
import LedgerDomain
import LedgerKit
import Testing

// The right to erasure through the built `ledger`, on a PostgreSQL store (`--store URL`): the file
// store's test (`ErasureCLITests`) again, with every table of the database read as text in place
// of the files: after `account delete`, no row and no output of a read command holds anything of
// the person (emails, username, password hashes, a reason, or an unkeyed hash of them), while
// another person reads as before and the chain verifies. And a store given a version 1 log keeps
// writing version 1.

@Suite struct PostgresErasureCLITests {
    private static let password = "correct horse erased", newPassword = "battery staple erased"

    /// The forms of `text` a table or an output must not hold: itself, the lowercase hex of its
    /// UTF-8 bytes (a `bytea` as text), the lowercase hex SHA-256 of it and of `email\0text`.
    private static func forms(_ text: String) -> [String] {
        [text, Array(text.utf8).map { String(format: "%02x", $0) }.joined(),
         SHA256.hex(Array(text.utf8)), SHA256.hex(Array(("email\u{0}" + text).utf8))]
    }

    /// Every row of every table of the database's schema, as text, by table.
    private static func everyTable(_ url: PostgresURL) throws -> [String: String] {
        let connection = try PostgresConnection(url)
        let tables = try connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
        var dump: [String: String] = [:]
        for row in 0..<tables.count {
            let table = try #require(tables.string(row, 0))
            let rows = try connection.execute("SELECT t::text FROM \(table) AS t")
            dump[table] = (0..<rows.count).compactMap { rows.string($0, 0) }.joined(separator: "\n")
        }
        return dump
    }

    /// The outputs of every read command that could show a person.
    private static func outputs(_ pg: PostgresLedger, uid: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for command in [["users"], ["users", "--json"], ["user", uid], ["user", uid, "--json"], ["user", uid, "--history"],
                        ["user", uid, "--history", "--json"], ["audit"], ["audit", "--json"], ["events"], ["events", "--json"],
                        ["sessions"], ["sessions", "--json"], ["export"], ["replay"]] {
            let result = try pg.run(command)
            out[command.joined(separator: " ")] = result.stdout + result.stderr
        }
        let report = pg.dir.path + "/../report-\(UUID().uuidString).html"
        #expect(try pg.run(["report", "--show-emails", "--html", report]).status == 0)
        out["report --show-emails"] = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: report)
        return out
    }

    /// Where any form of any secret is found, in any case.
    private static func findings(of secrets: [String], in places: [String: String]) -> [String] {
        var found: [String] = []
        for secret in secrets {
            for form in forms(secret) {
                for (place, text) in places where text.lowercased().contains(form.lowercased()) { found.append("\(place) holds \(form) (of \(secret))") }
            }
        }
        return found
    }

    @Test func aDeletedPersonIsForgottenInEveryTableOfThePostgresStore() throws {
        try withPostgresLedger { pg in
            let first = "Erin.First@Example.com", second = "erin.second@example.org", name = "ErinTheErased"
            let other = "olive@example.com", otherName = "OliveStays"
            let registered = try pg.run(LedgerDir.registerArguments(email: first, username: name), stdin: Self.password + "\n")
            try #require(registered.status == 0, "\(registered)")
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            let registeredOther = try pg.run(LedgerDir.registerArguments(email: other, username: otherName), stdin: Self.password + "\n")
            try #require(registeredOther.status == 0, "\(registeredOther)")
            // A life: a wrong password, a sign-in, a password change, an email change, a disable and enable.
            #expect(try pg.run(["login", "--email", first.lowercased(), "--password-stdin"], stdin: "not the password\n").status == 1)
            #expect(try pg.run(["login", "--email", first.lowercased(), "--password-stdin"], stdin: Self.password + "\n").status == 0)
            #expect(try pg.run(["account", "change-password", "--email", first.lowercased(), "--password-stdin"],
                               stdin: Self.password + "\n" + Self.newPassword + "\n").status == 0)
            #expect(try pg.run(["account", "change-email", "--email", first.lowercased(), "--new-email", second, "--password-stdin"],
                               stdin: Self.newPassword + "\n").status == 0)
            #expect(try pg.run(["account", "disable", uid, "--reason", "Erin asked by ticket 4711"]).status == 0)
            #expect(try pg.run(["account", "enable", uid]).status == 0)

            // Data version 2: the lines hold no personal member in clear; the store's keys open them.
            let lines = try Self.everyTable(pg.url)["ledger_events"] ?? ""
            #expect(!lines.lowercased().contains(first.lowercased()) && !lines.contains(name))
            let sealed = try PostgresConnection(pg.url).execute("SELECT count(*) FROM ledger_events WHERE v = 2 AND type = 'AccountCreated'")
            #expect(sealed.string(0, 0) == "2", "both accounts' AccountCreated are version 2")
            let users = try #require(try parseJSON(try pg.run(["users", "--json"]).stdout) as? [[String: Any]])
            #expect(users.contains { $0["uid"] as? String == uid && $0["email"] as? String == second && $0["userName"] as? String == name }, "\(users)")
            var hashes: [String] = []
            try PostgresEventStore(url: pg.url).read(from: 1) { event in
                if event.event.data["uid"]?.stringValue == uid, let hash = event.event.data["passwordHash"]?.stringValue { hashes.append(hash) }
                return true
            }
            #expect(hashes.count == 2, "two password hashes: \(hashes)")
            let secrets = [first, first.lowercased(), second, name, "ticket 4711"] + hashes
            let head = try #require(try parseObject(try pg.run(["verify", "--json"]).stdout)["head"] as? [String: Any])
            let recorded = "\(head["seq"] as? Int ?? 0):\(head["hash"] as? String ?? "")"
            // A checkpoint is kept (it holds the views, emails included), so its erasure is tested too.
            #expect(try pg.run(["users"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).status == 0)
            #expect(try PostgresConnection(pg.url).execute("SELECT count(*) FROM ledger_checkpoints").string(0, 0) == "1")

            let deleted = try pg.run(["account", "delete", uid, "--json"])
            #expect(deleted.status == 0, "\(deleted)")
            let outcome = try parseObject(deleted.stdout)
            #expect(outcome["personalData"] as? String == "erased" && outcome["email"] is NSNull, "\(deleted)")
            #expect(try pg.run(["login", "--email", other, "--password-stdin"], stdin: Self.password + "\n").status == 0)
            #expect(try pg.run(LedgerDir.registerArguments(email: "later@example.com", username: "Later"), stdin: Self.password + "\n").status == 0)

            let outputs = try Self.outputs(pg, uid: uid)
            let tables = try Self.everyTable(pg.url)
            #expect(tables.keys.contains("ledger_keys") && tables.keys.contains("ledger_accounts") && tables.keys.contains("ledger_checkpoints"),
                    "\(tables.keys.sorted())")
            let found = Self.findings(of: secrets, in: outputs.merging(tables.map { ("table \($0.key)", $0.value) }) { a, _ in a })
            #expect(found.isEmpty, "\(found)")
            let keyRow = try PostgresConnection(pg.url).execute("SELECT erased, key IS NULL FROM ledger_keys WHERE subject = $1", ["account-" + uid])
            #expect(keyRow.count == 1 && keyRow.string(0, 0) == "t" && keyRow.string(0, 1) == "t")
            // The other person reads as before; the erased one as erased.
            let after = try #require(try parseJSON(try pg.run(["users", "--json"]).stdout) as? [[String: Any]])
            #expect(after.contains { $0["email"] as? String == other && $0["userName"] as? String == otherName })
            let erased = try #require(after.first { $0["uid"] as? String == uid })
            #expect(erased["email"] is NSNull && erased["userName"] is NSNull && erased["erased"] as? Bool == true, "\(erased)")
            #expect(try pg.run(["users"]).stdout.contains("[erased]"))
            // The chain and the caches verify, also against a head recorded before.
            let verified = try pg.run(["verify"])
            #expect(verified.status == 0, "\(verified)")
            #expect(try pg.run(["verify", "--expect", recorded]).status == 0, "head \(recorded)")
            let again = try pg.run(["account", "erase", uid, "--json"])
            #expect(again.status == 1 && (try? parseObject(again.stdout)["reason"] as? String) == "already-erased", "\(again)")
            #expect(try pg.run(["audit"]).stdout.contains("personal-data-erased"))
        }
    }

    @Test func aStoreGivenAVersionOneLogKeepsWritingVersionOne() throws {
        try withPostgresLedger { pg in
            let imported = try pg.run(["import", Paths.demoLog, "--json"])
            #expect(imported.status == 0, "\(imported)")
            let versions = try PostgresConnection(pg.url).execute("SELECT data_version FROM ledger_store")
            #expect(versions.string(0, 0) == "1")
            let users = try #require(try parseJSON(try pg.run(["users", "--json"]).stdout) as? [[String: Any]])
            let live = try #require(users.first { $0["status"] as? String == "active" }?["uid"] as? String)
            let email = uniqueEmail()
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "V1"), stdin: Self.password + "\n").status == 0)
            let lines = try pg.export().stdout
            #expect(lines.contains(email), "a version 1 store writes emails in clear")
            #expect(!lines.contains("\"v\":2"))
            let deleted = try pg.run(["account", "delete", live, "--json"])
            #expect(deleted.status == 0 && (try? parseObject(deleted.stdout)["personalData"] as? String) == "not-encrypted", "\(deleted)")
            let erase = try pg.run(["account", "erase", live, "--json"])
            #expect(erase.status == 1 && (try? parseObject(erase.stdout)["reason"] as? String) == "migrate-first", "\(erase)")
            #expect(try pg.run(["verify"]).status == 0)
        }
    }

    @Test func aVersionTwoStoreRefusesALineWithPersonalDataInClear() throws {
        try withPostgresLedger { pg in
            let connection = try PostgresConnection(pg.url)
            // What a build from before data version 2 would insert: refused by the server, by name.
            #expect(throws: (any Error).self) {
                try connection.execute("""
                    INSERT INTO ledger_events (seq, id, at, type, v, stream, stream_position, data, prev, hash, line)
                    VALUES (1, gen_random_uuid(), now(), 'AccountCreated', 1, 'account-x', 1, '{"email":"a@example.com"}', repeat('0', 64), repeat('0', 64), '{}')
                    """)
            }
            #expect(try connection.execute("SELECT count(*) FROM pg_constraint WHERE conname = $1", [PostgresSchema.sealedCheck]).string(0, 0) == "1")
        }
    }

    @Test func aFolderExportedWithItsKeysImportsIntoPostgresAndReadsTheSame() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            #expect(try dir.register(email: "carried@example.com", username: "Carried", password: Self.password).status == 0)
            let gone = try dir.register(email: "dropped@example.com", username: "Dropped", password: Self.password)
            let uid = try #require(try parseObject(gone.stdout)["uid"] as? String)
            #expect(try dir.run(["account", "delete", uid]).status == 0)
            let keys = path + "/export.keys", export = path + "/export.jsonl"
            let exported = try dir.run(["export", "--keys", keys])
            try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: export))
            try withPostgresLedger { pg in
                // Without its keys a version 2 log is refused whole: its personal data would be lost.
                let keyless = try pg.run(["import", export, "--json"])
                #expect(keyless.status == 1 && keyless.stderr.contains("missing-key"), "\(keyless)")
                let imported = try pg.run(["import", export, "--keys", keys, "--json"])
                #expect(imported.status == 0, "\(imported)")
                #expect(try pg.run(["users", "--json"]).stdout == (try dir.run(["users", "--json"]).stdout), "the same users, the erased one erased")
                #expect(try pg.run(["verify"]).status == 0)
                // And back: the store's keys exported from PostgreSQL open the same lines.
                let again = path + "/again.keys"
                let lines = try pg.run(["export", "--keys", again])
                #expect(lines.status == 0 && lines.stdout == exported.stdout, "\(lines.stderr)")
                #expect(try run(Paths.ledger, ["verify", export, "--keys", again]).status == 0)
            }
        }
    }

    @Test func aStrangersAddressIsForgottenInEveryTableOfThePostgresStore() throws {
        try withPostgresLedger { pg in
            let stranger = "stuffed.stranger@example.net", typo = "Rejected Stranger@@example.net"
            #expect(try pg.run(LedgerDir.registerArguments(email: "olive@example.com", username: "Olive"), stdin: Self.password + "\n").status == 0)
            for _ in 0..<2 {
                #expect(try pg.run(["login", "--email", stranger, "--password-stdin"], stdin: "guessed password\n").status == 1)
            }
            #expect(try pg.run(LedgerDir.registerArguments(email: typo, username: "Typo"), stdin: Self.password + "\n").status == 1)
            let erased = try pg.run(["erase", "--email", stranger, "--json"])
            #expect(erased.status == 0 && (try? parseObject(erased.stdout)["status"] as? String) == "erased", "\(erased)")
            var places = try Self.everyTable(pg.url)
            for command in [["audit"], ["audit", "--json"], ["events", "--json"], ["users", "--json"]] {
                places["`\(command.joined(separator: " "))`"] = try pg.run(command).stdout
            }
            let found = Self.findings(of: [stranger, "Rejected Stranger"], in: places)
            #expect(found.isEmpty, "\(found)")
            #expect(try pg.run(["audit"]).stdout.contains("[erased]"))
            #expect(try pg.run(["verify"]).status == 0)
            // The day goes on under its successor.
            #expect(try pg.run(["login", "--email", "later.stranger@example.net", "--password-stdin"], stdin: "guessed password\n").status == 1)
            #expect(try pg.run(["audit"]).stdout.contains("later.stranger@example.net"))
        }
    }
}
