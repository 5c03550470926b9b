import Foundation
import Glibc
import LedgerDomain
@testable import LedgerKit
import Testing

/// The writers' index a read checkpoint carries (`CheckpointIndexSection`): a writer that finds
/// neither `events.jsonl.index` nor its checkpoint starts from it and folds only the lines after
/// it; a damaged copy is not used, and one that disagrees with the log is reported by `verify`, end
/// to end through the built `ledger`.
@Suite struct CarriedIndexCLITests {
    /// Five users registered (no index checkpoint: the default interval is not reached), then a read
    /// that saves its checkpoint; returns that checkpoint's path. The read checkpoint carries the
    /// index, and the index files are removed.
    private func readCheckpointOnly(_ dir: LedgerDir) throws -> String {
        for n in 1...5 { #expect(try dir.register(email: "user\(n)@example.com").status == 0) }
        #expect(!FileSystem.exists(dir.logPath + ".index.checkpoint"))
        #expect(try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "4"]).status == 0)
        let path = dir.logPath + ".checkpoint"
        #expect(Array(try readBytes(path).suffix(8)) == Array("LEDGERIX".utf8), "the read checkpoint carries the index")
        try FileSystem.remove(dir.logPath + ".index")
        return path
    }

    /// The status of registering `email`, as `register --json` reports it (nil when it printed none).
    private func registration(_ dir: LedgerDir, _ email: String) throws -> String? {
        (try? parseObject(try dir.register(email: email).stdout))?["status"] as? String
    }

    /// The carried index's range in the checkpoint at `path`.
    private func section(_ path: String) throws -> Range<Int> {
        try #require(CheckpointIndexSection.section(inCheckpoint: path))
    }

    @Test func aWriterWithNeitherIndexFileStartsFromTheReadCheckpoint() throws {
        try withLedgerDir { dir in
            _ = try readCheckpointOnly(dir)
            let intact = splitLines(try dir.logBytes())
            // The first line damaged in place: a writer that read the whole log would refuse.
            try damageLine(dir.logPath, line: 0)
            #expect(try registration(dir, "user6@example.com") == "registered")
            // The email rule holds from the carried index: user1's email (line 1) is still taken.
            #expect(try registration(dir, "user1@example.com") == "failed")
            // The first line put back: the index built from the carried copy and the tail is what a
            // fold of the whole log gives, and so is the carried copy (`verify` compares them).
            var lines = splitLines(try dir.logBytes())
            lines[0] = intact[0]
            try writeBytes(lines.flatMap { $0 }, to: dir.logPath)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 0, "\(checked)")
            // Reads of the checkpoint that carries it restore the same views as a read of the whole log.
            let fromCheckpoint = try dir.run(["users", "--json"])
            let fromScratch = try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"])
            #expect(fromCheckpoint.status == 0 && fromCheckpoint.stdout == fromScratch.stdout)
        }
    }

    /// The seq of the last line the index file at `dir`'s log covers: 0 for the empty placeholder a
    /// writer that borrows leaves, nil when there is no index file.
    private func indexCovers(_ dir: LedgerDir) -> Int? { WritersIndex.recordedSeq(atPath: dir.logPath + ".index") }

    /// The first writer of a folder without an index file borrows the carried index in place
    /// (`WritersIndex+Borrowing`): the read checkpoint keeps every byte and the index file is the
    /// empty placeholder it created, no copy; the next writer copies the carried index into an
    /// index file of its own, once, and both fold the lines after it (the emails registered are taken).
    @Test func theFirstWriterBorrowsTheCarriedIndexAndTheNextCopiesIt() throws {
        try withLedgerDir { dir in
            let path = try readCheckpointOnly(dir)
            let before = try readBytes(path)
            // The first line damaged in place: a writer that read the whole log would refuse.
            try damageLine(dir.logPath, line: 0)
            #expect(try registration(dir, "user6@example.com") == "registered")
            #expect(indexCovers(dir) == 0, "borrowed, not copied into the index file")
            #expect(try readBytes(path) == before, "the borrowed copy's writes stay in the process")
            #expect(try registration(dir, "user6@example.com") == "failed")
            #expect((indexCovers(dir) ?? 0) > 0, "the next writer copied it")
            #expect(try registration(dir, "user1@example.com") == "failed")
            #expect(try registration(dir, "user7@example.com") == "registered")
            #expect(try readBytes(path) == before)
        }
    }

