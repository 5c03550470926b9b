import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

/// The file store under concurrency, torn writes and damage: what it reports, repairs and refuses.
struct FileStoreDurabilityTests {
    // MARK: - Fixture

    /// Writes a valid 6-event log into `dir`: with `FileEventStore` in a new folder (data version 2,
    /// its key store beside it), or as a store of data version 1 writes it (the in-memory double's
    /// bytes), whose line 3 holds non-ASCII text in the clear.
    static func writeSixEventLog(in dir: String, dataVersion: Int = 2) throws -> [UInt8] {
        let (clock, random) = (FixedClock(step: 1000), SeededRandom(seed: 11))
        let memory = dataVersion == 1 ? InMemoryEventStore(clock: clock, random: random) : nil
        let store: any LedgerStore = memory ?? FileEventStore(directory: dir, clock: clock, random: random)
        let alice = Fixtures.stream(.registration, 1)
        _ = try store.append([Fixtures.event(.accountCreated, 1), Fixtures.event(.imageStored, 1)], to: alice, expected: .noStream)
        _ = try store.append([Fixtures.event(.profileWritten, 1)], to: alice, expected: .exactly(2))
        _ = try store.append([Fixtures.event(.sessionStarted, 1)], to: Fixtures.stream(.session, 2), expected: .noStream)
        _ = try store.append([Fixtures.event(.failed, 2)], to: Fixtures.stream(.registration, 3), expected: .noStream)
        _ = try store.append([Fixtures.event(.signInFailed, 4)], to: Fixtures.stream(.signin, 4), expected: .noStream)
        if let memory {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try writeBytes(memory.log, to: "\(dir)/events.jsonl")
        }
        let bytes = try readBytes("\(dir)/events.jsonl")
        #expect(splitLines(bytes).count == 6)
        return bytes
    }

    /// Copies the key store of the data folder `source` into the folder `destination` (made if
    /// need be), when it has one: a copy of a version 2 log reads with its keys.
    static func copyKeys(from source: String, to destination: String) throws {
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        guard FileManager.default.fileExists(atPath: "\(source)/\(KeyStore.fileName)") else { return }
        try FileManager.default.copyItem(atPath: "\(source)/\(KeyStore.fileName)", toPath: "\(destination)/\(KeyStore.fileName)")
    }

