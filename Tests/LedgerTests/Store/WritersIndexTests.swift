import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - WritersIndexTests

/// `events.jsonl.index`: a new writer (a new process) reads only what the index does not cover,
/// and gets the same stream versions and email answers as a full read, whatever state the index is in.
struct WritersIndexTests {
    /// A new store instance over `dir`, as a new process would have.
    private func writer(_ dir: String) -> FileEventStore {
        FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SecureRandom())
    }

    /// Appends registration `n` (AccountCreated, email userN) through the email condition.
    private func register(_ n: Int, in dir: String) throws {
        _ = try writer(dir).append([Fixtures.registration(n)], to: Fixtures.stream(.registration, n), expected: .noStream,
                                   condition: .uniqueEmails)
    }

    /// True when a fresh writer refuses registration `n`'s email for a new registration `other`.
    private func emailRefused(_ n: Int, other: Int, in dir: String) throws -> Bool {
        guard case .accountCreated(var created) = Fixtures.registration(other) else { return false }
        created.email = "user\(n)@example.com"
        do {
            _ = try writer(dir).append([.accountCreated(created)], to: Fixtures.stream(.registration, other), expected: .noStream,
                                       condition: .uniqueEmails)
            return false
        } catch let error as StoreError where error.reason == "email-already-in-use" {
            return true
        }
    }

    /// Changes one digit of `line`'s `at` (same length, still JSON, whatever the data version): the
    /// line no longer hashes to its `hash`.
    private func damageInPlace(_ line: inout [UInt8]) {
        let member = Array(#""at":""#.utf8)
        let start = line.indices.first { Array(line[$0...].prefix(member.count)) == member }!
        // The last fraction digit: `at` is `YYYY-MM-DDTHH:MM:SS.mmmZ`.
        let digit = start + member.count + 22
        line[digit] = line[digit] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
    }

    // MARK: - Tail only

    @Test func aNewWriterReadsOnlyWhatTheIndexDoesNotCover() throws {
        try withTempDirectory { dir in
            for n in 1...40 { try register(n, in: dir) }
            let store = writer(dir)
            #expect(FileSystem.exists(store.indexPath))
            // Damage line 10 in place (same length): a writer that read the whole log would refuse.
            var lines = splitLines(try readBytes(store.logPath))  // each line keeps its newline
            damageInPlace(&lines[9])
            try writeBytes(lines.flatMap { $0 }, to: store.logPath)
            // The index covers line 10: the next writer reads nothing before its last covered line.
            _ = try writer(dir).append([Fixtures.event(.imageStored, 20)], to: Fixtures.stream(.registration, 20), expected: .exactly(1))
            // Without the index, the next writer reads the whole log and finds the damage.
            try FileSystem.remove(store.indexPath)
            #expect(throws: StoreError.self) {
                _ = try writer(dir).append([Fixtures.event(.imageStored, 21)], to: Fixtures.stream(.registration, 21), expected: .exactly(1))
            }
            // `ledger verify` always reads every line.
            #expect(try LogVerifier.verify(path: store.logPath).problems.first?.line == 10)
        }
    }

    // MARK: - Same answers as a full read

    @Test func versionsAndEmailsStayRightAcrossWritersAndGrowth() throws {
        try withTempDirectory { dir in
            // 1,500 registrations (three slots each) outgrow the first table twice.
            for n in 1...1_500 { try register(n, in: dir) }
            for n in stride(from: 1, through: 1_500, by: 7) {
                _ = try writer(dir).append([Fixtures.event(.imageStored, n)], to: Fixtures.stream(.registration, n), expected: .exactly(1))
            }
            // Versions: 2 for every 7th stream, 1 for the others, 0 for unknown streams.
            for n in [1, 8, 1_492] {
                #expect(throws: StoreError.self) { _ = try writer(dir).append([Fixtures.event(.profileWritten, n)], to: Fixtures.stream(.registration, n), expected: .exactly(1)) }
                _ = try writer(dir).append([Fixtures.event(.profileWritten, n)], to: Fixtures.stream(.registration, n), expected: .exactly(2))
            }
            _ = try writer(dir).append([Fixtures.event(.profileWritten, 2)], to: Fixtures.stream(.registration, 2), expected: .exactly(1))
            _ = try writer(dir).append([Fixtures.registration(9_999)], to: Fixtures.stream(.registration, 9_999), expected: .noStream)
            // Emails: live ones are refused; a deleted account frees its email.
            #expect(try emailRefused(700, other: 20_001, in: dir))
            _ = try writer(dir).append([Fixtures.event(.accountDeleted, 700)], to: Fixtures.stream(.registration, 700), expected: .exactly(1))
            #expect(try !emailRefused(700, other: 20_002, in: dir))
            #expect(try emailRefused(700, other: 20_003, in: dir))  // taken again by 20_002
            #expect(try !emailRefused(1_501, other: 20_004, in: dir))
            #expect(try LogVerifier.verify(path: writer(dir).logPath).problems.isEmpty)
        }
    }

    @Test func streamVersionsComeFromTheIndexAndFollowOtherWriters() throws {
        try withTempDirectory { dir in
            for n in 1...30 { try register(n, in: dir) }
            let reader = writer(dir)
            #expect(try reader.streamVersion(Fixtures.stream(.registration, 5)) == 1)
            // Another process appends: the next lookup reads only those lines and counts them.
            _ = try writer(dir).append([Fixtures.event(.imageStored, 5)], to: Fixtures.stream(.registration, 5), expected: .exactly(1))
            #expect(try reader.streamVersion(Fixtures.stream(.registration, 5)) == 2)
            #expect(try reader.streamVersion(Fixtures.stream(.registration, 31)) == 0)
            // Damage a covered line in place: a lookup through the index does not read it, as a
            // writer's append does not; `ledger verify` still finds it.
            var lines = splitLines(try readBytes(reader.logPath))
            damageInPlace(&lines[2])
            try writeBytes(lines.flatMap { $0 }, to: reader.logPath)
            #expect(try writer(dir).streamVersion(Fixtures.stream(.registration, 7)) == 1)
        }
        // A data folder with no log has no streams, and the lookup creates nothing.
        try withTempDirectory { (empty: String) throws -> Void in
            let probe = writer(empty)
            let version = try probe.streamVersion(Fixtures.stream(.registration, 1))
            #expect(version == 0)
            #expect(!FileSystem.exists(probe.logPath))
            #expect(!FileSystem.exists(probe.lockPath))
        }
    }

    @Test func streamsAreReadWhereTheIndexSaysAndADisagreeingLineFallsBackToTheWholeLog() throws {
        try withTempDirectory { dir in
            for n in 1...30 { try register(n, in: dir) }
            let reader = writer(dir)
            let stream = Fixtures.stream(.registration, 5)
            // Another process appends: the next read lines the index up and finds the new line.
            _ = try writer(dir).append([Fixtures.event(.imageStored, 5)], to: stream, expected: .exactly(1))
            _ = try writer(dir).append([Fixtures.event(.profileWritten, 5)], to: stream, expected: .exactly(2))
            #expect(try reader.readIndexedStream(stream) == reader.readStream(stream))
            #expect(try reader.readIndexedStream(stream).map(\.event.type) == [.accountCreated, .imageStored, .profileWritten])
            // Without the index file, the same answer (the index is rebuilt from the log).
            try FileSystem.remove(reader.indexPath)
            #expect(try writer(dir).readIndexedStream(stream).map(\.seq) == reader.readStream(stream).map(\.seq))
            // A line of the stream damaged in place: the line no longer hashes to its hash, so the
            // read falls back to the whole log, which reports the damage instead of the event.
            var lines = splitLines(try readBytes(reader.logPath))
            damageInPlace(&lines[4])
            try writeBytes(lines.flatMap { $0 }, to: reader.logPath)
            #expect(throws: StoreError.self) { _ = try writer(dir).readIndexedStream(stream) }
            // Other streams, whose lines are intact, still read from the index.
            #expect(try writer(dir).readIndexedStream(Fixtures.stream(.registration, 9)).count == 1)
        }
    }

    // MARK: - Any index state is safe

    @Test(arguments: ["garbage", "short", "other-boot", "empty"])
    func anUnusableIndexIsRebuiltFromTheLog(_ damage: String) throws {
        try withTempDirectory { dir in
            for n in 1...30 { try register(n, in: dir) }
            let path = writer(dir).indexPath
            var bytes = try readBytes(path)
            switch damage {
            case "garbage": bytes = bytes.indices.map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            case "short": bytes = Array(bytes.prefix(10))
            case "other-boot": for i in 8..<44 { bytes[i] = UInt8(ascii: "0") }
            default: bytes = []
            }
            try writeBytes(bytes, to: path)
            #expect(throws: StoreError.self) { _ = try writer(dir).append([Fixtures.event(.imageStored, 5)], to: Fixtures.stream(.registration, 5), expected: .noStream) }
            _ = try writer(dir).append([Fixtures.event(.imageStored, 5)], to: Fixtures.stream(.registration, 5), expected: .exactly(1))
            #expect(try emailRefused(12, other: 20_001, in: dir))
            #expect(try !emailRefused(31, other: 20_002, in: dir))
        }
    }

    /// A writer that died after updating slots but before the header: the next one applies those
    /// events again, which must change nothing.
    @Test func eventsAppliedTwiceCountOnce() throws {
        try withTempDirectory { dir in
            for n in 1...10 { try register(n, in: dir) }
            let path = writer(dir).indexPath
            let oldHeader = Array(try readBytes(path).prefix(4096))
            for n in 1...10 {
                _ = try writer(dir).append([Fixtures.event(.imageStored, n)], to: Fixtures.stream(.registration, n), expected: .exactly(1))
            }
            _ = try writer(dir).append([Fixtures.event(.accountDeleted, 3)], to: Fixtures.stream(.registration, 3), expected: .exactly(2))
            var bytes = try readBytes(path)
            bytes.replaceSubrange(0..<4096, with: oldHeader)  // slots say seq 21, the header says 10
            try writeBytes(bytes, to: path)
            for n in [1, 10] {
                #expect(throws: StoreError.self) { _ = try writer(dir).append([Fixtures.event(.profileWritten, n)], to: Fixtures.stream(.registration, n), expected: .exactly(3)) }
                _ = try writer(dir).append([Fixtures.event(.profileWritten, n)], to: Fixtures.stream(.registration, n), expected: .exactly(2))
            }
            #expect(try !emailRefused(3, other: 20_001, in: dir))
            #expect(try emailRefused(4, other: 20_002, in: dir))
        }
    }

    @Test func aReplacedLogIsNotReadThroughTheOldIndex() throws {
        try withTempDirectory { dir in
            for n in 1...20 { try register(n, in: dir) }
            let log = writer(dir).logPath
            // A log with only the first 10 lines, renamed over the old one (another inode).
            let lines = splitLines(try readBytes(log))
            try writeBytes(lines.prefix(10).flatMap { $0 }, to: log + ".tmp")
            #expect(rename(log + ".tmp", log) == 0)
            _ = try writer(dir).append([Fixtures.registration(15)], to: Fixtures.stream(.registration, 15), expected: .noStream)
            #expect(try !emailRefused(16, other: 20_001, in: dir))
            #expect(try emailRefused(5, other: 20_002, in: dir))
            #expect(try LogVerifier.verify(path: log).problems.isEmpty)
        }
    }
}
