import Foundation
import Glibc
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - CheckpointAfterErasureTests

/// A read that folded the log before an erasure and saves its views checkpoint after the erasure
/// dropped the caches would put the erased person's data back in the folder, in clear: the save is
/// made under the writers' lock, shared, and only when no erasure event follows the checkpoint's
/// line and no erasure is under way.
@Suite struct CheckpointAfterErasureTests {
    private static let password = "correct horse battery"
    private static let every = ["LEDGER_CHECKPOINT_EVERY": "1"]

    /// Ann and Ben registered and a read's checkpoint of them loaded (as a read about to save it
    /// holds it); returns it with Ben's uid.
    private static func checkpointOfAnnAndBen(_ dir: LedgerDir) throws -> (checkpoint: Checkpoint, ben: String) {
        #expect(try dir.register(email: "ann@example.com", username: "Ann", password: password).status == 0)
        let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: password).stdout)["uid"] as? String)
        #expect(try dir.run(["users"], env: every).status == 0)
        let log = try FileDescriptor(path: dir.logPath, flags: O_RDONLY)
        let checkpoint = try #require(Checkpoint.load(forLog: dir.logPath, file: log))
        let saved = try readBytes(Checkpoint.path(forLog: dir.logPath)), email = Array("ben@example.com".utf8)
        #expect(saved.indices.contains { saved[$0...].starts(with: email) }, "the checkpoint holds Ben's email in clear")
        return (checkpoint, ben)
    }

    @Test func notSavedOnceAnErasureFollowsItsLine() throws {
        try withLedgerDir { dir in
            let (checkpoint, ben) = try Self.checkpointOfAnnAndBen(dir)
            #expect(try dir.run(["account", "delete", ben], stdin: Self.password + "\n").status == 0)
            #expect(!FileManager.default.fileExists(atPath: Checkpoint.path(forLog: dir.logPath)), "the erasure dropped it")
            checkpoint.save(forLog: dir.logPath)
            #expect(!FileManager.default.fileExists(atPath: Checkpoint.path(forLog: dir.logPath)), "saved with Ben's email after his erasure")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains(".tmp-") })
        }
    }

    @Test func notSavedWhileAnErasureIsUnderWay() throws {
        try withLedgerDir { dir in
            let (checkpoint, _) = try Self.checkpointOfAnnAndBen(dir)
            try FileManager.default.removeItem(atPath: Checkpoint.path(forLog: dir.logPath))
            try writeBytes(Array("account-00000000-0000-4000-8000-000000000000\n".utf8), to: dir.path + "/erasure.pending")
            checkpoint.save(forLog: dir.logPath)
            #expect(!FileManager.default.fileExists(atPath: Checkpoint.path(forLog: dir.logPath)))
        }
    }

    /// Lines without an erasure after its line (a sign-in, a registration) do not stop the save.
    @Test func savedWhenNoErasureFollows() throws {
        try withLedgerDir { dir in
            let (checkpoint, _) = try Self.checkpointOfAnnAndBen(dir)
            try FileManager.default.removeItem(atPath: Checkpoint.path(forLog: dir.logPath))
            #expect(try dir.login(email: "ann@example.com", password: Self.password).status == 0)
            #expect(try dir.register(email: "cy@example.com", username: "Cy", password: Self.password).status == 0)
            checkpoint.save(forLog: dir.logPath)
            #expect(FileManager.default.fileExists(atPath: Checkpoint.path(forLog: dir.logPath)))
        }
    }

    /// A writer holding the writers' lock: the read does not wait for it and saves nothing.
    @Test func notSavedWhileAWriterHoldsTheLock() throws {
        try withLedgerDir { dir in
            let (checkpoint, _) = try Self.checkpointOfAnnAndBen(dir)
            try FileManager.default.removeItem(atPath: Checkpoint.path(forLog: dir.logPath))
            let writer = try FileDescriptor(path: dir.path + "/events.lock", flags: O_RDWR)
            try writer.lock(LOCK_EX)
            checkpoint.save(forLog: dir.logPath)
            writer.unlock()
            #expect(!FileManager.default.fileExists(atPath: Checkpoint.path(forLog: dir.logPath)))
            checkpoint.save(forLog: dir.logPath)
            #expect(FileManager.default.fileExists(atPath: Checkpoint.path(forLog: dir.logPath)), "saved once the lock is free")
        }
    }

    /// A folder without the writers' lock file (fresh from `migrate`, or a log outside a data
    /// folder): the read saves without it and makes none (a lock file of the reader's user could
    /// keep the folder's owner from writing).
    @Test func noLockFileIsMadeWhereThereIsNone() throws {
        try withLedgerDir { dir in
            let (checkpoint, _) = try Self.checkpointOfAnnAndBen(dir)
            try FileManager.default.removeItem(atPath: Checkpoint.path(forLog: dir.logPath))
            try FileManager.default.removeItem(atPath: dir.path + "/events.lock")
            checkpoint.save(forLog: dir.logPath)
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/events.lock"))
            #expect(FileManager.default.fileExists(atPath: Checkpoint.path(forLog: dir.logPath)))
        }
    }

    /// A lock file that is not one (a folder there): nothing is saved, nothing waits.
    @Test func notSavedBesideALockThatIsNotAFile() throws {
        try withLedgerDir { dir in
            let (checkpoint, _) = try Self.checkpointOfAnnAndBen(dir)
            try FileManager.default.removeItem(atPath: Checkpoint.path(forLog: dir.logPath))
            try FileManager.default.removeItem(atPath: dir.path + "/events.lock")
            try FileManager.default.createDirectory(atPath: dir.path + "/events.lock", withIntermediateDirectories: false)
            checkpoint.save(forLog: dir.logPath)
            #expect(!FileManager.default.fileExists(atPath: Checkpoint.path(forLog: dir.logPath)))
        }
    }

    /// An erasure removes the temporary files of the caches' writes too (a read killed with its
    /// checkpoint written but not renamed, or one still waiting to rename it), and nothing else.
    @Test func anErasureRemovesTheCachesTemporaryFiles() throws {
        try withLedgerDir { dir in
            let (_, ben) = try Self.checkpointOfAnnAndBen(dir)
            let temporaries = ["events.jsonl.checkpoint.tmp-4242", "events.jsonl.index.checkpoint.tmp-4243"]
            let kept = ["events.jsonl.checkpoint.tmp-x", "notes.tmp-4244"]
            for name in temporaries + kept { try writeBytes(Array("ben@example.com".utf8), to: dir.path + "/" + name) }
            #expect(try dir.run(["account", "delete", ben], stdin: Self.password + "\n").status == 0)
            for name in temporaries { #expect(!FileManager.default.fileExists(atPath: dir.path + "/" + name), "\(name)") }
            for name in kept { #expect(FileManager.default.fileExists(atPath: dir.path + "/" + name), "\(name)") }
        }
    }

    /// The checkpoint is written as a file without a name: until the rename, the folder holds no
    /// temporary file of it.
    @Test func theFileHasNoNameUntilItIsRenamed() throws {
        try withTempDirectory("unnamed-write") { folder in
            let path = folder + "/cache"
            var namesBefore: [String] = []
            try FileSystem.writeAtomically(to: path, unnamed: true, renaming: { rename in
                namesBefore = try FileManager.default.contentsOfDirectory(atPath: folder)
                try rename()
            }) { append in try Array("contents".utf8).withUnsafeBytes { try append($0) } }
            #expect(namesBefore.isEmpty, "\(namesBefore)")
            #expect(try readBytes(path) == Array("contents".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["cache"])
        }
    }

    /// The search for an erasure's type in the bytes after a line: found wherever it lies, across
    /// the 1 MiB reads too; not found in lines of other types.
    @Test(arguments: [0, 100, (1 << 20) - 20, (1 << 20) - 1, 1 << 20, (1 << 20) + 7, 3 << 20])
    func anErasuresTypeIsFoundWhereverItLies(_ at: Int) throws {
        try withTempDirectory("erasure-search") { folder in
            let path = folder + "/log"
            for type in ["PersonalDataErased", "AddressDataErased"] {
                var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: (3 << 20) + 200)
                let needle = Array("\"type\":\"\(type)\"".utf8)
                bytes.replaceSubrange(at..<(at + needle.count), with: needle)
                try writeBytes(bytes, to: path)
                let file = try FileDescriptor(path: path, flags: O_RDONLY)
                #expect(WritersLockShared.mayHoldErasure(file, from: 0))
                #expect(WritersLockShared.mayHoldErasure(file, from: at))
                #expect(!WritersLockShared.mayHoldErasure(file, from: at + 1), "only part of it after the line")
                bytes.replaceSubrange(at..<(at + needle.count), with: [UInt8](repeating: UInt8(ascii: "x"), count: needle.count))
                bytes.replaceSubrange(at..<(at + 23), with: Array("\"type\":\"AccountDeleted\"".utf8))
                try writeBytes(bytes, to: path)
                #expect(!WritersLockShared.mayHoldErasure(try FileDescriptor(path: path, flags: O_RDONLY), from: 0))
            }
        }
    }
}
