import Foundation
import Glibc
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - AppendFilesTests

/// A file store keeps its lock file and log open between appends: each append still goes to the
/// files the paths name at that moment, under the lock the path names, and no descriptor leaks.
struct AppendFilesTests {
    private func store(_ dir: String, seed: UInt64 = 21) -> FileEventStore {
        FileEventStore(directory: dir, clock: FixedClock(step: 1000), random: SeededRandom(seed: seed))
    }

    private func appendSignIn(_ store: FileEventStore, _ n: Int) throws {
        _ = try store.append([Fixtures.signIn(n)], to: Fixtures.stream(.signin, n), expected: .noStream)
    }

    /// Descriptors of this process open on files under `dir` (other tests run alongside: only
    /// this test's folder counts).
    private func openDescriptors(under dir: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { fd in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "").hasPrefix(dir + "/")
        }
    }

    @Test func aLogReplacedBetweenAppendsGetsTheNextAppend() throws {
        try withTempDirectory { dir in
            let writer = store(dir)
            try appendSignIn(writer, 1)
            try appendSignIn(writer, 2)
            // Another tool puts a copy of the log in place (a new inode with the same lines).
            let copy = "\(dir)/copy.jsonl"
            try FileManager.default.copyItem(atPath: writer.logPath, toPath: copy)
            #expect(rename(copy, writer.logPath) == 0)
            try appendSignIn(writer, 3)
            let events = try FileEventStore(directory: dir).readAll()
            #expect(events.map(\.seq) == [1, 2, 3])
            #expect(try ledger("verify", writer.logPath, "--json").status == 0)
        }
    }

    @Test func aDataFolderRemovedBetweenAppendsStartsANewLog() throws {
        try withTempDirectory { root in
            let dir = "\(root)/data"
            let writer = store(dir)
            try appendSignIn(writer, 1)
            try appendSignIn(writer, 2)
            try FileManager.default.removeItem(atPath: dir)
            try appendSignIn(writer, 3)
            let events = try FileEventStore(directory: dir).readAll()
            #expect(events.count == 1 && events.first?.seq == 1)
            #expect(FileManager.default.fileExists(atPath: writer.lockPath))
        }
    }

    @Test func aReplacedLockFileIsTheOneAnAppendWaitsFor() throws {
        try withTempDirectory { dir in
            let writer = store(dir)
            try appendSignIn(writer, 1)
            // The lock file is replaced; another writer holds the new one.
            #expect(unlink(writer.lockPath) == 0)
            let other = try FileDescriptor(path: writer.lockPath, flags: O_RDWR | O_CREAT)
            try other.lock(LOCK_EX)
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var failure: (any Error)?
            nonisolated(unsafe) let blocked = writer  // only the background append uses it until `done`
            DispatchQueue.global().async {
                do { try appendSignIn(blocked, 2) } catch { failure = error }
                done.signal()
            }
            // The append must wait for the new lock's holder, not take the stale one it kept open.
            #expect(done.wait(timeout: .now() + 0.5) == .timedOut)
            // Counted in the file: a reader would wait for the lock this test holds.
            #expect(try String(contentsOfFile: writer.logPath, encoding: .utf8).split(separator: "\n").count == 1)
            other.unlock()
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(failure == nil)
            #expect(try FileEventStore(directory: dir).readAll().map(\.seq) == [1, 2])
        }
    }

    @Test func manyAppendsOpenNoMoreDescriptors() throws {
        try withTempDirectory { dir in
            let writer = store(dir)
            try appendSignIn(writer, 1)
            let before = try openDescriptors(under: dir)
            // The lock file, the log and the key store kept open, and the index file.
            #expect(before >= 3 && before <= 4)
            for n in 2...60 { try appendSignIn(writer, n) }
            #expect(try openDescriptors(under: dir) == before)
            #expect(try FileEventStore(directory: dir).readAll().count == 60)
        }
    }

    @Test func aLogReplacedBetweenAppendsIsVerifiedAfreshWithoutTheIndexFile() throws {
        try withTempDirectory { dir in
            let writer = store(dir)
            writer.indexFileDisabled = true  // the in-memory index alone must notice the other file
            try appendSignIn(writer, 1)
            try appendSignIn(writer, 2)
            // Another valid log of five lines takes the path: one of data version 1, whose lines need
            // no key (another folder's version 2 log would need that folder's keys too).
            let replacement = InMemoryEventStore(clock: FixedClock(step: 1000), random: SeededRandom(seed: 22))
            for n in 10...14 { _ = try replacement.append([Fixtures.signIn(n)], to: Fixtures.stream(.signin, n), expected: .noStream) }
            let other = "\(dir)/other.jsonl"
            try writeBytes(replacement.log, to: other)
            #expect(rename(other, writer.logPath) == 0)
            try appendSignIn(writer, 3)
            let events = try FileEventStore(directory: dir).readAll()
            #expect(events.map(\.seq) == Array(1...6))
            #expect(events.map(\.event) == (10...14).map(Fixtures.signIn) + [Fixtures.signIn(3)])
        }
    }
}
