import Foundation
import LedgerDomain
import LedgerKit
import Testing

// Issue 27's attacks through the built `ledger`: the bytes a password is made of (NUL, bytes that
// are not UTF-8, Unicode forms), enumeration by `account delete`, closed standard descriptors, lost
// output, the mailer's environment and sender, and errors that try to print a second line.

/// Runs `ledger ARGS` through `/bin/sh` with `input` as the bytes of standard input and
/// `redirections` (e.g. `>&- 2>&-`) applied to it: what a shell, cron or a service manager does.
func shellLedger(_ arguments: [String], input: [UInt8], redirections: String = "", env: [String: String] = [:]) throws -> ProcessResult {
    try withTempDirectory("ledger-stdin") { folder in
        let path = folder + "/stdin"
        try writeBytes(input, to: path)
        return try run("/bin/sh", ["-c", "exec \"$0\" \"$@\" <\"$HARDENING_STDIN\" \(redirections)", Paths.ledger] + arguments,
                       env: fastHashEnvironment.merging(env) { _, new in new }.merging(["HARDENING_STDIN": path]) { _, new in new })
    }
}

/// `text`'s UTF-8 bytes and a newline.
private func line(_ text: String) -> [UInt8] { Array(text.utf8) + [0x0A] }

@Suite struct HardeningCLITests {
    /// A store's arguments (`--data DIR`, and `--store URL` for PostgreSQL) and its log's lines.
    struct Target {
        let arguments: [String]
        let lines: () throws -> [String]

        func run(_ arguments: [String], _ input: [UInt8], redirections: String = "", env: [String: String] = [:]) throws -> ProcessResult {
            try shellLedger(arguments + self.arguments, input: input, redirections: redirections, env: env)
        }

        /// `register --json` of `email` with the password bytes `password` (a newline added).
        func register(_ email: String, _ password: [UInt8]) throws -> ProcessResult {
            try run(LedgerDir.registerArguments(email: email, username: "Hardened"), password + [0x0A])
        }

        func login(_ email: String, _ password: [UInt8]) throws -> ProcessResult {
            try run(["login", "--email", email, "--password-stdin", "--json"], password + [0x0A])
        }
    }

    static func file(_ dir: LedgerDir) -> Target {
        Target(arguments: ["--data", dir.path], lines: { String(decoding: try dir.logBytes(), as: UTF8.self).split(separator: "\n").map(String.init) })
    }

    static func postgres(_ pg: PostgresLedger) -> Target {
        Target(arguments: ["--data", pg.dir.path, "--store", pg.url.text],
               lines: { try pg.export().stdout.split(separator: "\n").map(String.init) })
    }

    /// The `Failed` reason of a refused `register --json`.
    static func failedReason(_ result: ProcessResult) -> String? {
        (try? parseObject(result.stdout))?["reason"] as? String
    }

    // MARK: 1, 2: passwords are text, exactly

    /// NUL bytes and bytes that are not UTF-8 are refused as `invalid-password` by register (a
    /// `Failed` at validation), by change-password and by reset-password; a password made of
    /// NUL bytes never opens anything with an empty line, and `a\0bcdefgh` is not `a`.
    static func passwordBytes(_ target: Target) throws {
        for (n, bad) in [[UInt8](repeating: 0, count: 8), Array("a\u{0}bcdefgh".utf8), [0x4D, 0xFC] + Array("ller2024!".utf8),
                         Array("abcdefgh".utf8) + [0x80, 0x80]].enumerated() {
            let email = uniqueEmail("bytes\(n)")
            let refused = try target.register(email, bad)
            #expect(refused.status == 1 && failedReason(refused) == "invalid-password", "\(refused)")
            #expect(try target.login(email, []).status == 1)
            #expect(try target.login(email, Array("a".utf8)).status == 1)
        }
        // An account with a good password: the bad bytes as a new password are refused, and an empty
        // line or a cut password never signs in.
        let email = uniqueEmail("bytes"), good = Array("correct horse bytes".utf8)
        #expect(try target.register(email, good).status == 0)
        for bad in [[UInt8](repeating: 0, count: 8), [0x4D, 0xFC] + Array("ller2024!".utf8)] {
            let change = try target.run(["account", "change-password", "--email", email, "--password-stdin", "--json"], good + [0x0A] + bad + [0x0A])
            #expect(change.status == 2 && change.stderr.contains("must be text"), "\(change)")
        }
        // A current password with a NUL after the real one is wrong, not cut to the real one.
        let cut = try target.run(["account", "change-password", "--email", email, "--password-stdin", "--json"],
                                 good + [0, 0x78] + [0x0A] + Array("another good one".utf8) + [0x0A])
        #expect(cut.status == 1 && ChangePasswordCLITests.isRefusal(cut), "\(cut)")
        #expect(try target.login(email, good).status == 0)
        #expect(try target.login(email, good + [0]).status == 1)
    }

