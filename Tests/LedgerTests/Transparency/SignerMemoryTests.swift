import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - SignerMemoryTests

/// The heads a key signed are remembered beside the key (`log.heads`), not in the data folder:
/// someone who writes the data folder cannot point the signer at a copy of its last line (the
/// offsets are the signer's own), cannot make it forget by cutting the log below the size it
/// signed, and a damaged memory is an error of its own, never a silent first signing.
@Suite struct SignerMemoryTests {
    /// `head --key` on `dir` refused with `code`, nothing printed, the memory unchanged.
    private func expectRefused(_ dir: LedgerDir, _ keys: SignedHeadKeys, _ code: String, _ what: String) throws {
        let before = try? readBytes(keys.path("log.heads"))
        let refused = try dir.run(["head", "--key", keys.path("log.skey"), "--json"])
        #expect(refused.status == 1 && (try? parseObject(refused.stdout))?["code"] as? String == code, "\(what): \(refused)")
        #expect(!refused.stdout.contains("signedHead"), "\(what): \(refused)")
        #expect((try? readBytes(keys.path("log.heads"))) == before, "\(what)")
    }

    @Test("a copy of the last signed line followed by another chained tail, the state re-sealed over it, is refused")
    func aCopiedLastLineIsNotTakenForIt() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 250) { dir, _ in
                let honest = try readBytes(dir.logPath), lines = splitLines(honest)
                try writeBytes(Array(lines.prefix(200).joined()), to: dir.logPath)
                #expect(try dir.run(["head", "--key", keys.path("log.skey")]).status == 0)
                // Lines 201–250 (honest), a byte-identical copy of line 200, then another 201–250 chained from 200.
                var envelopes = try LogRewriting.envelopes(honest)
                for i in 200..<250 { envelopes[i].at = Timestamp(millis: envelopes[i].at.millis + 1) }
                let other = Array(splitLines(LogRewriting.chained(envelopes)).suffix(50))
                try writeBytes(honest + Array(lines[199]) + Array(other.joined()), to: dir.logPath)
                // The state re-sealed over lines 1–200 and the other tail, covering the file's last line.
                let forged = try ForgedState.leaves(dir.logPath)
                let leaves = Array(forged.prefix(200)) + Array(forged.suffix(50))
                try ForgedState.write(dir, nodes: StoredNodes(leaves: leaves).hashes, leaves: 250, mark: try ForgedState.lastMark(dir.logPath))
                try expectRefused(dir, keys, "cache-mismatch", "the copy")
                // The state rebuilt from the log: the honest 250 lines (the copy ends the intact prefix).
                try FileManager.default.removeItem(atPath: treePath(dir))
                let signed = try dir.run(["head", "--key", keys.path("log.skey")])
                let honestRoot = try TreeLog(path: dir.logPath).root(250)
                #expect(signed.status == 0 && signed.stdout.hasPrefix("example.com/ledger\n250\n\(honestRoot)\n"), "\(signed)")
            }
        }
    }

    @Test("a head given to a witness that fails is remembered: the tail re-chained after it is refused")
    func aHeadTheWitnessSawIsRememberedWhenTheWitnessFails() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 120) { dir, _ in
                let lines = splitLines(try readBytes(dir.logPath))
                try writeBytes(Array(lines.prefix(100).joined()), to: dir.logPath)
                #expect(try dir.run(["head", "--key", keys.path("log.skey")]).status == 0)
                try writeBytes(Array(lines.joined()), to: dir.logPath)
                // The witness keeps what it was sent, then fails: the head at 120 has left the process.
                let failing = ["LEDGER_WITNESS": "cat > '\(folder)/sent'; exit 1"]
                let refused = try dir.run(["head", "--key", keys.path("log.skey")], env: failing)
                #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused)")
                #expect((try? String(contentsOfFile: folder + "/sent", encoding: .utf8))?.contains("\n120\n") == true)
                // Lines 101–120 re-chained with other times, the state removed: a fork of the head sent.
                var envelopes = try LogRewriting.envelopes(Array(lines.joined()))
                for i in 100..<120 { envelopes[i].at = Timestamp(millis: envelopes[i].at.millis + 1) }
                try writeBytes(LogRewriting.chained(envelopes), to: dir.logPath)
                try? FileManager.default.removeItem(atPath: treePath(dir))
                try expectRefused(dir, keys, "signed-head-mismatch", "a fork of the head the witness saw")
            }
        }
    }

    @Test("a log cut below the size signed is refused, the tree state and the caches removed or not")
    func aLogCutBelowTheSignedSizeIsRefused() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 120) { dir, _ in
                #expect(try dir.run(["head", "--key", keys.path("log.skey")]).status == 0)
                let lines = splitLines(try readBytes(dir.logPath))
                try writeBytes(Array(lines.prefix(100).joined()), to: dir.logPath)
                try? FileManager.default.removeItem(atPath: treePath(dir))
                try expectRefused(dir, keys, "signed-head-mismatch", "cut to 100")
                // The same 100 lines and 20 others chained after them: a fork of the head signed at 120.
                var envelopes = try LogRewriting.envelopes(Array(lines.joined()))
                for i in 100..<120 { envelopes[i].at = Timestamp(millis: envelopes[i].at.millis + 1) }
                try writeBytes(LogRewriting.chained(envelopes), to: dir.logPath)
                try? FileManager.default.removeItem(atPath: treePath(dir))
                try expectRefused(dir, keys, "signed-head-mismatch", "a fork at 120")
                // Another origin is another log: its first head is signed.
                let other = try dir.run(["head", "--key", keys.path("log.skey"), "--origin", "example.com/ledger/2"])
                #expect(other.status == 0 && other.stdout.hasPrefix("example.com/ledger/2\n120\n"), "\(other)")
                try expectRefused(dir, keys, "signed-head-mismatch", "the first origin still remembered")
            }
        }
    }

    @Test("a damaged memory, a memory of another key or a folder in its place is an error; nothing is signed")
    func aDamagedMemoryIsAnError() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 60) { dir, _ in
                #expect(try dir.run(["head", "--key", keys.path("log.skey")]).status == 0)
                let memory = keys.path("log.heads"), good = try readBytes(memory)
                var text = String(decoding: good, as: UTF8.self)
                // The mark's offsets moved: the MAC no longer holds.
                let fields = text.split(separator: "\n")[1].split(separator: " ")
                text = text.replacingOccurrences(of: " \(fields[3]) \(fields[4]) ", with: " 0 \(fields[4]) ")
                for (bytes, what) in [(Array(text.utf8), "an offset edited"), (Array(good.dropLast(9)), "cut"), (Array("junk\n".utf8), "junk")] {
                    try writeBytes(bytes, to: memory)
                    try expectRefused(dir, keys, "signer-memory-damaged", what)
                    let plain = try dir.run(["head", "--key", keys.path("log.skey")])
                    #expect(plain.stderr.contains("log.heads") && plain.stderr.contains("damaged"), "\(what): \(plain)")
                }
                // The memory of another key of the same name.
                let other = try SignedHeadKeys(folder: (folder + "/other").creatingFolder())
                #expect(try dir.run(["head", "--key", other.path("log.skey")]).status == 0)
                try writeBytes(try readBytes(other.path("log.heads")), to: memory)
                try expectRefused(dir, keys, "signer-memory-damaged", "another key's memory")
                try FileManager.default.removeItem(atPath: memory)
                try FileManager.default.createDirectory(atPath: memory, withIntermediateDirectories: false)
                let directory = try dir.run(["head", "--key", keys.path("log.skey")])
                #expect(directory.status == 3 && directory.stderr.contains("is a directory") && !directory.stderr.contains("--data"), "\(directory)")
                try FileManager.default.removeItem(atPath: memory)
                try writeBytes(good, to: memory)
                #expect(try dir.run(["head", "--key", keys.path("log.skey")]).status == 0, "the memory restored")
            }
        }
    }
}

extension String {
    /// Creates the folder at this path; the path.
    fileprivate func creatingFolder() throws -> String {
        try FileManager.default.createDirectory(atPath: self, withIntermediateDirectories: false)
        return self
    }
}
