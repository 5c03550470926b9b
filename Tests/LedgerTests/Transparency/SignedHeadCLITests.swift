import Foundation
import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SignedHeadKeys

/// A log key and a witness key made by `ledger keygen` in a folder of their own (never the data
/// folder), and the `LEDGER_WITNESS` command of `ledger witness` with them.
struct SignedHeadKeys {
    /// The keys' folder.
    let folder: String

    /// Makes `log.skey/.vkey` (named `example.com/ledger`) and `w1.skey/.vkey` (a witness) in `folder`.
    init(folder: String) throws {
        self.folder = folder
        for arguments in [["keygen", "--name", "example.com/ledger", "--out", folder + "/log"],
                          ["keygen", "--name", "witness.example/w1", "--out", folder + "/w1", "--cosigner"]] {
            let made = try run(Paths.ledger, arguments)
            try #require(made.status == 0, "\(made)")
        }
    }

    /// A key file's path (`log.skey`, `w1.vkey`, …).
    func path(_ name: String) -> String { folder + "/" + name }

    /// `LEDGER_WITNESS` running `ledger witness` with the witness state `state` (its request copied to `request` when given).
    func witnessCommand(state: String, request: String? = nil) -> String {
        let witness = "'\(Paths.ledger)' witness --log-vkey '\(path("log.vkey"))' --key '\(path("w1.skey"))' --state '\(state)'"
        return request.map { "tee '\($0)' | \(witness)" } ?? witness
    }
}

/// `ledger verify --signed-head NOTE --vkey … [--witness-vkey …] --json` on `dir`: its status and problem kinds.
func signedHeadVerdict(_ run: ([String]) throws -> ProcessResult, note: String, vkey: String, witnesses: [String] = []) throws -> (status: Int32, kinds: [String], result: ProcessResult) {
    let result = try run(["verify", "--signed-head", note, "--vkey", vkey, "--json"] + witnesses.flatMap { ["--witness-vkey", $0] })
    let problems = (try? parseObject(result.stdout))?["problems"] as? [[String: Any]] ?? []
    return (result.status, problems.compactMap { $0["kind"] as? String }, result)
}

// MARK: - SignedHeadCLITests