    @Test func passwordBytesOnTheFileStore() throws {
        try withLedgerDir { dir in try Self.passwordBytes(Self.file(dir)) }
    }

    @Test func passwordBytesOnPostgres() throws {
        try withPostgresLedger { pg in try Self.passwordBytes(Self.postgres(pg)) }
    }

    /// Latin-1 bytes that differ only in the byte that is not UTF-8 no longer collapse into one
    /// password; Unicode forms of one text are one password (NFC), whichever was typed at sign-up.
    @Test func unicodeFormsAreOnePasswordAndInvalidBytesAreNone() throws {
        try withLedgerDir { dir in try Self.unicodeForms(dir) }
    }

    static func unicodeForms(_ dir: LedgerDir) throws {
        do {
            let target = Self.file(dir)
            let email = uniqueEmail("forms")
            let composed = Array("M\u{FC}ller2024!".utf8), decomposed = Array("Mu\u{308}ller2024!".utf8)
            #expect(try target.register(email, decomposed).status == 0)
            #expect(try target.login(email, composed).status == 0, "NFC of the decomposed form signs in")
            #expect(try target.login(email, decomposed).status == 0)
            for latin1 in [0xFC, 0xE4, 0xF6, 0x80] as [UInt8] {
                #expect(try target.login(email, [0x4D, latin1] + Array("ller2024!".utf8)).status == 1)
            }
            // A no-break space is a space (OpaqueString's mapping).
            let spaced = uniqueEmail("space")
            #expect(try target.register(spaced, Array("two\u{A0}words here".utf8)).status == 0)
            #expect(try target.login(spaced, Array("two words here".utf8)).status == 0)
            #expect(try ledger("verify", "--data", dir.path).status == 0)
        }
    }

    /// A hash made before passwords were prepared (no `$nfc` mark) is checked against the bytes as
    /// typed, so those accounts keep signing in; a marked hash against the prepared text.
    @Test func unmarkedHashesAreCheckedAsTyped() throws {
        let hasher = PasswordHasher(cost: 1)
        let marked = try hasher.hash("Mu\u{308}ller2024!", random: SecureRandom())
        #expect(marked.hasPrefix("$nfc$y$"))
        #expect(hasher.verify("M\u{FC}ller2024!", against: marked) && hasher.verify("Mu\u{308}ller2024!", against: marked))
        // The same crypt(3) string unmarked: made from the NFC bytes as they were typed.
        let legacy = String(marked.dropFirst(PasswordRule.preparedHashMark.count))
        #expect(hasher.verify("M\u{FC}ller2024!", against: legacy))
        #expect(!hasher.verify("Mu\u{308}ller2024!", against: legacy))
        #expect(!hasher.verify("M\u{FC}ller2024!\u{0}x", against: marked))
        #expect(throws: AuthError.self) { try hasher.hash("a\u{0}bcdefgh", random: SecureRandom()) }
    }

    // MARK: 3: no enumeration by account delete

    /// `account delete EMAIL --password-stdin` answers a never-registered email as it answers a wrong
    /// password for a registered one (stdout, stderr, exit); the log records the true reasons.
    @Test func deleteWithAPasswordDoesNotEnumerate() throws {
        try withLedgerDir { dir in try Self.deleteDoesNotEnumerate(Self.file(dir)) }
    }

