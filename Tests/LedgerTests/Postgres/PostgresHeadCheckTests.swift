@testable import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - PostgresHeadCheckTests

/// The check of a PostgreSQL store's last line before anything is chained after it (writers) or
/// the store is called whole (`recover`): it must hash to its hash and close its batch. A last
/// line that leaves its batch open names the batch's first line, as `verify` does; one that claims
/// a place no line before it can have started is damage on its own line. No server needed.
struct PostgresHeadCheckTests {
    /// A line at `seq` with `batch` (nil: unmarked), its hash right or `wrongHash`.
    private func line(seq: Int, batch: BatchMark?, wrongHash: Bool = false) -> [UInt8] {
        let body = LineCodec.body(seq: seq, id: Fixtures.uuid(70_000 + seq), at: Timestamp(millis: 1_764_000_000_000), type: EventType.signInFailed.rawValue,
                                  v: 1, stream: Fixtures.stream(.signin, 71_000 + seq), batch: batch,
                                  data: JSONObject([("email", .string("a@example.com")), ("reason", .string("wrong-password"))]),
                                  prev: String(repeating: "0", count: 64))
        return LineCodec.line(body: body, hash: wrongHash ? String(repeating: "f", count: 64) : SHA256.hex(body)).dropLast(1)
    }

    /// The problem `checkedHead` throws for `bytes`, if any.
    private func problem(_ bytes: [UInt8]) -> LogProblem? {
        do {
            _ = try bytes.withUnsafeBufferPointer { try PostgresEventStore.checkedHead($0) }
            return nil
        } catch let error as StoreError {
            return error.problem
        } catch {
            Issue.record("\(error)")
            return nil
        }
    }

    @Test func aLineThatClosesItsBatchOrHasNoneIsAHead() throws {
        #expect(problem(line(seq: 9, batch: nil)) == nil)
        #expect(problem(line(seq: 9, batch: BatchMark(index: 3, count: 3))) == nil)
    }

    @Test func aBatchLeftOpenIsNamedOnItsFirstLine() throws {
        let cut = try #require(problem(line(seq: 8, batch: BatchMark(index: 2, count: 3))))
        #expect(cut.line == 7 && cut.kind == .tornTail)
        #expect(cut.message.hasPrefix("the store ends inside a batch (2 complete lines from line 7)"))
        let one = try #require(problem(line(seq: 7, batch: BatchMark(index: 1, count: 3))))
        #expect(one.line == 7 && one.message.hasPrefix("the store ends inside a batch (1 complete line from line 7)"))
    }

    @Test func aPlaceNoLineBeforeItCanHaveStartedIsDamageOnItsLine() throws {
        let claimed = try #require(problem(line(seq: 2, batch: BatchMark(index: 3, count: 4))))
        #expect(claimed.line == 2 && claimed.kind == .brokenBatch)
    }

    /// Lines 1… chained, each with the batch mark given (nil: unmarked).
    private func chained(_ marks: [BatchMark?]) -> [[UInt8]] {
        var prev = String(repeating: "0", count: 64), out: [[UInt8]] = []
        for (k, mark) in marks.enumerated() {
            let body = LineCodec.body(seq: k + 1, id: Fixtures.uuid(72_000 + k), at: Timestamp(millis: 1_764_000_000_000), type: EventType.signInFailed.rawValue,
                                      v: 1, stream: Fixtures.stream(.signin, 73_000 + k), batch: mark,
                                      data: JSONObject([("email", .string("a@example.com")), ("reason", .string("wrong-password"))]), prev: prev)
            prev = SHA256.hex(body)
            out.append(Array(LineCodec.line(body: body, hash: prev).dropLast(1)))
        }
        return out
    }

    /// The problem of the last of `lines`, its rows read from `lines`.
    private func named(_ lines: [[UInt8]]) throws -> LogProblem {
        let head = try lines[lines.count - 1].withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: lines.count).0 }
        return PostgresEventStore.openBatchProblem(head) { from, to in Array(lines[(from - 1)...(to - 1)]) }
    }

    /// With the rows before the head read, a cut is named only when they are the batch's earlier
    /// lines; a head whose mark does not continue them is `broken-batch` on its own line, as `verify`
    /// names it (a place after a closed batch, a place repeated, a new batch inside an open one).
    @Test func theRowsBeforeTheHeadDecideWhatIsNamed() throws {
        let m = { (i: Int, n: Int) in BatchMark(index: i, count: n) }
        let cut = try named(chained([nil, m(1, 4), m(2, 4), m(3, 4)]))
        #expect(cut.line == 2 && cut.kind == .tornTail && cut.message.hasPrefix("the store ends inside a batch (3 complete lines from line 2)"))
        // Lines 5–8 a whole batch, line 8's place edited to 2 and re-sealed: a place after a closed batch.
        let afterClosed = try named(chained([nil, nil, nil, nil, m(1, 4), m(2, 4), m(3, 4), m(4, 4), m(2, 4)]))
        #expect(afterClosed.line == 9 && afterClosed.kind == .brokenBatch, "\(afterClosed)")
        let repeated = try named(chained([nil, m(1, 4), m(2, 4), m(3, 4), m(3, 4)]))
        #expect(repeated.line == 5 && repeated.kind == .brokenBatch, "\(repeated)")
        let inside = try named(chained([nil, m(1, 4), m(2, 4), m(1, 3)]))
        #expect(inside.line == 4 && inside.kind == .brokenBatch, "\(inside)")
        // A place beyond the lines before it.
        let beyond = try named(chained([nil, nil, m(9, 10)]))
        #expect(beyond.line == 3 && beyond.kind == .brokenBatch, "\(beyond)")
        // A row missing before the head (a store without its constraints): the gap, as verify names it.
        let lines = chained([nil, m(1, 4), m(2, 4), m(3, 4)])
        let head = try lines[3].withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: 4).0 }
        let gap = PostgresEventStore.openBatchProblem(head) { from, to in (from...to).filter { $0 != 3 }.map { lines[$0 - 1] } }
        #expect(gap.line == 3 && gap.kind == .seqGap, "\(gap)")
        // The batch's earlier line edited (its hash no longer holds): damage there.
        var edited = chained([nil, m(1, 3), m(2, 3)])
        let at = try #require(edited[1].firstIndex(of: UInt8(ascii: "@"))) - 1
        edited[1][at] = UInt8(ascii: "b")  // "a@example.com" → "b@example.com", its hash kept
        let damaged = try named(edited)
        #expect(damaged.line == 2 && damaged.kind == .badHash, "\(damaged)")
    }

    @Test func aLineThatDoesNotHashToItsHashIsDamage() throws {
        let edited = try #require(problem(line(seq: 4, batch: nil, wrongHash: true)))
        #expect(edited.line == 4 && edited.kind == .badHash)
    }
}
