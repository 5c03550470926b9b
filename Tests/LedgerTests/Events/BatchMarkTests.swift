import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - BatchMarkTests

/// The envelope's `batch` member (`"batch":[index,count]` on every line of a batch of two lines or
/// more): its codec, the chain check of consecutive marks, and every reader treating a batch the
/// end of the log cuts short as a torn tail — the scanners, the tail reader, `verify` and the
/// independent Python verifier alike.
struct BatchMarkTests {
    // MARK: - Building logs

    /// A log of batches of the given sizes (lines built with `LineCodec`, as the stores write them),
    /// each line's `data` padded by `padding` bytes so batches cross the scanner's chunks.
    static func log(batches sizes: [Int], padding: Int = 0) -> (bytes: [UInt8], lineStarts: [Int], batchStarts: [Int]) {
        var bytes: [UInt8] = [], lineStarts: [Int] = [], batchStarts: [Int] = []
        var head = Head.empty
        let at = Timestamp(rfc3339: "2026-11-29T09:00:00.123Z")!
        for (b, size) in sizes.enumerated() {
            batchStarts.append(lineStarts.count)
            for (position, mark) in BatchMark.marks(count: size).enumerated() {
                let n = b * 1000 + position
                let data = JSONObject([("email", .string(String(repeating: "p", count: padding) + "user\(n)@example.com")),
                                       ("reason", .string("wrong-password"))])
                let body = LineCodec.body(seq: head.seq + 1, id: Fixtures.uuid(50_000 + n), at: at, type: EventType.signInFailed.rawValue, v: 1,
                                          stream: Fixtures.stream(.signin, 60_000 + n), batch: mark.isUnmarked ? nil : mark, data: data, prev: head.hash)
                let hash = SHA256.hex(body)
                lineStarts.append(bytes.count)
                bytes += LineCodec.line(body: body, hash: hash)
                head = Head(seq: head.seq + 1, hash: hash)
            }
        }
        return (bytes, lineStarts, batchStarts)
    }