/// `ledger head --key`, `LEDGER_WITNESS` and `ledger verify --signed-head` on a file store, end to
/// end through the built `ledger`: a signed head of a 3,000-line log verifies with the Python
/// verifier and with ledger; a history re-chained after signing (its tracks covered) is
/// `signed-head-mismatch`; a damaged signature or a key of another name is `bad-signature`; a
/// witness cosigns twice in a turn as the log grows and refuses a fork; hostile witnesses end in one line.
@Suite struct SignedHeadCLITests {
    @Test("a signed head of a 3,000-line log verifies with the Python verifier and with ledger verify --signed-head")
    func aSignedHeadVerifiesBothWays() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 3000) { dir, log in
                let signed = try dir.run(["head", "--key", keys.path("log.skey")])
                #expect(signed.status == 0 && signed.stderr.isEmpty, "\(signed)")
                let root = try log.root(3000)
                #expect(signed.stdout.hasPrefix("example.com/ledger\n3000\n\(root)\n\n— example.com/ledger "), "\(signed)")
                try writeBytes(Array(signed.stdout.utf8), to: folder + "/head.note")
                let python = try pythonTool("verify_signed_head.py", [folder + "/head.note", "--vkey", keys.path("log.vkey")])
                #expect(python.status == 0 && python.stdout.hasPrefix("ok: example.com/ledger size 3000 root \(root) "), "\(python)")
                let verdict = try signedHeadVerdict({ try dir.run($0) }, note: folder + "/head.note", vkey: keys.path("log.vkey"))
                #expect(verdict.status == 0 && verdict.kinds.isEmpty, "\(verdict.result)")
                let reported = try parseObject(verdict.result.stdout)["signedHead"] as? [String: Any]
                #expect(reported?["treeSize"] as? Int == 3000 && reported?["rootHash"] as? String == root && reported?["matches"] as? Bool == true)
                let text = try dir.run(["verify", "--signed-head", folder + "/head.note", "--vkey", keys.path("log.vkey")])
                #expect(text.status == 0 && text.stdout.contains("ok: signed head example.com/ledger size 3000 root \(root)"), "\(text)")
                // --json carries the same note; --origin changes the origin line only.
                let json = try parseObject(try dir.run(["head", "--key", keys.path("log.skey"), "--json"]).stdout)
                #expect(json["signedHead"] as? String == signed.stdout && json["treeSize"] as? Int == 3000 && json["rootHash"] as? String == root)
                let other = try dir.run(["head", "--key", keys.path("log.skey"), "--origin", "example.com/ledger/2"])
                #expect(other.status == 0 && other.stdout.hasPrefix("example.com/ledger/2\n3000\n"), "\(other)")
            }
        }
    }

    @Test("a history re-chained after the head was signed, its caches removed, is signed-head-mismatch; so is a head past the log")
    func aRechainedHistoryIsASignedHeadMismatch() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 400) { dir, _ in
                try writeBytes(Array(try dir.run(["head", "--key", keys.path("log.skey")]).stdout.utf8), to: folder + "/head.note")
                var envelopes = try LogRewriting.envelopes(try readBytes(dir.logPath))
                envelopes[99].at = Timestamp(millis: envelopes[99].at.millis + 1)
                try writeBytes(LogRewriting.chained(envelopes), to: dir.logPath)
                // The attacker covers their tracks: every cache that recorded the old lines is discarded.
                #expect(try dir.run(["recover", "--accept-history"]).status == 0)
                #expect(try dir.run(["verify"]).status == 0, "the chain alone holds")
                let verdict = try signedHeadVerdict({ try dir.run($0) }, note: folder + "/head.note", vkey: keys.path("log.vkey"))
                #expect(verdict.status == 1 && verdict.kinds == ["signed-head-mismatch"], "\(verdict.result)")
                let text = try dir.run(["verify", "--signed-head", folder + "/head.note", "--vkey", keys.path("log.vkey")])
                #expect(text.status == 1 && text.stdout.contains("signed-head-mismatch") && text.stdout.contains("MISMATCH:"), "\(text)")
                // A log cut back below the head's size.
                try writeBytes(Array(splitLines(LogRewriting.chained(envelopes)).prefix(300).joined()), to: dir.logPath)
                #expect(try dir.run(["recover", "--accept-history"]).status == 0)
                let cut = try signedHeadVerdict({ try dir.run($0) }, note: folder + "/head.note", vkey: keys.path("log.vkey"))
                #expect(cut.status == 1 && cut.kinds.contains("signed-head-mismatch") && cut.result.stdout.contains("400 lines"), "\(cut.result)")
            }
        }
    }

    @Test("a damaged signature, a key of another name, a missing cosignature or a file too large is bad-signature")
    func badSignatures() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            #expect(try run(Paths.ledger, ["keygen", "--name", "other.example/ledger", "--out", folder + "/other"]).status == 0)
            try withTreeLedger(events: 200) { dir, _ in
                let note = try dir.run(["head", "--key", keys.path("log.skey")]).stdout
                var damaged = Array(note.utf8)
                damaged[damaged.count - 5] = damaged[damaged.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                try writeBytes(damaged, to: folder + "/damaged.note")
                try writeBytes(Array(note.utf8), to: folder + "/head.note")
                try writeBytes(Array(try dir.run(["head", "--key", folder + "/other.skey"]).stdout.utf8), to: folder + "/other.note")
                try writeBytes([UInt8](repeating: 0x41, count: 1 << 20), to: folder + "/huge.note")
                let cases: [(String, String, [String])] = [
                    ("damaged.note", keys.path("log.vkey"), []), ("head.note", folder + "/other.vkey", []),
                    ("other.note", keys.path("log.vkey"), []), ("head.note", keys.path("log.vkey"), [keys.path("w1.vkey")]),
                    ("huge.note", keys.path("log.vkey"), []),
                ]
                for (file, vkey, witnesses) in cases {
                    let verdict = try signedHeadVerdict({ try dir.run($0) }, note: folder + "/" + file, vkey: vkey, witnesses: witnesses)
                    #expect(verdict.status == 1 && verdict.kinds == ["bad-signature"], "\(file) \(vkey): \(verdict.result)")
                }
                let python = try pythonTool("verify_signed_head.py", [folder + "/damaged.note", "--vkey", keys.path("log.vkey")])
                #expect(python.status == 1, "\(python)")
            }
        }
    }

    @Test("head --key with LEDGER_WITNESS gets a cosigned head twice as the log grows, the second request from the first size with a real proof")
    func aWitnessCosignsTwiceAsTheLogGrows() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 3000) { dir, log in
                let env = ["LEDGER_WITNESS": keys.witnessCommand(state: folder + "/w1.state", request: folder + "/request")]
                let first = try dir.run(["head", "--key", keys.path("log.skey")], env: env)
                #expect(first.status == 0 && first.stderr.isEmpty && first.stdout.contains("\n— witness.example/w1 "), "\(first)")
                #expect(try String(contentsOfFile: folder + "/request", encoding: .utf8).hasPrefix("old 0\n\nexample.com/ledger\n3000\n"))
                try writeBytes(Array(first.stdout.utf8), to: folder + "/first.note")
                let verdict = try signedHeadVerdict({ try dir.run($0) }, note: folder + "/first.note", vkey: keys.path("log.vkey"), witnesses: [keys.path("w1.vkey")])
                #expect(verdict.status == 0 && verdict.kinds.isEmpty, "\(verdict.result)")
                let recorded = try String(contentsOfFile: dir.logPath + ".witnesses", encoding: .utf8)
                #expect(recorded == WitnessSizes.id(ofCommand: env["LEDGER_WITNESS"]!) + " 3000\n")

                #expect(try dir.register(email: "grown@example.com").status == 0)
                let second = try dir.run(["head", "--key", keys.path("log.skey")], env: env)
                #expect(second.status == 0 && second.stdout.contains("\n— witness.example/w1 "), "\(second)")
                let grown = try TreeLog(path: dir.logPath)
                let request = try String(contentsOfFile: folder + "/request", encoding: .utf8)
                let lines = request.split(separator: "\n", omittingEmptySubsequences: false)
                let proof = lines.dropFirst().prefix { !$0.isEmpty }.compactMap { Digest32(base64: String($0)) }
                let expected = try grown.tree.consistencyProof(oldSize: 3000, newSize: UInt64(grown.lines.count))
                #expect(lines.first == "old 3000" && !proof.isEmpty && proof == expected, "\(request)")
                #expect(MerkleProof.verifyConsistency(oldSize: 3000, newSize: UInt64(grown.lines.count), oldRoot: try grown.tree.root(size: 3000),
                                                      newRoot: try grown.tree.root(size: UInt64(grown.lines.count)), proof: proof, hasher: .sha256))
                try writeBytes(Array(second.stdout.utf8), to: folder + "/second.note")
                let again = try signedHeadVerdict({ try dir.run($0) }, note: folder + "/second.note", vkey: keys.path("log.vkey"), witnesses: [keys.path("w1.vkey")])
                #expect(again.status == 0 && again.kinds.isEmpty, "\(again.result)")
                let python = try pythonTool("verify_signed_head.py", [folder + "/second.note", "--vkey", keys.path("log.vkey"), "--witness-vkey", keys.path("w1.vkey")])
                #expect(python.status == 0, "\(python)")
                // The log's record lost: the witness's size-conflict answer gives the size, asked once more.
                try FileManager.default.removeItem(atPath: dir.logPath + ".witnesses")
                let third = try dir.run(["head", "--key", keys.path("log.skey")], env: env)
                #expect(third.status == 0 && third.stderr.isEmpty && third.stdout.contains("\n— witness.example/w1 "), "\(third)")
                _ = log
            }
        }
    }

    @Test("a witness refuses a fork given through head --key: two logs sharing a prefix, in turn")
    func aWitnessRefusesAFork() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 300) { dir, _ in
                let original = try readBytes(dir.logPath)
                var envelopes = try LogRewriting.envelopes(original)
                envelopes[149].at = Timestamp(millis: envelopes[149].at.millis + 1)
                let env = ["LEDGER_WITNESS": keys.witnessCommand(state: folder + "/w1.state")]
                try writeBytes(Array(splitLines(original).prefix(200).joined()), to: dir.logPath)
                #expect(try dir.run(["head", "--key", keys.path("log.skey")], env: env).status == 0)
                try withLedgerDir { fork in
                    try writeBytes(LogRewriting.chained(envelopes), to: fork.logPath)
                    // The key remembers its head at 200: it refuses the fork itself, the witness never asked.
                    let own = try fork.run(["head", "--key", keys.path("log.skey"), "--json"], env: env)
                    #expect(own.status == 1 && (try? parseObject(own.stdout))?["code"] as? String == "signed-head-mismatch", "\(own)")
                    // A copy of the key without its memory (whoever holds the key can sign anything): the witness refuses.
                    try FileManager.default.createDirectory(atPath: folder + "/copy", withIntermediateDirectories: false)
                    try FileManager.default.copyItem(atPath: keys.path("log.skey"), toPath: folder + "/copy/log.skey")
                    let refused = try fork.run(["head", "--key", folder + "/copy/log.skey", "--json"], env: env)
                    let error = try parseObject(refused.stdout)
                    #expect(refused.status == 1 && error["code"] as? String == "witness-refused", "\(refused)")
                    #expect((error["message"] as? String)?.contains("bad-proof") == true, "\(refused)")
                    let plain = try fork.run(["head", "--key", folder + "/copy/log.skey"], env: env)
                    #expect(plain.status == 1 && plain.stdout.isEmpty && plain.stderr.split(separator: "\n").count == 1, "\(plain)")
                }
            }
        }
    }

    @Test("a witness that hangs, floods, answers garbage or fails ends head --key in one line, nothing on standard output; it sees no secret")
    func hostileWitnesses() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 50) { dir, _ in
                let cases: [(String, String)] = [
                    ("sleep 30", "did not answer within 1 s"), ("cat > /dev/null; yes", "more than 16384 bytes"),
                    ("cat > /dev/null; echo garbage", "cosignature lines"), ("cat > /dev/null; echo nope >&2; exit 4", "exited 4: nope"),
                    ("cat > /dev/null; echo '— example.com/ledger AAAAAAAA'", "in the log key's name"),
                    ("cat > /dev/null; echo 99999", "past this log's 50"),
                ]
                for (command, said) in cases {
                    let started = Date()
                    let result = try dir.run(["head", "--key", keys.path("log.skey")], env: ["LEDGER_WITNESS": command, "LEDGER_WITNESS_TIMEOUT": "1"])
                    #expect(result.status == 1 && result.stdout.isEmpty && result.stderr.split(separator: "\n").count == 1, "\(command): \(result)")
                    #expect(result.stderr.contains(said), "\(command): \(result)")
                    #expect(Date().timeIntervalSince(started) < 20, "\(command)")
                }
                let env = ["LEDGER_WITNESS": "env > '\(folder)/env'; cat > /dev/null; exit 1", "LEDGER_STORE_SECRET_CANARY": "canary-29",
                           "PGPASSWORD": "canary-pg", "LEDGER_DATA": dir.path]
                #expect(try dir.run(["head", "--key", keys.path("log.skey")], env: env).status == 1)
                let seen = try String(contentsOfFile: folder + "/env", encoding: .utf8)
                #expect(!seen.contains("canary") && !seen.contains("LEDGER_") && !seen.contains("PGPASSWORD"), "\(seen)")
                #expect(try dir.run(["head", "--key", keys.path("log.skey")], env: ["LEDGER_WITNESS_TIMEOUT": "0"]).status == 2)
                // The log's witness record is never read or written through a symbolic link.
                try "precious\n".write(toFile: folder + "/target", atomically: false, encoding: .utf8)
                try FileManager.default.createSymbolicLink(atPath: dir.logPath + ".witnesses", withDestinationPath: folder + "/target")
                let linked = try dir.run(["head", "--key", keys.path("log.skey")], env: ["LEDGER_WITNESS": keys.witnessCommand(state: folder + "/w1.state")])
                #expect(linked.status == 3 && linked.stdout.isEmpty && linked.stderr.contains("symbolic link"), "\(linked)")
                #expect(try String(contentsOfFile: folder + "/target", encoding: .utf8) == "precious\n")
            }
        }
    }

    @Test("a migrated log is a new log: its heads take a new origin, signed by a key of that name; the old origin's witness refuses them")
    func aMigratedLogTakesANewOrigin() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            #expect(try run(Paths.ledger, ["keygen", "--name", "example.com/ledger/2", "--out", folder + "/log2"]).status == 0)
            try withTreeLedger(events: 200) { dir, _ in
                let env = ["LEDGER_WITNESS": keys.witnessCommand(state: folder + "/w1.state")]
                let old = try dir.run(["head", "--key", keys.path("log.skey")], env: env)
                #expect(old.status == 0, "\(old)")
                try writeBytes(Array(old.stdout.utf8), to: folder + "/old.note")
                let migrated = folder + "/migrated"
                #expect(try run(Paths.ledger, ["migrate", "--from", dir.logPath, "--data", migrated], env: fastHashEnvironment).status == 0)
                let sameKey = try run(Paths.ledger, ["head", "--key", keys.path("log.skey"), "--origin", "example.com/ledger/2", "--data", migrated], env: env)
                #expect(sameKey.status == 1 && sameKey.stdout.isEmpty && sameKey.stderr.contains("unknown-origin"), "\(sameKey)")
                let witness2 = "'\(Paths.ledger)' witness --log-vkey '\(folder)/log2.vkey' --key '\(keys.path("w1.skey"))' --state '\(folder)/w1-log2.state'"
                let new = try run(Paths.ledger, ["head", "--key", folder + "/log2.skey", "--data", migrated], env: ["LEDGER_WITNESS": witness2])
                #expect(new.status == 0 && new.stdout.hasPrefix("example.com/ledger/2\n201\n"), "\(new)")
                try writeBytes(Array(new.stdout.utf8), to: folder + "/new.note")
                let inMigrated: ([String]) throws -> ProcessResult = { try run(Paths.ledger, $0 + ["--data", migrated]) }
                let verdict = try signedHeadVerdict(inMigrated, note: folder + "/new.note", vkey: folder + "/log2.vkey", witnesses: [keys.path("w1.vkey")])
                #expect(verdict.status == 0 && verdict.kinds.isEmpty, "\(verdict.result)")
                let oldHead = try signedHeadVerdict(inMigrated, note: folder + "/old.note", vkey: keys.path("log.vkey"))
                #expect(oldHead.status == 1 && oldHead.kinds == ["signed-head-mismatch"], "the old log's head is not the new log's: \(oldHead.result)")
            }
        }
    }

    @Test("a read-only copy of the log, where no tree state can be written, is checked from its lines")
    func aReadOnlyCopyIsCheckedFromItsLines() throws {
        try withTempDirectory("ledger-readonly") { folder in
            for sub in ["keys", "ro", "rewritten"] { try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: false) }
            let keys = try SignedHeadKeys(folder: folder + "/keys")
            let binary = folder + "/ledger"
            try FileManager.default.copyItem(atPath: Paths.ledger, toPath: binary)
            try withTreeLedger(events: 300) { dir, _ in
                try writeBytes(Array(try dir.run(["head", "--key", keys.path("log.skey")]).stdout.utf8), to: folder + "/head.note")
                let original = try readBytes(dir.logPath)
                try writeBytes(original, to: folder + "/ro/events.jsonl")
                var envelopes = try LogRewriting.envelopes(original)
                envelopes[19].at = Timestamp(millis: envelopes[19].at.millis + 1)
                try writeBytes(LogRewriting.chained(envelopes), to: folder + "/rewritten/events.jsonl")
            }
            // Root may write anywhere: the copies are checked as `nobody`, who may only read them.
            let asUser = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] : []
            for path in [folder, folder + "/keys", folder + "/ro", folder + "/rewritten"] { #expect(chmod(path, 0o555) == 0) }
            defer { for path in [folder, folder + "/keys", folder + "/ro", folder + "/rewritten"] { _ = chmod(path, 0o755) } }
            func verify(_ copy: String) throws -> (status: Int32, kinds: [String], result: ProcessResult) {
                let all = asUser + [binary, "verify", folder + "/" + copy + "/events.jsonl", "--signed-head", folder + "/head.note",
                                    "--vkey", keys.path("log.vkey"), "--json"]
                let result = try run(all[0], Array(all.dropFirst()), env: fastHashEnvironment)
                let problems = (try? parseObject(result.stdout))?["problems"] as? [[String: Any]] ?? []
                return (result.status, problems.compactMap { $0["kind"] as? String }, result)
            }
            let intact = try verify("ro")
            #expect(intact.status == 0 && intact.kinds.isEmpty, "\(intact.result)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/ro/events.jsonl.tree"))
            let rewritten = try verify("rewritten")
            #expect(rewritten.status == 1 && rewritten.kinds == ["signed-head-mismatch"], "\(rewritten.result)")
        }
    }

    @Test("usage: a witness key as --key, --origin without --key, --vkey without --signed-head, --signed-head without --vkey")
    func usageErrors() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 20) { dir, _ in
                try writeBytes(Array(try dir.run(["head", "--key", keys.path("log.skey")]).stdout.utf8), to: folder + "/head.note")
                for arguments in [["head", "--key", keys.path("w1.skey")], ["head", "--origin", "x"],
                                  ["head", "--key", keys.path("log.skey"), "--origin", "two\nlines"], ["head", "--key", keys.path("log.skey"), "--origin", ""],
                                  ["verify", "--vkey", keys.path("log.vkey")], ["verify", "--signed-head", folder + "/head.note"],
                                  ["verify", "--signed-head", folder + "/head.note", "--vkey", keys.path("log.skey")]] {
                    let result = try dir.run(arguments)
                    #expect(result.status == 2 && result.stdout.isEmpty && result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result)")
                    #expect(!result.stderr.contains("PRIVATE"), "\(arguments): \(result)")
                }
            }
        }
    }
}
