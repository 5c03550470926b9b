import Foundation
import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - KeygenCLITests

/// `ledger keygen` end to end: the two files, their modes and one line each, the secret never
/// printed, `--json`, `--cosigner`, no file ever replaced (a link there included), and bad names.
@Suite struct KeygenCLITests {
    /// The permission bits of `path` (not following a link).
    func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    @Test("a log key: PREFIX.skey (0600) and PREFIX.vkey (0644), one line each; the secret is never printed")
    func logKey() throws {
        try withTempDirectory { dir in
            let result = try ledger("keygen", "--name", "example.com/ledger", "--out", "keys/log", cwd: dir, mkdir: "keys")
            #expect(result.status == 0, "\(result)")
            let skey = try readText(dir + "/keys/log.skey"), vkey = try readText(dir + "/keys/log.vkey")
            #expect(mode(dir + "/keys/log.skey") == 0o600 && mode(dir + "/keys/log.vkey") == 0o644)
            #expect(skey.hasPrefix("PRIVATE+KEY+example.com/ledger+") && skey.hasSuffix("\n") && skey.filter { $0 == "\n" }.count == 1)
            #expect(vkey.hasPrefix("example.com/ledger+") && vkey.hasSuffix("\n") && vkey.filter { $0 == "\n" }.count == 1)
            let signer = try NoteKeyFiles.readSigner(dir + "/keys/log.skey")
            let verifier = try NoteKeyFiles.readVerifier(dir + "/keys/log.vkey")
            #expect(signer.type == .ed25519 && signer.verifierKey == verifier)
            let secret = String(skey.dropLast().split(separator: "+", maxSplits: 4)[4])
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
            #expect(result.stdoutLines.last == String(vkey.dropLast()))
            #expect(!FileManager.default.fileExists(atPath: dir + "/keys/log.skey.tmp-\(getpid())"))
        }
    }

    @Test("--cosigner --json: a witness key (type 4), described as documented")
    func witnessKeyJSON() throws {
        try withTempDirectory { dir in
            let result = try ledger("keygen", "--name", "witness.example/w1", "--out", "w1", "--cosigner", "--json", cwd: dir)
            #expect(result.status == 0, "\(result)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let vkey = try NoteKeyFiles.readVerifier(dir + "/w1.vkey")
            #expect(vkey.type == .cosignatureV1)
            #expect(object["status"] as? String == "created" && object["type"] as? String == "witness")
            #expect(object["name"] as? String == "witness.example/w1" && object["vkey"] as? String == vkey.text)
            #expect(object["keyID"] as? String == String(vkey.text.split(separator: "+")[1]))
            #expect(object["skeyFile"] as? String == "w1.skey" && object["vkeyFile"] as? String == "w1.vkey")
            #expect(Set(object.keys) == ["status", "name", "type", "keyID", "vkey", "skeyFile", "vkeyFile"])
        }
    }

    @Test("an existing PREFIX.skey or PREFIX.vkey (or a link there) is never replaced: exit 1, key-exists, nothing written")
    func neverOverwrites() throws {
        try withTempDirectory { dir in
            #expect(try ledger("keygen", "--name", "a.example", "--out", "k", cwd: dir).status == 0)
            let before = try readText(dir + "/k.skey")
            let again = try ledger("keygen", "--name", "a.example", "--out", "k", "--json", cwd: dir)
            #expect(again.status == 1 && again.stdout.contains("\"code\":\"key-exists\"") && again.stderrLines.count == 1)
            #expect(try readText(dir + "/k.skey") == before)
            try writeBytes(Array("mine\n".utf8), to: dir + "/only.vkey")
            #expect(try ledger("keygen", "--name", "a.example", "--out", "only", cwd: dir).status == 1)
            let kept = try readText(dir + "/only.vkey")
            #expect(!FileManager.default.fileExists(atPath: dir + "/only.skey") && kept == "mine\n")
            try FileManager.default.createSymbolicLink(atPath: dir + "/link.skey", withDestinationPath: dir + "/target")
            #expect(try ledger("keygen", "--name", "a.example", "--out", "link", cwd: dir).status == 1)
            #expect(!FileManager.default.fileExists(atPath: dir + "/target") && !FileManager.default.fileExists(atPath: dir + "/link.vkey"))
        }
    }

    @Test("a bad name is a usage error (exit 2, bad-key-name); a missing folder is exit 3; nothing is written")
    func badInput() throws {
        try withTempDirectory { dir in
            for name in ["a b", "a+b", "tab\there", "nbsp\u{A0}"] {
                let result = try ledger("keygen", "--name", name, "--out", "k", "--json", cwd: dir)
                #expect(result.status == 2 && result.stdout.contains("\"code\":\"bad-key-name\""), "\(name.debugDescription): \(result)")
                #expect(result.stderrLines.count == 1)
            }
            #expect(try ledger("keygen", "--name", "", "--out", "k", cwd: dir).status == 2)
            #expect(try ledger("keygen", "--out", "k", cwd: dir).status == 2)
            #expect(try ledger("keygen", "--name", "a.example", "--out", "no/such/folder/k", cwd: dir).status == 3)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        }
    }
}

/// Runs the built `ledger` in `cwd`, after creating the folder `mkdir` there.
func ledger(_ arguments: String..., cwd: String, mkdir folder: String) throws -> ProcessResult {
    try FileManager.default.createDirectory(atPath: cwd + "/" + folder, withIntermediateDirectories: true)
    return try run(Paths.ledger, arguments, cwd: cwd)
}