    /// What `verify` finds in `bytes`: the events before the first problem, and the problems.
    static func verify(_ bytes: [UInt8]) throws -> VerifyReport {
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            try writeBytes(bytes, to: path)
            return try LogVerifier.verify(path: path)
        }
    }

    /// The Python verifier's one line on `bytes`.
    static func python(_ bytes: [UInt8]) throws -> String {
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            try writeBytes(bytes, to: path)
            return try pythonTool("verify_log.py", [path]).stdoutLines.joined(separator: "\n")
        }
    }

    /// Every scan path over `bytes`: the events delivered and the first non-event item, as text.
    static func scans(_ bytes: [UInt8]) throws -> [String] {
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            try writeBytes(bytes, to: path)
            let file = try FileDescriptor(path: path, flags: O_RDONLY)
            func describe(_ events: Int, _ end: String?) -> String { "\(events) events, then \(end ?? "nothing")" }
            func text(_ problem: LogProblem, _ offset: Int, _ length: Int) -> String { "\(problem.kind.rawValue) line \(problem.line) at \(offset)+\(length)" }
            var results: [String] = []
            var checker = ChainChecker(), events = 0, end: String?
            try LogScanner.scan(file, checker: &checker) { item in
                switch item {
                case .event: events += 1; return true
                case .problem(let p, let o, let l), .tornTail(let p, let o, let l): end = text(p, o, l); return false
                }
            }
            results.append(describe(events, end))
            checker = ChainChecker(); events = 0; end = nil
            try LogScanner.scanFacts(file, checker: &checker) { item in
                switch item {
                case .event: events += 1; return true
                case .problem(let p, let o, let l), .tornTail(let p, let o, let l): end = text(p, o, l); return false
                }
            }
            results.append(describe(events, end))
            let tail = LogFollower(path: path)
            events = 0
            let outcome = try tail.read { _, _ in events += 1; return true }
            switch outcome {
            case .caughtUp(let torn?): results.append(describe(events, "\(torn.kind.rawValue) line \(torn.line) at \(tail.verifiedEnd)+\(bytes.count - tail.verifiedEnd)"))
            case .damaged(let p): results.append(describe(events, "\(p.kind.rawValue) line \(p.line)"))
            default: results.append(describe(events, nil))
            }
            return results
        }
    }

    // MARK: - Codec

    @Test func theMemberRoundTripsInItsPlace() throws {
        let mark = try #require(BatchMark(index: 2, count: 3))
        let at = Timestamp(rfc3339: "2026-11-29T09:00:00.123Z")!
        let event = Fixtures.event(.sessionEnded, 4)
        let stream = Fixtures.stream(.session, 4)
        for batch in [mark, nil] {
            let body = LineCodec.body(seq: 9, id: Fixtures.uuid(9), at: at, type: "SessionEnded", v: 1, stream: stream, batch: batch,
                                      data: event.data, prev: Fixtures.hex64(8))
            let text = String(decoding: body, as: UTF8.self)
            #expect(text.contains(#"\#(stream)","batch":[2,3],"data":{"#) == (batch != nil), "\(text)")
            #expect(text.contains("batch") == (batch != nil))
            let line = LineCodec.line(body: body, hash: SHA256.hex(body))
            let (envelope, length) = try Array(line.dropLast()).withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: 9) }
            #expect(envelope.batch == batch && length == body.count)
            let generic = try Array(line.dropLast()).withUnsafeBufferPointer { try LineCodec.decodeGeneric($0, lineNumber: 9) }
            #expect(generic.0 == envelope)
        }
        #expect(LineCodec.body(seq: 1, id: Fixtures.uuid(1), at: at, type: "SessionEnded", v: 1, stream: stream, batch: .unmarked,
                               data: event.data, prev: Fixtures.hex64(0)) ==
                LineCodec.body(seq: 1, id: Fixtures.uuid(1), at: at, type: "SessionEnded", v: 1, stream: stream, data: event.data, prev: Fixtures.hex64(0)),
                "a batch of one line has no member: logs keep their bytes")
        #expect(mark.index == 2 && mark.count == 3 && mark.leavesBatchOpen && mark.next == BatchMark(index: 3, count: 3))
        #expect(BatchMark(index: 1, count: 1) == nil && BatchMark(index: 0, count: 2) == nil && BatchMark(index: 3, count: 2) == nil)
        #expect(BatchMark(index: 1, count: BatchMark.maxCount + 1) == nil && BatchMark(index: BatchMark.maxCount, count: BatchMark.maxCount) != nil)
        #expect(BatchMark.marks(count: 1) == [.unmarked] && BatchMark.marks(count: 2).map(\.description) == ["[1,2]", "[2,2]"])
    }

    @Test func aMalformedMemberIsInvalidJSON() throws {
        let line = Self.log(batches: [2]).bytes
        let first = String(decoding: splitLines(line)[0], as: UTF8.self)
        for bad in ["[1,1]", "[0,2]", "[3,2]", "[1]", "[1,2,3]", "\"1,2\"", "[1.5,2]", "null"] {
            let edited = try rehashed(first.trimmingCharacters(in: .newlines)) { $0.replacingOccurrences(of: "[1,2]", with: bad) }
            let problem = Array(edited.dropLast()).withUnsafeBufferPointer { buffer -> LogProblem? in
                do throws(LogProblem) { _ = try LineCodec.decode(buffer, lineNumber: 1); return nil } catch { return error }
            }
            #expect(problem?.kind == .invalidJSON, "\(bad)")
            #expect(try Self.python(edited).hasPrefix("bad line 1: envelope member batch"), "\(bad)")
        }
    }

    // MARK: - Chain check

    @Test func consecutiveMarksMustContinueTheirBatch() throws {
        // Marks of lines 1-3 and the problem expected (nil: intact).
        let cases: [([BatchMark], ProblemKind?, Int)] = [
            ([BatchMark(index: 1, count: 2)!, BatchMark(index: 2, count: 2)!, .unmarked], nil, 0),
            ([BatchMark(index: 1, count: 3)!, .unmarked, .unmarked], .brokenBatch, 2),  // interrupted by a lone line
            ([BatchMark(index: 1, count: 2)!, BatchMark(index: 1, count: 2)!, BatchMark(index: 2, count: 2)!], .brokenBatch, 2),  // by another batch
            ([.unmarked, BatchMark(index: 2, count: 2)!, .unmarked], .brokenBatch, 2),  // a batch not started
            ([BatchMark(index: 1, count: 3)!, BatchMark(index: 3, count: 3)!, .unmarked], .brokenBatch, 2),  // a line skipped
            ([BatchMark(index: 1, count: 2)!, BatchMark(index: 2, count: 3)!, .unmarked], .brokenBatch, 2),  // another count
        ]
        for (marks, kind, line) in cases {
            let envelopes = try LogRewriting.envelopes(Self.log(batches: [1, 1, 1]).bytes).enumerated().map { n, e in
                var marked = e
                marked.batch = marks[n].isUnmarked ? nil : marks[n]
                return marked
            }
            let bytes = LogRewriting.chained(envelopes)
            let report = try Self.verify(bytes)
            #expect(report.problems.first?.kind == kind && (kind == nil || report.problems.first?.line == line), "\(marks): \(report.problems)")
            let python = try Self.python(bytes)
            #expect(kind == nil ? python.hasPrefix("ok 3 3") : python.hasPrefix("bad line \(line): batch") && python.hasSuffix("(broken batch)"),
                    "\(marks): \(python)")
            // The fast lane (scanFacts) and the full decoder (scan) agree.
            let scans = try Self.scans(bytes)
            #expect(scans[0] == scans[1], "\(scans)")
        }
    }

    // MARK: - A cut batch is a torn tail

    @Test(arguments: [1, 2, 3])
    func aBatchTheEndCutsShortIsATornTailForEveryReader(_ kept: Int) throws {
        let (bytes, starts, _) = Self.log(batches: [1, 2, 4, 1, 4])
        let cutLine = 8 + kept  // lines 1-8 are whole batches; the last batch starts at line 9
        let cut = Array(bytes.prefix(starts[cutLine]))
        let report = try Self.verify(cut)
        #expect(report.events == 8 && report.head.seq == 8, "\(report)")
        #expect(report.problems.map(\.kind) == [.tornTail] && report.problems.first?.line == 9)
        #expect(report.problems.first?.message.contains("the log ends inside a batch (\(kept) complete line") == true)
        let torn = "torn-tail line 9 at \(starts[8])+\(cut.count - starts[8])"
        #expect(try Self.scans(cut) == Array(repeating: "8 events, then \(torn)", count: 3))
        #expect(try Self.python(cut) == "bad line 9: the log ends inside a batch of 4 lines (a cut batch: torn tail)")

        // Bytes of the next line after the cut lines: one torn tail from the batch's first line.
        let partial = cut + Array(bytes[starts[cutLine]..<(starts[cutLine] + 40)])
        #expect(try Self.scans(partial) == Array(repeating: "8 events, then torn-tail line 9 at \(starts[8])+\(partial.count - starts[8])", count: 3))
        #expect(try Self.verify(partial).problems.map(\.line) == [9])
    }

    @Test func aWholeBatchLackingOnlyItsLastNewlineIsKept() throws {
        let (bytes, starts, _) = Self.log(batches: [1, 3])
        let whole = Array(bytes.dropLast())
        let report = try Self.verify(whole)
        #expect(report.problems.map(\.kind) == [.tornTail] && report.problems.first?.line == 2)
        #expect(report.problems.first?.message.contains("whole batch whose last line lacks its final newline") == true)
        try withTempDirectory { dir in
            try writeBytes(whole, to: dir + "/events.jsonl")
            let store = FileEventStore(directory: dir)
            #expect(try store.repairTail())
            #expect(try readBytes(dir + "/events.jsonl") == bytes, "the newline is added, the batch kept")
            #expect(!FileManager.default.fileExists(atPath: dir + "/events.jsonl.broken"))
        }
        // Its second line alone lacking the newline is a batch cut short.
        let cut = Array(bytes.prefix(starts[3] - 1))
        #expect(try Self.verify(cut).problems.first?.message.contains("the log ends inside a batch") == true)
    }

    @Test func theNextWriterMovesACutBatchAsideBeforeAppending() throws {
        let (bytes, starts, _) = Self.log(batches: [1, 3])
        try withTempDirectory { dir in
            let path = dir + "/events.jsonl"
            try writeBytes(Array(bytes.prefix(starts[3])), to: path)  // lines 2-3 of a batch of 3
            let store = FileEventStore(directory: dir)
            let appended = try store.append([Fixtures.event(.signInFailed, 7)], to: Fixtures.stream(.signin, 7), expected: .noStream)
            #expect(appended.map(\.seq) == [2], "the cut lines are not part of the log")
            #expect(try readBytes(path + ".broken") == BrokenTail.kept(Array(bytes[starts[1]..<starts[3]])))
            #expect(Array(try readBytes(path).prefix(starts[1])) == Array(bytes.prefix(starts[1])))
            #expect(try LogVerifier.verify(path: path).ok)
        }
    }

    /// Batches crossing the scanner's 1 MiB chunks: every line read once, in order, whatever the
    /// chunk boundaries; cut anywhere inside the last batch, the batch is one torn tail.
    @Test func batchesAcrossChunksAreReadWholeAndCutWhole() throws {
        let sizes = (0..<40).map { [1, 3, 7, 2, 12][$0 % 5] }  // 200 lines of about 12 KB
        let (bytes, starts, batches) = Self.log(batches: sizes, padding: 12_000)
        #expect(bytes.count > 2 * LogScanner.chunkSize)
        let lines = starts.count
        #expect(try Self.scans(bytes) == Array(repeating: "\(lines) events, then nothing", count: 3))
        #expect(try Self.verify(bytes).ok)
        let last = batches[batches.count - 1]  // a batch of 12 lines
        for kept in [1, 6, 11] {
            let cut = Array(bytes.prefix(starts[last + kept]))
            let torn = "torn-tail line \(last + 1) at \(starts[last])+\(cut.count - starts[last])"
            #expect(try Self.scans(cut) == Array(repeating: "\(last) events, then \(torn)", count: 3), "kept \(kept)")
        }
    }
}