    /// A read checkpoint that is not the writer's own, mode 0600 with one name (another name may
    /// write its pages in place under a borrowed table), is copied into a new index file instead.
    @Test(arguments: ["mode 0644", "second name"])
    func aCarriedIndexOthersMayWriteIsCopiedNotBorrowed(_ how: String) throws {
        try withLedgerDir { dir in
            let path = try readCheckpointOnly(dir)
            if how == "mode 0644" { #expect(chmod(path, 0o644) == 0) } else { #expect(link(path, dir.path + "/other-name") == 0) }
            let before = try readBytes(path)
            try damageLine(dir.logPath, line: 0)
            #expect(try registration(dir, "user6@example.com") == "registered")
            #expect((indexCovers(dir) ?? 0) > 0, "copied into an index file of the writer's own")
            #expect(try registration(dir, "user1@example.com") == "failed")
            #expect(try readBytes(path) == before)
        }
    }

    /// The borrowed table holds the carried copy's slots, wherever the section starts within a page,
    /// and is current while the placeholder it stands in for is.
    @Test func aBorrowedTableHoldsTheSlotsACopyHolds() throws {
        try withLedgerDir { dir in
            let path = try readCheckpointOnly(dir)
            let range = try section(path)
            #expect(range.lowerBound % 4096 != 0, "the section starts within a page")
            let log = try FileDescriptor(path: dir.logPath, flags: O_RDONLY)
            let copy = try #require(WritersIndex.loadCheckpoint(path: path, section: range, log: log, into: nil)).table
            let placeholder = try #require(WritersIndex.open(path: dir.path + "/borrowed.index"))
            guard case .borrowed(let table, _) = WritersIndex.borrow(path: path, section: range, log: log, for: placeholder) else {
                Issue.record("not borrowed")
                return
            }
            #expect(table.isBorrowed && table.isCurrent && !table.inMemory)
            let slots = { (t: WritersIndex) in Array(UnsafeRawBufferPointer(start: t.base + WritersIndex.headerSize, count: t.mappedSize - WritersIndex.headerSize)) }
            #expect(table.mappedSize == copy.mappedSize && slots(table) == slots(copy))
            // While it is borrowed, nobody may cut the read checkpoint (a read lease: `truncate`'s
            // open fails at once), nor borrow it while the file is open for writing elsewhere.
            let size = try readBytes(path).count
            #expect(table.holdsItsLease)
            let cut = try run("/usr/bin/truncate", ["-s", "100", path])
            let after = try readBytes(path).count
            #expect(cut.status != 0 && after == size, "\(cut)")
            // That open started the lease's break: the kernel lets a waiting writer through after
            // the lease-break time, so the table must not be touched once a long wait is over.
            #expect(!table.holdsItsLease)
            // Another file renamed over the placeholder (another writer's index) makes it stale.
            try writeBytes([1], to: dir.path + "/other.index")
            #expect(rename(dir.path + "/other.index", dir.path + "/borrowed.index") == 0)
            #expect(!table.isCurrent)
        }
    }

    /// A read checkpoint open for writing elsewhere is not borrowed; a borrowed table gives the
    /// read checkpoint back when it is dropped: the file may then be cut.
    @Test func aBorrowedTableLeasesTheReadCheckpointWhileItLives() throws {
        try withLedgerDir { dir in
            let path = try readCheckpointOnly(dir)
            let range = try section(path)
            let log = try FileDescriptor(path: dir.logPath, flags: O_RDONLY)
            let placeholder = try #require(WritersIndex.open(path: dir.path + "/borrowed.index"))
            do {
                let writer = try FileDescriptor(path: path, flags: O_WRONLY)
                guard case .notBorrowable = WritersIndex.borrow(path: path, section: range, log: log, for: placeholder) else {
                    Issue.record("borrowed a file open for writing")
                    return
                }
                _ = writer
            }
            do {
                guard case .borrowed = WritersIndex.borrow(path: path, section: range, log: log, for: placeholder) else {
                    Issue.record("not borrowed")
                    return
                }
            }
            // The table was released at the end of the block above: its lease with it.
            let cut = try run("/usr/bin/truncate", ["-s", "100", path])
            let after = try readBytes(path).count
            #expect(cut.status == 0 && after == 100, "\(cut)")
        }
    }

    /// A read that saves its checkpoint while a writer borrowed the carried copy (the index file an
    /// empty placeholder) carries the same copy on, byte for byte, and the next writer starts from
    /// it; `verify` finds it in agreement with the log.
    @Test func aReadSavedAfterABorrowCarriesTheCopyOn() throws {
        try withLedgerDir { dir in
            let path = try readCheckpointOnly(dir)
            let old = try readBytes(path)
            let carried = Array(old[try section(path)])
            #expect(try registration(dir, "user6@example.com") == "registered")
            #expect(indexCovers(dir) == 0)
            #expect(try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "2"]).status == 0)
            let new = try readBytes(path)
            #expect(new != old, "a new checkpoint was saved")
            #expect(Array(new[try section(path)]) == carried)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 0, "\(checked)")
            try damageLine(dir.logPath, line: 0)
            #expect(try registration(dir, "user7@example.com") == "registered")
            #expect(try registration(dir, "user6@example.com") == "failed")
        }
    }

    /// A long-running writer (a store instance of the library) uses a borrowed table for the one
    /// lock hold that borrowed it: its next operation copies the carried index into a file of its
    /// own (the read checkpoint, written over in place meanwhile, would fail the mapping), and it
    /// follows what other writers append.
    @Test func aLongRunningWriterBorrowsForOneOperationOnly() throws {
        try withLedgerDir { dir in
            let path = try readCheckpointOnly(dir)
            let store = FileEventStore(directory: dir.path, clock: SystemClock(), random: SecureRandom())
            #expect(try store.streamVersion("registration-" + UUID().uuidString.lowercased()) == 0)
            #expect(indexCovers(dir) == 0, "the store borrowed the copy")
            // The read checkpoint written over in place with its own bytes (`cp` of a backup): the
            // store's next operation does not touch the mapping, and copies the file as it is now.
            let bytes = try readBytes(path)
            let file = try FileDescriptor(path: path, flags: O_WRONLY | O_TRUNC)
            _ = bytes.withUnsafeBytes { write(file.fd, $0.baseAddress!, $0.count) }
            #expect(try store.streamVersion("registration-" + UUID().uuidString.lowercased()) == 0)
            #expect((indexCovers(dir) ?? 0) > 0, "its second operation copied the carried index")
            let first = try #require(try parseObject(try dir.register(email: "user6@example.com").stdout)["registration"] as? String)
            #expect(try store.streamVersion("registration-" + first) > 0)
            #expect(try registration(dir, "user1@example.com") == "failed")
        }
    }

    /// A borrowed table that outgrows its slots in the operation that borrowed it becomes an index
    /// file of its own, and the read checkpoint it was borrowed from keeps every byte.
    @Test func aBorrowedTableThatGrowsBecomesAFile() throws {
        try withLedgerDir { dir in
            let store = { FileEventStore(directory: dir.path, clock: FixedClock(step: 1), random: SecureRandom()) }
            let register = { (n: Int) in
                _ = try store().append([Fixtures.registration(n)], to: Fixtures.stream(.registration, n), expected: .noStream, condition: .uniqueEmails)
            }
            // Registrations until the first table is one event short of growing (three quarters of
            // its slots, less the four an event may insert), as the index file's header counts them.
            let limit = WritersIndex.initialCapacity * 3 / 4 - 4
            var n = 0
            func count() throws -> Int {
                let header = try readBytes(dir.logPath + ".index").prefix(WritersIndex.headerSize)
                return Int(header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: WritersIndex.Header.count.offset, as: Int64.self) })
            }
            while try n == 0 || count() <= limit {
                n += 1
                try register(n)
            }
            #expect(try count() <= limit + 4, "not grown yet")
            #expect(try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "4"]).status == 0)
            let path = dir.logPath + ".checkpoint"
            let before = try readBytes(path)
            #expect(CheckpointIndexSection.section(inCheckpoint: path) != nil)
            try FileSystem.remove(dir.logPath + ".index")
            // One more registration: borrowed, then grown into a file of the writer's own.
            let writer = store()
            _ = try writer.append([Fixtures.registration(n + 1)], to: Fixtures.stream(.registration, n + 1), expected: .noStream, condition: .uniqueEmails)
            #expect((indexCovers(dir) ?? 0) > 0, "grown into a file of its own")
            #expect(try readBytes(dir.logPath + ".index").count > WritersIndex.headerSize + WritersIndex.initialCapacity * WritersIndex.slotSize)
            #expect(try readBytes(path) == before)
            _ = try writer.append([Fixtures.registration(n + 2)], to: Fixtures.stream(.registration, n + 2), expected: .noStream, condition: .uniqueEmails)
            #expect(throws: StoreError.self) {
                _ = try store().append([Fixtures.registration(n)], to: Fixtures.stream(.registration, 50_000), expected: .noStream, condition: .uniqueEmails)
            }
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 0, "\(checked)")
        }
    }

    /// A carried index whose bytes fail its checksums is not used: the writer folds the whole log
    /// (and so refuses at a damaged first line), and `verify` does not check what no writer uses.
    @Test func aDamagedCarriedIndexIsNotUsed() throws {
        try withLedgerDir { dir in
            let path = try readCheckpointOnly(dir)
            let range = try section(path)
            var bytes = try readBytes(path)
            bytes[range.lowerBound + WritersIndex.headerSize + 20] ^= 0xFF
            try writeBytes(bytes, to: path)
            try damageLine(dir.logPath, line: 0)
            let refused = try dir.register(email: "user6@example.com")
            #expect(refused.status != 0, "the whole log was read: \(refused)")
        }
    }

    /// A carried index edited and given checksums that hold, as its writer would seal it: `verify`
    /// reports it as a cache that disagrees with the log, naming the read checkpoint.
    @Test func aResealedCarriedIndexThatDisagreesWithTheLogIsReported() throws {
        try withLedgerDir { dir in
            let path = try readCheckpointOnly(dir)
            let range = try section(path)
            var bytes = try readBytes(path)
            var table = Array(bytes[range.lowerBound..<(range.upperBound - WritersIndex.trailerSize)])
            // The first slot in use: its value (a count or a status) changed.
            let slot = try #require(stride(from: WritersIndex.headerSize, to: table.count, by: WritersIndex.slotSize).first { table[$0] != 0 })
            table[slot + 4] &+= 1
            bytes.replaceSubrange(range, with: Self.sealed(table))
            try writeBytes(bytes, to: path)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status != 0)
            #expect(checked.stdout.contains("cache-mismatch") && checked.stdout.contains("events.jsonl.checkpoint carries"), "\(checked)")
            #expect(try readBytes(path) == bytes, "verify never changes the checkpoint")
        }
    }

    /// `table` (an index checkpoint's header and slots) with its first email slot moved to a free
    /// slot right after another free one, where no lookup from the key's home reaches it: what it
    /// says is unchanged, and the entry count too.
    static func movedEmailSlot(_ table: [UInt8]) throws -> [UInt8] {
        let size = WritersIndex.slotSize, header = WritersIndex.headerSize
        var table = table
        let from = try #require(stride(from: header, to: table.count, by: size).first { table[$0] == WritersIndex.Tag.email.rawValue })
        let to = try #require(stride(from: from + 2 * size, to: table.count, by: size).first { table[$0] == 0 && table[$0 - size] == 0 })
        table.replaceSubrange(to..<(to + size), with: table[from..<(from + size)])
        table.replaceSubrange(from..<(from + size), with: [UInt8](repeating: 0, count: size))
        return table
    }

    /// `table` followed by the checksums ledger gives it.
    static func sealed(_ table: [UInt8]) -> [UInt8] {
        table + table.withUnsafeBytes { raw in
            WritersIndex.checksums(header: UnsafeRawBufferPointer(rebasing: raw[0..<WritersIndex.headerSize]),
                                   slots: UnsafeRawBufferPointer(rebasing: raw[WritersIndex.headerSize...]))
        }
    }

    /// A slot moved where a writer's lookup does not find it, in the carried index and in the
    /// index checkpoint, each re-sealed: every entry still agrees with the log, but a writer
    /// starting from the copy would find the email free (a second live account) or a locked
    /// email's failures gone. `verify` reports each copy (from an attack on the carried index).
    @Test(arguments: ["carried", "index checkpoint"])
    func aSlotNoLookupReachesIsReported(_ copy: String) throws {
        try withLedgerDir { dir in
            let path: String
            var bytes: [UInt8]
            let range: Range<Int>
            if copy == "carried" {
                path = try readCheckpointOnly(dir)
                bytes = try readBytes(path)
                range = try section(path)
            } else {
                for n in 1...5 { #expect(try dir.register(email: "user\(n)@example.com", env: ["LEDGER_CHECKPOINT_EVERY": "4"]).status == 0) }
                path = dir.logPath + ".index.checkpoint"
                bytes = try readBytes(path)
                range = 0..<bytes.count
                try FileSystem.remove(dir.logPath + ".index")
            }
            let table = Array(bytes[range.lowerBound..<(range.upperBound - WritersIndex.trailerSize)])
            bytes.replaceSubrange(range, with: Self.sealed(try Self.movedEmailSlot(table)))
            try writeBytes(bytes, to: path)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status != 0)
            #expect(checked.stdout.contains("cache-mismatch") && checked.stdout.contains("lies where a lookup does not find it"), "\(checked)")
        }
    }

    /// Writers racing each other and reads that save the checkpoint (carrying the index), with both
    /// index files gone at the start of each round, so the first writers of a round start from the
    /// carried copy: every acknowledged registration is in the log once, one email raced by two
    /// writers is registered once, and `verify` finds the log and every cache in agreement.
    @Test func racingWritersAndSavingReadsKeepOneAccountPerEmail() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "seed@example.com").status == 0)
            var expected: Set<String> = ["seed@example.com"]
            for round in 1...3 {
                try? FileSystem.remove(dir.logPath + ".index")
                try? FileSystem.remove(dir.logPath + ".index.checkpoint")
                let emails = (1...4).map { "r\(round)-\($0)@example.com" } + ["race\(round)@example.com", "race\(round)@example.com"]
                let writers = try emails.map { try dir.start(LedgerDir.registerArguments(email: $0, username: "R"), stdin: "correct horse 1\n") }
                let reads = try (1...2).map { _ in try dir.start(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "2"]) }
                let results = try writers.map { try $0.wait() }
                for read in reads { #expect(try read.wait().status == 0) }
                var raced = 0
                for (email, result) in zip(emails, results) {
                    let status = (try? parseObject(result.stdout))?["status"] as? String
                    if email.hasPrefix("race") {
                        if status == "registered" { raced += 1 }
                    } else {
                        #expect(status == "registered", "\(email): \(result)")
                    }
                    if status == "registered" { expected.insert(email) }
                }
                #expect(raced == 1, "round \(round): one of the two racing registrations")
            }
            let users = try #require(try dir.json(["users"]) as? [[String: Any]])
            let live = users.filter { $0["status"] as? String == "active" }.compactMap { $0["email"] as? String }
            #expect(live.count == Set(live).count, "one live account per email")
            #expect(Set(live) == expected)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 0, "\(checked)")
        }
    }

    /// What the carried index recorded is evidence of the log's history, as the index files' is:
    /// its covered line and its slots' lines are among the records a writer checks before it drops a cache.
    @Test func theCarriedIndexIsAmongTheRecordsOfTheLogsHistory() throws {
        try withLedgerDir { dir in
            let path = try readCheckpointOnly(dir)
            let heads = RecordedHeads.of(logPath: dir.logPath).filter { $0.cache == path }
            #expect(heads.count == 2, "the views' head and the carried index's covered line")
            #expect(RecordedIndexLines.of(logPath: dir.logPath).contains { $0.cache == path })
        }
    }
}
