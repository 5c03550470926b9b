import LedgerDomain

// MARK: - What the store's caches say its lines were

extension PostgresEventStore {
    /// The lines the store's caches recorded (`HistoryRewrite`, for `verify`): the line the
    /// account-state tables were folded to (`ledger_account_state`) and the line of the views
    /// checkpoint (`ledger_checkpoints`, whose seal is checked only when it disagrees: a damaged
    /// checkpoint is no evidence). The Merkle tree's state is checked on its own (`TreeCheck`).
    /// Tables not made yet record nothing.
    func recordedHeads() throws -> [RecordedHead] {
        let connection = try connection()
        var heads: [RecordedHead] = []
        do {
            let mark = try connection.execute("SELECT seq, hash FROM ledger_account_state")
            if mark.count == 1, let seq = mark.int(0, 0), seq > 0, let hash = mark.string(0, 1).flatMap(HistoryRewrite.canonicalHash) {
                heads.append(RecordedHead(cache: "the account-state tables (ledger_account_state)",
                                          head: Head(seq: seq, hash: hash), lineStart: 0, offset: 0, intact: { true }))
            }
        } catch let error as PostgresError where error.sqlState == "42P01" {
        } catch {
            throw storeError(error, during: "reading the account tables' mark")
        }
        do {
            // The head the sealed body holds (`CheckpointWriter`'s magic, the event count, the head's
            // seq and hash as four words), not the row's `hash` column beside it, which no read trusts.
            let rows = try connection.execute("SELECT seq, substring(body FROM 1 FOR 56) FROM ledger_checkpoints ORDER BY seq DESC LIMIT 1", [],
                                              binaryResults: true)
            if rows.count == 1, let head = rows.bytes(0, 1, { Self.checkpointHead(UnsafeRawBufferPointer($0)) }), head.seq > 0 {
                let sealed = { [connection] in
                    let check = try? connection.execute("SELECT encode(sha256(body), 'hex') = seal FROM ledger_checkpoints WHERE seq = $1",
                                                        [String(head.seq)])
                    return check?.string(0, 0) == "t"
                }
                heads.append(RecordedHead(cache: "the views checkpoint (ledger_checkpoints)", head: head, lineStart: 0, offset: 0, intact: sealed))
            }
        } catch let error as PostgresError where error.sqlState == "42P01" {
        } catch {
            throw storeError(error, during: "reading the views checkpoint's line")
        }
        return heads
    }

    /// The rewritten history the views checkpoint remembers: its row's head (held in its sealed
    /// body) names a line the store holds with another hash. Nil when there is none, the checkpoint
    /// names no line of the store, or its seal does not hold (a damaged checkpoint is no evidence).
    /// A writer that must fold the account tables again from the first line asks first, and so does
    /// a read before it puts a new checkpoint in its place: neither wipes out that evidence.
    static func checkpointRewrite(_ connection: PostgresConnection) throws -> HistoryRewrite? {
        let rows: PostgresResult
        do {
            rows = try connection.execute("""
                SELECT c.seq, substring(c.body FROM 1 FOR 56), e.line
                FROM (SELECT seq, body FROM ledger_checkpoints ORDER BY seq DESC LIMIT 1) AS c LEFT JOIN ledger_events AS e ON e.seq = c.seq
                """, [], binaryResults: true)
        } catch let error as PostgresError where error.sqlState == "42P01" {
            return nil
        }
        guard rows.count == 1, let head = rows.bytes(0, 1, { checkpointHead(UnsafeRawBufferPointer($0)) }), head.seq > 0, !rows.isNull(0, 2),
              let found = try? rows.bytes(0, 2, { try decodeEnvelope($0).hash }),
              let rewrite = HistoryRewrite.evidence(cache: "the views checkpoint (ledger_checkpoints)", recorded: head, found: found)
        else { return nil }
        let sealed = try connection.execute("SELECT encode(sha256(body), 'hex') = seal FROM ledger_checkpoints WHERE seq = $1", [String(head.seq)])
        return sealed.string(0, 0) == "t" ? rewrite : nil
    }

    /// The head at the start of a checkpoint body; nil when it is not one.
    private static func checkpointHead(_ raw: UnsafeRawBufferPointer) -> Head? {
        guard raw.count == 56, Array(raw[0..<8]) == CheckpointWriter.magic else { return nil }
        let word = { (at: Int) in UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        return Head(seq: Int(Int64(bitPattern: word(16))), hash: Digest32(a: word(24), b: word(32), c: word(40), d: word(48)).hex)
    }
}
