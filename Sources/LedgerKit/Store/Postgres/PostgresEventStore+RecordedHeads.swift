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

    /// The head at the start of a checkpoint body; nil when it is not one.
    private static func checkpointHead(_ raw: UnsafeRawBufferPointer) -> Head? {
        guard raw.count == 56, Array(raw[0..<8]) == CheckpointWriter.magic else { return nil }
        let word = { (at: Int) in UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        return Head(seq: Int(Int64(bitPattern: word(16))), hash: Digest32(a: word(24), b: word(32), c: word(40), d: word(48)).hex)
    }
}
