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

    @Test func aLineThatDoesNotHashToItsHashIsDamage() throws {
        let edited = try #require(problem(line(seq: 4, batch: nil, wrongHash: true)))
        #expect(edited.line == 4 && edited.kind == .badHash)
    }
}