    @Test func deleteWithAPasswordDoesNotEnumerateOnPostgres() throws {
        try withPostgresLedger { pg in try Self.deleteDoesNotEnumerate(Self.postgres(pg)) }
    }

    static func deleteDoesNotEnumerate(_ target: Target) throws {
        do {
            let known = uniqueEmail("known"), unknown = uniqueEmail("unknown")
            #expect(try target.register(known, Array("correct horse known".utf8)).status == 0)
            for json in [true, false] {
                let extra = json ? ["--json"] : []
                let a = try target.run(["account", "delete", known, "--password-stdin"] + extra, line("wrong password"))
                let b = try target.run(["account", "delete", unknown, "--password-stdin"] + extra, line("wrong password"))
                #expect(a.status == 1 && a.status == b.status && a.stdout == b.stdout && a.stderr == b.stderr, "\(a)\n\(b)")
            }
            let reasons = try target.lines().compactMap { line -> String? in
                guard line.contains("\"SignInFailed\"") else { return nil }
                return line.contains("unknown-email") ? "unknown" : line.contains("wrong-password") ? "wrong" : "other"
            }
            #expect(reasons == ["wrong", "unknown", "wrong", "unknown"])
        }
    }

    // MARK: 4, 5: standard descriptors

    /// Started with stdout and stderr closed on a log with a torn tail, `recover` (and `logout`)
    /// never write a notice into the log: every acknowledged line stays, and `verify` passes.
    @Test func closedDescriptorsNeverReachTheLog() throws {
        try withLedgerDir { dir in
            let target = Self.file(dir)
            let registered = try target.register(uniqueEmail("fd"), Array("correct horse fd".utf8))
            let session = try #require(try parseObject(registered.stdout)["sessionId"] as? String)
            let acknowledged = try dir.logBytes()
            for command in [["recover"], ["logout", "--session", session]] {
                let log = try FileHandle(forWritingAtPath: dir.logPath).unwrap()
                log.seekToEndOfFile()
                log.write(Data("{\"seq\":99,\"id\":\"torn".utf8))
                try log.close()
                for redirections in [">&- 2>&-", "<&- >&- 2>&-"] {
                    _ = try target.run(command, [], redirections: redirections)
                }
                let bytes = try dir.logBytes()
                #expect(Array(bytes.prefix(acknowledged.count)) == acknowledged, "the acknowledged lines are intact")
                #expect(try ledger("verify", "--data", dir.path).status == 0)
            }
            let ended = try target.lines().contains { $0.contains("\"SessionEnded\"") && $0.contains(session) }
            #expect(ended, "logout with its descriptors closed still worked")
        }
    }

    /// `login` and `register` started with stdout closed refuse before acting (exit 3, nothing
    /// appended); with stdout failing (a full disk) they exit 3 and say on stderr what was recorded.
    @Test func outputThatMustBeReceivedIsNeverLostInSilence() throws {
        try withLedgerDir { dir in
            let target = Self.file(dir)
            let email = uniqueEmail("out"), password = Array("correct horse out".utf8)
            #expect(try target.register(email, password).status == 0)
            let before = try target.lines().count
            let closed = try target.login(email, password)
            _ = closed
            let refused = try target.run(["login", "--email", email, "--password-stdin"], password + [0x0A], redirections: ">&-")
            #expect(refused.status == 3 && refused.stderr.contains("standard output is closed"), "\(refused)")
            let refusedRegister = try target.run(LedgerDir.registerArguments(email: uniqueEmail("out"), username: "Out"), password + [0x0A],
                                                 redirections: ">&-")
            #expect(refusedRegister.status == 3, "\(refusedRegister)")
            #expect(try target.lines().count == before + 1, "only the first login appended")
            let full = try target.run(["login", "--email", email, "--password-stdin"], password + [0x0A], redirections: ">/dev/full")
            #expect(full.status == 3 && full.stderrLines.count == 1, "\(full)")
            #expect(full.stderr.contains("could not write standard output") && full.stderr.contains("logout --session"), "\(full)")
            // A read command whose pipe closes early ends quietly, as before.
            let piped = try run("/bin/sh", ["-c", "\"$0\" events --data \"$1\" | head -c 10 >/dev/null; echo ${PIPESTATUS:-done}", Paths.ledger, dir.path])
            #expect(piped.stderr.isEmpty, "\(piped)")
        }
    }

