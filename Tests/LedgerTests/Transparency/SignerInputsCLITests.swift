import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SignerInputsCLITests

/// What `head --key`, `verify --signed-head`, `prove` and `keygen` take from outside, through the
/// built `ledger`: a witness answer that is no cosignature of its own is not counted; an origin is a
/// short line; a foreign signature line of a long key name is ignored, as Go's `note.Open` ignores
/// unknown keys; a repeated `--size`, a `keygen --out` folder and an oversized witness record.
@Suite struct SignerInputsCLITests {
    /// The key id of the one-line .vkey at `path` (`NAME+KEYID+BASE64`), as 4 bytes.
    private func keyID(_ path: String) throws -> [UInt8] {
        let hex = try String(contentsOfFile: path, encoding: .utf8).split(separator: "+")[1]
        return stride(from: 0, to: 8, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
    }

    @Test("a witness that echoes the log's signature, or answers a cosignature that does not verify under --witness-vkey, is refused and not recorded")
    func echoedOrForgedCosignaturesAreNotCounted() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 50) { dir, _ in
                let sizes = dir.logPath + ".witnesses"
                let echo = try dir.run(["head", "--key", keys.path("log.skey")], env: ["LEDGER_WITNESS": "grep '^— '"])
                #expect(echo.status == 1 && echo.stdout.isEmpty && echo.stderr.contains("no cosignature of its own"), "\(echo)")
                #expect(!FileManager.default.fileExists(atPath: sizes), "an echo is not counted as cosigned")
                // A line of a cosignature's shape in the witness's name and id, its signature zeros.
                let forged = "— witness.example/w1 " + Data(try keyID(keys.path("w1.vkey")) + [UInt8](repeating: 0, count: 72)).base64EncodedString()
                let forger = ["LEDGER_WITNESS": "cat > /dev/null; echo '\(forged)'"]
                let refused = try dir.run(["head", "--key", keys.path("log.skey"), "--witness-vkey", keys.path("w1.vkey"), "--json"], env: forger)
                let error = try parseObject(refused.stdout)
                #expect(refused.status == 1 && error["code"] as? String == "witness-refused", "\(refused)")
                #expect((error["message"] as? String)?.contains("not a valid cosignature") == true, "\(refused)")
                #expect(!FileManager.default.fileExists(atPath: sizes))
                // The real witness, checked the same way: cosigned and recorded.
                let env = ["LEDGER_WITNESS": keys.witnessCommand(state: folder + "/w1.state")]
                let real = try dir.run(["head", "--key", keys.path("log.skey"), "--witness-vkey", keys.path("w1.vkey")], env: env)
                #expect(real.status == 0 && real.stdout.contains("\n— witness.example/w1 "), "\(real)")
                #expect(try String(contentsOfFile: sizes, encoding: .utf8).hasSuffix(" 50\n"))
                for (arguments, environment) in [(["--witness-vkey", keys.path("w1.vkey")], [String: String]()),
                                                  (["--witness-vkey", keys.path("log.vkey")], env)] {
                    let usage = try dir.run(["head", "--key", keys.path("log.skey")] + arguments, env: environment)
                    #expect(usage.status == 2 && usage.stdout.isEmpty && usage.stderr.split(separator: "\n").count == 1, "\(arguments): \(usage)")
                }
            }
        }
    }

    @Test("an origin longer than 256 bytes is a usage error in one line; 256 bytes is signed")
    func aLongOriginIsAUsageError() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 20) { dir, _ in
                let long = try dir.run(["head", "--key", keys.path("log.skey"), "--origin", String(repeating: "o", count: 257)])
                #expect(long.status == 2 && long.stdout.isEmpty && long.stderr.split(separator: "\n").count == 1 && long.stderr.contains("--origin"), "\(long)")
                let tab = try dir.run(["head", "--key", keys.path("log.skey"), "--origin", "a\tb"])
                #expect(tab.status == 2, "\(tab)")
                let fits = try dir.run(["head", "--key", keys.path("log.skey"), "--origin", String(repeating: "o", count: 256)])
                #expect(fits.status == 0 && fits.stdout.hasPrefix(String(repeating: "o", count: 256) + "\n20\n"), "\(fits)")
            }
        }
    }

    @Test("verify --signed-head ignores a foreign signature line whose key name is longer than 256 bytes or holds DEL or a C1 control")
    func aForeignLongKeyNameIsIgnored() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 20) { dir, _ in
                let note = try dir.run(["head", "--key", keys.path("log.skey")]).stdout
                for name in [String(repeating: "n", count: 300), "del\u{7F}name", "c1\u{80}\u{9F}name"] {
                    let foreign = "— " + name + " " + Data([1, 2, 3, 4] + [UInt8](repeating: 9, count: 64)).base64EncodedString() + "\n"
                    try writeBytes(Array((note + foreign).utf8), to: folder + "/head.note")
                    let verdict = try signedHeadVerdict({ try dir.run($0) }, note: folder + "/head.note", vkey: keys.path("log.vkey"))
                    #expect(verdict.status == 0 && verdict.kinds.isEmpty, "\(name.debugDescription): \(verdict.result)")
                    let python = try pythonTool("verify_signed_head.py", [folder + "/head.note", "--vkey", keys.path("log.vkey")])
                    #expect(python.status == 0, "the independent verifier agrees: \(name.debugDescription): \(python)")
                }
            }
        }
    }

    @Test("keygen refuses a name with DEL or a C1 control, and an --out folder that does not exist; a folder at a key or state path says so; a count past 2^62 is too large")
    func namesFoldersAndNumbers() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            for name in ["a\u{7F}b", "a\u{80}b", "a\u{9F}b", "a\u{01}b"] {
                let refused = try run(Paths.ledger, ["keygen", "--name", name, "--out", folder + "/bad"])
                #expect(refused.status == 2 && refused.stderr.contains("control character"), "\(name.debugDescription): \(refused)")
            }
            let nowhere = try run(Paths.ledger, ["keygen", "--name", "example.com/x", "--out", folder + "/nodir/e"])
            #expect(nowhere.status == 3 && nowhere.stderr.contains("does not exist") && nowhere.stderr.contains("nodir"), "\(nowhere)")
            try FileManager.default.createDirectory(atPath: folder + "/adir.skey", withIntermediateDirectories: false)
            try withTreeLedger(events: 10) { dir, _ in
                let folderKey = try dir.run(["head", "--key", folder + "/adir.skey"])
                #expect(folderKey.status == 3 && folderKey.stderr.contains("is a directory") && !folderKey.stderr.contains("not a log file"), "\(folderKey)")
                let large = try dir.run(["prove", "4611686018427387904"])
                #expect(large.status == 2 && large.stderr.contains("too large") && !large.stderr.contains("decimal digits"), "\(large)")
                let note = try dir.run(["head", "--key", keys.path("log.skey")]).stdout
                try FileManager.default.createDirectory(atPath: folder + "/wstate", withIntermediateDirectories: false)
                let witness = try run(Paths.ledger, ["witness", "--log-vkey", keys.path("log.vkey"), "--key", keys.path("w1.skey"), "--state", folder + "/wstate"], stdin: "old 0\n\n" + note)
                #expect(witness.status == 3 && witness.stderr.contains("is a directory") && !witness.stderr.contains("not a log file"), "\(witness)")
            }
        }
    }

    @Test("a repeated --size, a keygen --out that names a folder, and a witness record over 64 KiB")
    func repeatedSizeFolderPrefixAndOversizedRecord() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 30) { dir, _ in
                for arguments in [["prove", "3", "--size", "10", "--size", "20"], ["prove", "--consistency", "2", "--size=5", "--size", "9"]] {
                    let twice = try dir.run(arguments)
                    #expect(twice.status == 2 && twice.stderr.contains("--size is given twice") && twice.stderr.split(separator: "\n").count == 1, "\(arguments): \(twice)")
                }
                try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: false)
                let made = try run(Paths.ledger, ["keygen", "--name", "example.com/x", "--out", folder + "/out/"])
                #expect(made.status == 2 && made.stderr.contains("--out") && made.stderr.split(separator: "\n").count == 1, "\(made)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out").isEmpty)
                // A record over 64 KiB is no record ledger wrote: ignored, then replaced by the witness's line.
                try writeBytes([UInt8](repeating: 0x41, count: 70_000), to: dir.logPath + ".witnesses")
                let env = ["LEDGER_WITNESS": keys.witnessCommand(state: folder + "/w1.state")]
                let signed = try dir.run(["head", "--key", keys.path("log.skey")], env: env)
                #expect(signed.status == 0 && signed.stdout.contains("\n— witness.example/w1 "), "\(signed)")
                let record = try String(contentsOfFile: dir.logPath + ".witnesses", encoding: .utf8)
                #expect(record.hasSuffix(" 30\n") && record.utf8.count < 100, "\(record)")
            }
        }
    }
}
