import Foundation
import LedgerDomain
import LedgerKit
import Testing

/// `LogFollower`: reading a growing log a piece at a time, verified with one chain check throughout.
struct LogFollowerTests {
    /// The lines (with newlines) of the valid 6-event log.
    static func sixLines() throws -> [[UInt8]] {
        try withTempDirectory { dir in splitLines(try FileStoreDurabilityTests.writeSixEventLog(in: dir)) }
    }

    /// Appends `bytes` to the file at `path`.
    static func append(_ bytes: [UInt8], to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }

    /// Reads what `tail` has to deliver: the lines (with newlines) and the outcome.
    static func read(_ tail: LogFollower, stopAfter limit: Int = .max) throws -> (lines: [[UInt8]], outcome: LogFollower.Outcome) {
        var lines: [[UInt8]] = []
        let outcome = try tail.read { _, line in
            lines.append(Array(line) + [0x0A])
            return lines.count < limit
        }
        return (lines, outcome)
    }

    @Test func deliversEachLineOnceAsTheLogGrows() throws {
        let lines = try Self.sixLines()
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            let tail = LogFollower(path: path)
            #expect(try Self.read(tail).outcome == .missing)
            try writeBytes(lines[0] + lines[1], to: path)
            let first = try Self.read(tail)
            #expect(first.lines == Array(lines[0...1]))
            #expect(first.outcome == .caughtUp(tornTail: nil))
            #expect(try Self.read(tail).lines.isEmpty, "nothing new")

            // An incomplete line is left for later, then read whole.
            try Self.append(lines[2] + Array(lines[3].prefix(10)), to: path)
            let torn = try Self.read(tail)
            #expect(torn.lines == [lines[2]])
            guard case .caughtUp(let problem?) = torn.outcome else { Issue.record("\(torn.outcome)"); return }
            #expect(problem.kind == .tornTail)
            #expect(tail.verifiedEnd == (lines[0] + lines[1] + lines[2]).count)
            try Self.append(Array(lines[3].dropFirst(10)) + lines[4] + lines[5], to: path)

            // A body that stops is resumed after the last event it saw.
            let stopped = try Self.read(tail, stopAfter: 1)
            #expect(stopped.lines == [lines[3]])
            #expect(stopped.outcome == .stopped)
            let rest = try Self.read(tail)
            #expect(rest.lines == Array(lines[4...5]))
            #expect(rest.outcome == .caughtUp(tornTail: nil))
        }
    }

    @Test func damageIsReportedAndNothingAfterItIsDelivered() throws {
        let lines = try Self.sixLines()
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            try writeBytes(lines[0] + lines[1], to: path)  // the first append: a batch of 2
            let tail = LogFollower(path: path)
            #expect(try Self.read(tail).lines == [lines[0], lines[1]])
            // Line 4 where line 3 belongs: a seq gap.
            try Self.append(lines[3] + lines[4], to: path)
            let damaged = try Self.read(tail)
            #expect(damaged.lines.isEmpty)
            guard case .damaged(let problem) = damaged.outcome else { Issue.record("\(damaged.outcome)"); return }
            #expect(problem.line == 3)
            #expect(try Self.read(tail).outcome == .damaged(problem), "damage stays")
        }
    }

    /// The first line of a batch of 2 alone is a batch cut short (or still being written): nothing
    /// of it is delivered until its second line is there, then both are.
    @Test func aBatchIsDeliveredWholeOrNotAtAll() throws {
        let lines = try Self.sixLines()
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            try writeBytes(lines[0], to: path)
            let tail = LogFollower(path: path)
            let cut = try Self.read(tail)
            #expect(cut.lines.isEmpty)
            guard case .caughtUp(let torn?) = cut.outcome else { Issue.record("\(cut.outcome)"); return }
            #expect(torn.kind == .tornTail && torn.line == 1)
            #expect(tail.verifiedEnd == 0)
            try Self.append(lines[1], to: path)
            let whole = try Self.read(tail)
            #expect(whole.lines == [lines[0], lines[1]])
            #expect(whole.outcome == .caughtUp(tornTail: nil))
        }
    }

    /// A complete last line that is not JSON is damage, not an incomplete line to wait for.
    @Test func aCompleteLastLineThatIsNotJSONIsDamage() throws {
        let lines = try Self.sixLines()
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            try writeBytes(lines[0] + Array("not json\n".utf8), to: path)
            let read = try Self.read(LogFollower(path: path))
            #expect(read.lines == [lines[0]])
            guard case .damaged(let problem) = read.outcome else { Issue.record("\(read.outcome)"); return }
            #expect(problem.line == 2)
            #expect(problem.kind == .invalidJSON)
        }
    }

    @Test func aLogCutOrReplacedUnderTheReaderIsDamage() throws {
        let lines = try Self.sixLines()
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            try writeBytes(lines[0] + lines[1] + lines[2], to: path)
            let cut = LogFollower(path: path)
            _ = try Self.read(cut)
            try writeBytes(lines[0], to: path)  // same file, truncated and rewritten
            #expect(throws: StoreError.self) { try Self.read(cut) }

            let replaced = LogFollower(path: path)
            _ = try Self.read(replaced)
            try writeBytes(lines[0] + lines[1], to: dir + "/new.jsonl")
            #expect(rename(dir + "/new.jsonl", path) == 0)
            do {
                _ = try Self.read(replaced)
                Issue.record("a replaced log must not be read on")
            } catch let error as StoreError {
                #expect(error.code == .damaged)
                #expect(error.message.contains("replaced"))
            }
        }
    }

    @Test func readsUnderTheSharedLockWhenTheFolderHasOne() throws {
        let lines = try Self.sixLines()
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            try writeBytes(lines[0], to: path)
            let lock = try FileDescriptor(path: dir + "/events.lock", flags: O_RDWR | O_CREAT)
            let tail = LogFollower(path: path)
            #expect(tail.lockPath == dir + "/events.lock")
            _ = try Self.read(tail)
            // The tail holds the shared lock only while reading: a writer can take it between reads.
            #expect(try lock.tryLock(LOCK_EX))
            lock.unlock()
        }
    }
}