    /// The head after the first `count` lines of `log`.
    static func head(after count: Int, of log: [UInt8]) throws -> Head {
        guard count > 0 else { return .empty }
        let line = Array(splitLines(log)[count - 1].dropLast())
        let (envelope, _) = try line.withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: count) }
        return Head(seq: envelope.seq, hash: envelope.hash)
    }

    // MARK: - (a) Many processes

    /// 8 processes appending 100 events each at once: 800 events, seqs 1...800, every process's events in its order.
    @Test func eightProcessesAppendingAtOnceLoseNothing() throws {
        try withTempDirectory { dir in
            let data = "\(dir)/data"
            let drills = try (0..<8).map { _ in try start(Paths.drill, ["append", data, "100"]) }
            for result in try drills.map({ try $0.wait() }) {
                #expect(result.status == 0, "\(result)")
            }
            let verify = try ledger("verify", "--data", data, "--json")
            #expect(verify.status == 0, "\(verify)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
            #expect(json["ok"] as? Bool == true)
            #expect(json["events"] as? Int == 800)
            #expect((json["head"] as? [String: Any])?["seq"] as? Int == 800)

            let events = try FileEventStore(directory: data).readAll()
            #expect(events.map(\.seq) == Array(1...800))
            // Each process wrote drill-<pid>-<n>@example.com for n = 0..<100, in order.
            var byProcess: [String: [Int]] = [:]
            for event in events {
                guard case .signInFailed(let failed) = event.event else { Issue.record("unexpected \(event.event)"); continue }
                let parts = failed.email.split(separator: "@")[0].split(separator: "-")
                byProcess[String(parts[1]), default: []].append(Int(parts[2]) ?? -1)
            }
            #expect(byProcess.count == 8)
            #expect(byProcess.values.allSatisfy { $0 == Array(0..<100) })
        }
    }

    // MARK: - (b) Torn last line at every byte

    /// The last line cut at every offset: verify reports one torn-tail on that line with the intact head; the
    /// next append moves the torn bytes to `events.jsonl.broken` and leaves a log that verifies. Cut
    /// just before its newline, the line is a whole event: the next append adds the newline and keeps it.
    @Test func lastLineCutAtEveryByteIsATornTailAndIsRepaired() throws {
        try withTempDirectory { dir in
            let log = try Self.writeSixEventLog(in: "\(dir)/source")
            let lines = splitLines(log)
            let prefix = Array(lines.dropLast().joined())
            let last = lines[5]
            let intact = try Self.head(after: 5, of: log)
            let cutDir = "\(dir)/cut"
            try Self.copyKeys(from: "\(dir)/source", to: cutDir)
            let logPath = "\(cutDir)/events.jsonl", brokenPath = logPath + ".broken"
            var failures: [String] = []
            func check(_ ok: Bool, _ cut: Int, _ what: String) { if !ok { failures.append("cut \(cut): \(what)") } }

            for cut in 1..<(last.count - 1) {
                try? FileManager.default.removeItem(atPath: brokenPath)
                let torn = Array(last[0..<cut])
                try writeBytes(prefix + torn, to: logPath)

                let report = try LogVerifier.verify(path: logPath)
                check(report.problems.count == 1, cut, "problems \(report.problems)")
                check(report.problems.first?.kind == .tornTail, cut, "kind \(String(describing: report.problems.first))")
                check(report.problems.first?.line == 6, cut, "line \(String(describing: report.problems.first))")
                check(report.head == intact, cut, "head \(report.head)")
                check(report.events == 5, cut, "events \(report.events)")

                let store = FileEventStore(directory: cutDir, clock: FixedClock(), random: SeededRandom(seed: 1_000_000 + UInt64(cut)))
                var notices: [String] = []
                store.notice = { notices.append($0) }
                let appended = try store.append([Fixtures.signIn(cut)], to: Fixtures.stream(.signin, 100 + cut), expected: .noStream)
                check(appended.map(\.seq) == [6], cut, "appended \(appended.map(\.seq))")
                check(appended.first?.envelope.prev == intact.hash, cut, "prev")
                check(notices.count == 1, cut, "notices \(notices)")
                check(try readBytes(brokenPath) == BrokenTail.kept(torn) + [0x0A], cut, "broken file content (without ciphertexts)")
                let after = try LogVerifier.verify(path: logPath)
                check(after.ok && after.events == 6, cut, "after repair \(after)")
                check(try readBytes(logPath).starts(with: prefix), cut, "the intact lines are kept")
            }
            #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(5))")

            try? FileManager.default.removeItem(atPath: brokenPath)
            try writeBytes(prefix + last.dropLast(), to: logPath)
            let store = FileEventStore(directory: cutDir, clock: FixedClock(), random: SeededRandom(seed: 2_000_000))
            let appended = try store.append([Fixtures.signIn(1)], to: Fixtures.stream(.signin, 99), expected: .noStream)
            #expect(appended.map(\.seq) == [7], "the whole last line was kept as seq 6")
            #expect(!FileManager.default.fileExists(atPath: brokenPath))
            #expect(try readBytes(logPath).starts(with: prefix + last))
            #expect(try LogVerifier.verify(path: logPath).ok)
        }
    }

    // MARK: - (c) Garbage after the last line

    /// Bytes without a final newline after the last line are a torn tail, and the next append repairs them.
    @Test(arguments: [Array("{\"seq\":7,\"id\":\"tr".utf8), Array("garbage".utf8), [0xFF, 0xFE, 0x00, 0x41]])
    func garbageAfterTheLastLineIsATornTail(garbage: [UInt8]) throws {
        try withTempDirectory { dir in
            let log = try Self.writeSixEventLog(in: dir)
            let intact = try Self.head(after: 6, of: log)
            let logPath = "\(dir)/events.jsonl"
            try writeBytes(log + garbage, to: logPath)

            let report = try LogVerifier.verify(path: logPath)
            #expect(report.problems.map(\.kind) == [.tornTail])
            #expect(report.problems.first?.line == 7)
            #expect(report.head == intact)
            #expect(try FileEventStore(directory: dir).head() == intact, "readers skip a torn tail")
            #expect(try FileEventStore(directory: dir).readAll().count == 6)

            let store = FileEventStore(directory: dir)
            #expect(try store.append([Fixtures.signIn(7)], to: Fixtures.stream(.signin, 7), expected: .noStream).map(\.seq) == [7])
            let broken = try readBytes(logPath + ".broken")
            #expect(broken == (garbage.last == 0x0A ? garbage : garbage + [0x0A]))
            let after = try LogVerifier.verify(path: logPath)
            #expect(after.ok)
            #expect(after.events == 7)
            #expect(try readBytes(logPath).starts(with: log))
        }
    }

    /// A complete (newline-terminated) last line that is not JSON is damage, not a torn tail: an append
    /// is one write, so only bytes after the last newline can be torn. Writers refuse, nothing is moved
    /// to `.broken`, and the log is left as it is.
    @Test(arguments: [Array("garbage\n".utf8), Array("{\"seq\":7,\n".utf8), [0xFF, 0xFE, 0x0A]])
    func aCompleteLastLineThatIsNotJSONIsDamage(garbage: [UInt8]) throws {
        try withTempDirectory { dir in
            let log = try Self.writeSixEventLog(in: dir)
            let logPath = "\(dir)/events.jsonl"
            try writeBytes(log + garbage, to: logPath)

            let report = try LogVerifier.verify(path: logPath)
            #expect(report.problems.map(\.kind) == [.invalidJSON])
            #expect(report.problems.first?.line == 7)

            let store = FileEventStore(directory: dir)
            do {
                _ = try store.append([Fixtures.signIn(7)], to: Fixtures.stream(.signin, 7), expected: .noStream)
                Issue.record("the append was accepted")
            } catch let error as StoreError {
                #expect(error.code == .damaged)
                #expect(error.problem?.line == 7)
            }
            #expect(throws: StoreError.self) { try FileEventStore(directory: dir).readAll() }
            #expect(!FileManager.default.fileExists(atPath: logPath + ".broken"))
            #expect(try readBytes(logPath) == log + garbage)
        }
    }

    /// A repair killed after it copied the torn tail to `.broken` but before it cut the log leaves
    /// the copy at the end of `.broken`: the next repair keeps that one copy instead of adding another
    /// (found by `IOFaultDrillTests`' `kill-fsync` cases). Earlier copies stay as they were.
    @Test func aRepairKilledAfterItsCopyLeavesOneCopy() throws {
        try withTempDirectory { dir in
            let log = try Self.writeSixEventLog(in: dir)
            let logPath = "\(dir)/events.jsonl", brokenPath = logPath + ".broken"
            let torn = Array("{\"seq\":7,\"id\":\"ki".utf8)
            let earlier = Array("{\"seq\":3,\"id\":\"an earlier repair\n".utf8)
            try writeBytes(log + torn, to: logPath)
            try writeBytes(earlier + torn + [0x0A], to: brokenPath)  // what the killed repair left

            #expect(try FileEventStore(directory: dir).repairTail())
            #expect(try readBytes(brokenPath) == earlier + torn + [0x0A])
            #expect(try readBytes(logPath) == log)
            #expect(try LogVerifier.verify(path: logPath).ok)

            // A different torn tail later is a new copy.
            let other = Array("{\"seq\":7,\"id\":\"zz".utf8)
            try writeBytes(log + other, to: logPath)
            #expect(try FileEventStore(directory: dir).repairTail())
            #expect(try readBytes(brokenPath) == earlier + torn + [0x0A] + other + [0x0A])
        }
    }

    /// A JSON object after the last line that is not a valid envelope is damage, not a torn write: writers refuse.
    @Test func aCompleteButInvalidLastLineIsDamage() throws {
        try withTempDirectory { dir in
            let log = try Self.writeSixEventLog(in: dir)
            let logPath = "\(dir)/events.jsonl"
            let damaged = log + Array("{\"seq\":7}\n".utf8)
            try writeBytes(damaged, to: logPath)
            #expect(try LogVerifier.verify(path: logPath).problems.map(\.kind) == [.invalidJSON])
            let error = try #require(throws: StoreError.self) {
                try FileEventStore(directory: dir).append([Fixtures.signIn(7)], to: Fixtures.stream(.signin, 7), expected: .noStream)
            }
            #expect(error.code == .damaged)
            #expect(try readBytes(logPath) == damaged)
        }
    }

    // MARK: - (d) A flipped byte in a middle line

    /// Every byte of line 3 flipped in turn: verify's first problem is on line 3, and an append refuses
    /// with `.damaged`, leaving the file byte for byte as it was. In a version 1 log the line holds
    /// multi-byte UTF-8 text; in a version 2 log, its personal members' ciphertext.
    @Test(arguments: [1, 2])
    func everyFlippedByteOfAMiddleLineIsFoundAndRefused(dataVersion: Int) throws {
        try withTempDirectory { dir in
            let log = try Self.writeSixEventLog(in: "\(dir)/source", dataVersion: dataVersion)
            let lines = splitLines(log)
            let start = lines[0].count + lines[1].count
            let middle = lines[2]
            if dataVersion == 1 {
                #expect(middle.contains { $0 >= 0x80 }, "line 3 has multi-byte UTF-8")
            } else {
                #expect(String(decoding: middle, as: UTF8.self).contains(#""v":2"#) && String(decoding: middle, as: UTF8.self).contains(#""ciphertext":""#))
            }
            let intact = try Self.head(after: 2, of: log)
            let flipDir = "\(dir)/flip"
            try Self.copyKeys(from: "\(dir)/source", to: flipDir)
            let logPath = "\(flipDir)/events.jsonl"
            var failures: [String] = []
            var kinds = Set<ProblemKind>()
            for offset in 0..<middle.count {
                var bytes = log
                bytes[start + offset] ^= 0x01
                try writeBytes(bytes, to: logPath)
                let report = try LogVerifier.verify(path: logPath)
                let first = report.problems.first
                kinds.insert(first?.kind ?? .tornTail)
                if first?.line != 3 || ![.badHash, .invalidJSON].contains(first?.kind) {
                    failures.append("byte \(offset) (\(middle[offset])): first problem \(String(describing: first))")
                }
                if report.head != intact { failures.append("byte \(offset): head \(report.head)") }
                do {
                    _ = try FileEventStore(directory: flipDir).append([Fixtures.signIn(1)], to: Fixtures.stream(.signin, 99), expected: .any)
                    failures.append("byte \(offset): append succeeded")
                } catch let error as StoreError {
                    if error.code != .damaged || error.problem?.line != 3 { failures.append("byte \(offset): \(error.code) \(String(describing: error.problem))") }
                }
                if try readBytes(logPath) != bytes { failures.append("byte \(offset): the file changed") }
            }
            #expect(!FileManager.default.fileExists(atPath: logPath + ".broken"))
            #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(5))")
            #expect(kinds == [.badHash, .invalidJSON])
        }
    }

    // MARK: - (e) First write and missing log

    /// The data directory (and its parents) appear on the first write; before that the log reads as empty
    /// and reading creates nothing.
    @Test func firstWriteCreatesTheDirectoryAndAMissingLogReadsEmpty() throws {
        try withTempDirectory { dir in
            let data = "\(dir)/a/b/data"
            let store = FileEventStore(directory: data)
            #expect(try store.readAll().isEmpty)
            #expect(try store.readStream(Fixtures.stream(.signin, 1)).isEmpty)
            #expect(try store.head() == Head.empty)
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/a"), "reading creates nothing")
            #expect(throws: SystemError.self) { try LogVerifier.verify(path: store.logPath) }

            _ = try store.append([Fixtures.signIn(1)], to: Fixtures.stream(.signin, 1), expected: .noStream)
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: data, isDirectory: &isDirectory) && isDirectory.boolValue)
            #expect(FileManager.default.fileExists(atPath: store.logPath))
            #expect(try LogVerifier.verify(path: store.logPath).events == 1)
            #expect(try FileEventStore(directory: data).head().seq == 1)
        }
    }

    // MARK: - Large logs

    /// A log larger than the scanner's chunk, with a line longer than a chunk, reads and verifies across boundaries.
    @Test func logsLargerThanOneChunkVerify() throws {
        try withTempDirectory { dir in
            let memory = InMemoryEventStore(clock: FixedClock(step: 1), random: SeededRandom(seed: 5))
            let long = String(repeating: "ß", count: LogScanner.chunkSize * 3 / 4)  // 1.5 chunks of UTF-8
            _ = try memory.append([.failed(Failed(step: .profile, reason: "io-error", message: long))],
                                  to: Fixtures.stream(.registration, 0), expected: .noStream)
            var n = 0
            while memory.log.count < LogScanner.chunkSize * 5 / 2 {
                n += 1
                _ = try memory.append([Fixtures.signIn(n)], to: Fixtures.stream(.signin, n), expected: .noStream)
            }
            try writeBytes(memory.log, to: "\(dir)/events.jsonl")
            let report = try LogVerifier.verify(path: "\(dir)/events.jsonl")
            #expect(report.ok)
            #expect(report.events == n + 1)
            #expect(report.head == (try memory.head()))
            let store = FileEventStore(directory: dir)
            #expect(try store.readAll() == memory.events)
            #expect(try store.append([Fixtures.signIn(0)], to: Fixtures.stream(.signin, 0), expected: .noStream).map(\.seq) == [n + 2])
        }
    }
}