    // MARK: 6, 7: the mailer

    /// The mailer sees an allow-listed environment: PATH and the LEDGER_MAIL_* settings, never the
    /// store URL, a database password or any other variable of the process.
    @Test func theMailerGetsAnAllowListedEnvironment() throws {
        try withPostgresLedger { pg in
            try withTempDirectory("ledger-mailenv") { folder in
                let email = uniqueEmail("mail")
                #expect(try Self.postgres(pg).register(email, Array("correct horse mail".utf8)).status == 0)
                let env = ["LEDGER_MAILER": "env > '\(folder)/env'; cat > /dev/null", "LEDGER_STORE": pg.url.text,
                           "PGPASSWORD": "canary-pg-secret", "APP_SECRET": "canary-app-secret", "LEDGER_MAIL_FROM": "noreply@example.com"]
                let sent = try shellLedger(["account", "request-reset", "--email", email, "--data", pg.dir.path], input: [], env: env)
                #expect(sent.status == 0, "\(sent)")
                let seen = try readText(folder + "/env")
                #expect(seen.contains("PATH=") && seen.contains("LEDGER_MAIL_FROM=noreply@example.com"))
                #expect(!seen.contains("canary") && !seen.contains("postgres://") && !seen.contains("LEDGER_STORE"), "\(seen)")
            }
        }
    }

