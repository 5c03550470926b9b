import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - WriterFinishesErasuresTests

/// A key store restored on its own from a backup taken before an erasure, beside caches written
/// after it: the writers' index records the last erasures it folded (`WritersIndex+Erasures`), so
/// the next writer finds the restored key and destroys it, though no line it folds meets the
/// erasure again. The record only says where to look: a forged one destroys nothing the log does
/// not erase, and `verify` calls it a cache-mismatch.
@Suite struct WriterFinishesErasuresTests {
    /// Where the header's record of the erasures lies (`WritersIndex.Header`): the count, then the
    /// entries (seq, where the line starts, then the subject's id zero-padded to 44 bytes).
    private static let countAt = 192, entriesAt = 200, entrySize = 60

    /// Ann and Ben registered, the key store backed up, Ben deleted, a writer and a read after it
    /// (the writers' index and the views checkpoint cover the erasure). Returns the uids and the backup.
    private static func benErased(_ dir: LedgerDir) throws -> (ann: String, ben: String, keys: [UInt8]) {
        let env = ["LEDGER_CHECKPOINT_EVERY": "1"]
        let ann = try #require(try parseObject(try dir.register(email: "ann@example.com", username: "Ann", password: "password ann", env: env).stdout)["uid"] as? String)
        let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: "password ben", env: env).stdout)["uid"] as? String)
        let keys = try readBytes(dir.path + "/events.keys")
        #expect(try dir.run(["account", "delete", ben], env: env).status == 0)
        #expect(try dir.login(email: "ann@example.com", password: "password ann").status == 0)
        #expect(try dir.run(["users"], env: env).status == 0)
        return (ann, ben, keys)
    }

    private static func state(_ dir: LedgerDir, _ uid: String) throws -> KeyStore.KeyState {
        try KeyStore(directory: dir.path, writable: false).state(of: .account(try #require(UUIDBits(uuid: uid))))
    }

    /// The index's header records the erasure: its count, its seq, its line and its subject, at the format's offsets.
    @Test func theIndexRecordsTheErasureAtTheFormatsOffsets() throws {
        try withLedgerDir { dir in
            let (_, ben, _) = try Self.benErased(dir)
            let bytes = try readBytes(dir.logPath + ".index")
            let seq = try #require(try LogRewriting.envelopes(try dir.logBytes()).first { $0.type == "PersonalDataErased" }?.seq)
            func int64(at offset: Int) -> Int64 { bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int64.self) } }
            #expect(int64(at: Self.countAt) == 1)
            #expect(int64(at: Self.entriesAt) == Int64(seq))
            let log = try dir.logBytes()
            let lineStart = Int(int64(at: Self.entriesAt + 8))
            #expect(Array(log[lineStart...].prefix(8 + String(seq).count)) == Array("{\"seq\":\(seq)".utf8) + [0x2C])
            let subject = Array(bytes[(Self.entriesAt + 16)..<(Self.entriesAt + Self.entrySize)])
            #expect(subject == Array("account-\(ben)".utf8))
        }
    }

    /// The key store alone restored: the next writer (a sign-in, a registration) destroys Ben's
    /// restored key and keeps Ann's; `recover` then finds nothing, and `verify` passes.
    @Test(arguments: ["login", "register"])
    func theNextWriterDestroysARestoredKey(_ writer: String) throws {
        try withLedgerDir { dir in
            let (ann, ben, keys) = try Self.benErased(dir)
            try writeBytes(keys, to: dir.path + "/events.keys")
            #expect(try Self.state(dir, ben) == .live, "the backup brought Ben's key back: what this test is about")
            let wrote = writer == "login" ? try dir.login(email: "ann@example.com", password: "password ann")
                                          : try dir.register(email: "cy@example.com", username: "Cy", password: "password cy")
            #expect(wrote.status == 0, "\(wrote)")
            #expect(try Self.state(dir, ben) == .erased, "the writer left the restored key")
            #expect(try Self.state(dir, ann) == .live)
            #expect(!(try Self.decrypted(dir)).contains("ben@example.com"))
            #expect(try dir.run(["users", "--json"]).stdout.contains("ann@example.com"))
            #expect(try dir.run(["recover"]).stdout == "nothing to recover\n")
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    /// `recover` reports the key its own first catch-up destroyed because of the index's record.
    @Test func recoverReportsTheKeyItsCatchUpFound() throws {
        try withLedgerDir { dir in
            let (_, ben, keys) = try Self.benErased(dir)
            try writeBytes(keys, to: dir.path + "/events.keys")
            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            #expect(try parseObject(recovered.stdout)["destroyedKeys"] as? [String] == ["account-\(ben)"], "\(recovered)")
            #expect(try Self.state(dir, ben) == .erased)
        }
    }

    /// A record forged to name Ann (live, never erased by the log): the line it points at is not
    /// her erasure, so the writer does nothing because of it; Ann signs in and `verify` names the
    /// index a cache-mismatch.
    @Test func aForgedRecordDestroysNothingAndIsACacheMismatch() throws {
        try withLedgerDir { dir in
            let (ann, _, _) = try Self.benErased(dir)
            let path = dir.logPath + ".index"
            var bytes = try readBytes(path)
            let forged = Array("account-\(ann)".utf8)
            bytes.replaceSubrange((Self.entriesAt + 16)..<(Self.entriesAt + 16 + forged.count), with: forged)
            try writeBytes(bytes, to: path)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 1 && checked.stdout.contains("cache-mismatch") && checked.stdout.contains("erasures"), "\(checked)")
            #expect(try dir.login(email: "ann@example.com", password: "password ann").status == 0)
            #expect(try Self.state(dir, ann) == .live, "a forged record destroyed a live key")
            #expect(try dir.run(["users", "--json"]).stdout.contains("ann@example.com"))
        }
    }

    /// A count in the record no log reaches (negative, past any log: a forged header) is taken as
    /// none: an erasure writes a record of its own, inside the header's ring, and goes through.
    @Test(arguments: [-20, -1, -2, Int64.max, 1 << 41] as [Int64])
    func aForgedCountBreaksNoErasure(_ count: Int64) throws {
        try withLedgerDir { dir in
            let ann = try #require(try parseObject(try dir.register(email: "ann@example.com", username: "Ann", password: "password ann").stdout)["uid"] as? String)
            let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: "password ben").stdout)["uid"] as? String)
            #expect(try dir.login(email: "ann@example.com", password: "password ann").status == 0)
            let path = dir.logPath + ".index"
            var bytes = try readBytes(path)
            withUnsafeBytes(of: count.littleEndian) { bytes.replaceSubrange(Self.countAt..<(Self.countAt + 8), with: $0) }
            try writeBytes(bytes, to: path)
            let deleted = try dir.run(["account", "delete", ben])
            #expect(deleted.status == 0, "\(deleted)")
            #expect(try Self.state(dir, ben) == .erased)
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"))
            #expect(try dir.login(email: "ann@example.com", password: "password ann").status == 0)
            #expect(try Self.state(dir, ann) == .live)
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    /// What `decrypt_log.py` prints of the log with the key store (each line, its members opened).
    private static func decrypted(_ dir: LedgerDir) throws -> String {
        let result = try pythonTool("decrypt_log.py", [dir.logPath, dir.path + "/events.keys"])
        #expect(result.status == 0, "\(result)")
        return result.stdout
    }
}