    /// The mailer (any process of the same user) cannot read `ledger`'s environment through
    /// `/proc/<pid>/environ` either: the process is not dumpable (found by an attack). Run as `nobody`
    /// when the tests run as root, since root reads any process's environment.
    @Test func noProcessOfTheSameUserReadsTheEnvironment() throws {
        try withTempDirectory("ledger-dump") { folder in
            let binary = folder + "/ledger"
            try FileManager.default.copyItem(atPath: Paths.ledger, toPath: binary)
            let asUser = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] : []
            if geteuid() == 0 {
                #expect(chown(folder, 65534, 65534) == 0 && chmod(folder, 0o755) == 0)
            }
            let env = "LEDGER_HASH_COST=1"
            func runAsUser(_ argv: [String]) throws -> ProcessResult {
                let all = asUser + ["/usr/bin/env"] + argv
                return try run(all[0], Array(all.dropFirst()))
            }
            let registered = try runAsUser([env, "/bin/sh", "-c",
                "echo 'correct horse environ' | \"$0\" register --data \"$1\"/d --email a@example.com --username A --password-stdin", binary, folder])
            #expect(registered.status == 0, "\(registered)\n\(asUser)")
            let mailer = "touch '\(folder)/ran'; cat /proc/$PPID/environ > '\(folder)/stolen' 2>/dev/null; cat > /dev/null"
            let sent = try runAsUser([env, "SECRET_CANARY=canary-environ-7", "LEDGER_MAILER=\(mailer)", binary,
                                      "account", "request-reset", "--data", folder + "/d", "--email", "a@example.com"])
            #expect(sent.status == 0, "\(sent)")
            #expect(FileManager.default.fileExists(atPath: folder + "/ran"), "the mailer ran")
            let stolen = (try? readText(folder + "/stolen")) ?? ""
            #expect(!stolen.contains("canary-environ-7"), "\(stolen)")
        }
    }

    /// `LEDGER_MAIL_FROM` is one address: a list or a smuggled header is exit 2 `bad-environment`,
    /// and the message is one line.
    @Test func mailFromIsOneAddress() throws {
        try withLedgerDir { dir in
            for bad in ["a@b.com,evil@evil.com", "a@b.com>Bcc:evil@evil.com", "a@b.com\nBcc: evil@evil.com", "Alice <a@b.com>"] {
                let result = try dir.run(["users", "--json"], env: ["LEDGER_MAIL_FROM": bad])
                #expect(result.status == 2 && result.stderrLines.count == 1, "\(result)")
                #expect((try? parseObject(result.stdout))?["code"] as? String == "bad-environment", "\(result)")
            }
            for good in ["noreply@example.com", "ledger@localhost"] {
                let result = try dir.run(["users"], env: ["LEDGER_MAIL_FROM": good])
                #expect(result.status != 2 && !result.stderr.contains("LEDGER_MAIL_FROM"), "\(result)")
            }
        }
    }

    /// Found by an attack on the first fixes: a password of invisible or unassigned characters, or
    /// longer than crypt(3) takes, is refused at validation (a `Failed`), not at hashing; a line of
    /// standard input without end (`< /dev/zero`) ends at once.
    @Test func passwordsOfInvisibleOrTooManyCharactersAreRefusedAtValidation() throws {
        try withLedgerDir { dir in
            let target = Self.file(dir)
            // U+1FAE8 and U+16D67 are assigned after Unicode 14.0.0, the version passwords are prepared by.
            for bad in ["\u{FEFF}correct horse", "correct\u{200B}horse", "correct\u{2028}horse", "correct \u{E000}horse", "correct \u{FFFF}horse",
                        "correct \u{1FAE8}horse", "correct \u{16D67}horse"] {
                let refused = try target.register(uniqueEmail("invisible"), Array(bad.utf8))
                #expect(refused.status == 1 && Self.failedReason(refused) == "invalid-password", "\(bad.unicodeScalars.map(\.value)): \(refused)")
            }
            let long = try target.register(uniqueEmail("long"), Array(repeating: 0x61, count: 600))
            #expect(long.status == 1 && Self.failedReason(long) == "password-too-long", "\(long)")
            let endless = try run("/bin/sh", ["-c", "exec \"$0\" register --data \"$1\" --email e@example.com --username E --password-stdin --json </dev/zero",
                                              Paths.ledger, dir.path], env: fastHashEnvironment)
            #expect(endless.status == 1 && Self.failedReason(endless) == "invalid-password", "\(endless)")
            let joiner = try target.register(uniqueEmail("joiner"), Array("correct\u{200D}horse".utf8))
            #expect(joiner.status == 0, "a zero-width joiner stays allowed: \(joiner)")
        }
    }

    /// Found by an attack: `login | true` lost its token in silence (killed by SIGPIPE after the
    /// session started); now a closed pipe is exit 3 saying what was recorded, for `register` and
    /// `login` only: a reader whose pipe closes still ends quietly.
    @Test func aClosedPipeNeverLosesATokenInSilence() throws {
        try withLedgerDir { dir in
            let target = Self.file(dir)
            let email = uniqueEmail("pipe"), password = Array("correct horse pipe".utf8)
            #expect(try target.register(email, password).status == 0)
            let piped = try run("/bin/bash", ["-c", "printf 'correct horse pipe\\n' | \"$0\" login --data \"$1\" --email \"$2\" --password-stdin | true; "
                                              + "echo \"status ${PIPESTATUS[1]}\"", Paths.ledger, dir.path, email], env: fastHashEnvironment)
            #expect(piped.stdout == "status 3\n" && piped.stderrLines.count == 1 && piped.stderr.contains("logout --session"), "\(piped)")
            let reader = try run("/bin/bash", ["-c", "\"$0\" events --data \"$1\" | head -c 1 >/dev/null; echo \"status ${PIPESTATUS[0]}\"", Paths.ledger, dir.path])
            #expect(reader.stderr.isEmpty && (reader.stdout == "status 141\n" || reader.stdout == "status 0\n"), "\(reader)")
        }
    }

    /// Found by an attack: bytes that are not UTF-8 in an argument were repaired into U+FFFD, so two
    /// idempotency keys became one; now such an argument is a usage error.
    @Test func anArgumentThatIsNotTextIsRefused() throws {
        try withLedgerDir { dir in
            let result = try run("/bin/bash", ["-c", "\"$0\" users --data \"$1\" --email $'a\\xffb'", Paths.ledger, dir.path])
            #expect(result.status == 2 && result.stderrLines.count == 1 && result.stderr.contains("not valid UTF-8"), "\(result)")
            // With --json the refusal is one object too.
            let json = try run("/bin/bash", ["-c", "\"$0\" users --json --data $'\\xff'", Paths.ledger])
            #expect(json.status == 2 && (try? parseObject(json.stdout))?["code"] as? String == "usage", "\(json)")
            // The same for a LEDGER_* value: a data folder named by bytes that are not UTF-8 is not another folder's.
            let env = try run("/bin/bash", ["-c", "LEDGER_DATA=\"$1\"$'/u8\\xff' \"$0\" users --json", Paths.ledger, dir.path])
            #expect(env.status == 2 && (try? parseObject(env.stdout))?["code"] as? String == "bad-environment", "\(env)")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/u8\u{FFFD}"))
        }
    }

    /// Found by an attack: a folder named like a temporary file stopped `recover` for good; only the
    /// ledger's own temporary names, with a pid as `getpid()` writes it, are removed.
    @Test func recoverLeavesWhatItDidNotWrite() throws {
        try withLedgerDir { dir in
            #expect(try dir.run(LedgerDir.registerArguments(email: uniqueEmail("left"), username: "L"), stdin: "correct horse left\n").status == 0)
            let dead = Int32.max - 7  // no such process
            let folder = dir.path + "/events.jsonl.checkpoint.tmp-\(dead)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try FileManager.default.createDirectory(atPath: dir.imageFolder + "/00000000-0000-4000-8000-000000000001", withIntermediateDirectories: true)
            let others = ["events.jsonl.tmp-\(dead)", "events.jsonl.index.new.tmp-\(dead)"]
            for name in others { try writeBytes([1, 2, 3], to: dir.path + "/" + name) }
            let odd = dir.imageFolder + "/00000000-0000-4000-8000-000000000002.tmp-0\(dead)"
            try writeBytes([1], to: odd)
            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            #expect(FileManager.default.fileExists(atPath: folder) && FileManager.default.fileExists(atPath: odd))
            for name in others { #expect(FileManager.default.fileExists(atPath: dir.path + "/" + name), "\(name)") }
        }
    }

    /// Found by an attack: a file name in `profile_image/` (or a value of a re-chained log) with a
    /// newline or a terminal escape was printed raw by `audit` and the tables; now escaped.
    @Test func humanOutputEscapesControlCharacters() throws {
        try withLedgerDir { dir in
            #expect(try dir.run(LedgerDir.registerArguments(email: uniqueEmail("esc"), username: "E"), stdin: "correct horse esc\n").status == 0)
            try writeBytes([1], to: dir.imageFolder + "/evil\nledger: all good\u{1B}[2J")
            let audit = try dir.run(["audit"])
            #expect(!audit.stdout.contains("\u{1B}") && audit.stdout.contains("evil\\nledger: all good\\u{1B}[2J"), "\(audit)")
            #expect(!audit.stdout.split(separator: "\n").contains { $0.hasPrefix("ledger: all good") }, "\(audit)")
        }
    }

    // MARK: 8: one error, one line

    /// An argument or a `LEDGER_*` value with a newline or an escape is echoed escaped: one line.
    @Test func anErrorIsOneLine() throws {
        try withLedgerDir { dir in
            let forged = "nobody\nledger: account admin@example.com deleted"
            let result = try dir.run(["account", "disable", forged])
            #expect(result.status == 1 && result.stderrLines.count == 1, "\(result)")
            #expect(result.stderr.contains("nobody\\nledger: account"))
            let escape = try dir.run(["account", "disable", "x\u{1B}[2Jy"])
            #expect(escape.stderrLines.count == 1 && !escape.stderr.contains("\u{1B}") && escape.stderr.contains("\\u{1B}"), "\(escape)")
            let env = try dir.run(["users"], env: ["LEDGER_CHECKPOINT_EVERY": "5\nledger: all good"])
            #expect(env.status == 2 && env.stderrLines.count == 1, "\(env)")
        }
    }
}

private extension Optional {
    /// The value, or a harness error.
    func unwrap() throws -> Wrapped {
        guard let self else { throw SystemTestError("no value") }
        return self
    }
}
