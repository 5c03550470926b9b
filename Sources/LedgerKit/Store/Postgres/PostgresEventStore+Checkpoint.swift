import LedgerDomain

// MARK: - PostgresEventStore: the checkpoint the store keeps

extension PostgresEventStore {
    /// The largest body kept: PostgreSQL's limit for one `bytea` value is 1 GiB.
    static let largestCheckpoint = (1 << 30) - (1 << 20)

    /// Bytes of a checkpoint's body fetched per query: its views are read as they arrive, so the
    /// whole body is never held (stored uncompressed, a piece is read without the rest).
    static let checkpointPiece = 4 << 20

    /// The newest checkpoint this store keeps, when it is intact and the log holds its line; else
    /// nil. Only the views `selection` gives for the lines after it are restored (every view by default).
    /// `checkingCache` (verify) loads it even with checkpoints off here: other hosts' reads may use it.
    public func storedCheckpoint(checkingCache: Bool = false,
                                 views selection: (_ tailLines: Int) -> LedgerViews.Selection = { _ in .all }) -> Checkpoint? {
        // The newest row at or before the head (one past it names no line: it is never used, and is
        // deleted by the next save); the row's values are checked before any arithmetic on them.
        guard checkingCache || Checkpoint.interval > 0, let connection = try? connection(), let head = try? head().seq,
              let rows = try? connection.execute("SELECT seq, hash, seal, length(body) FROM ledger_checkpoints WHERE seq <= $1 ORDER BY seq DESC LIMIT 1",
                                                 [String(head)]),
              rows.count == 1, let seq = rows.int(0, 0), seq >= 1, seq <= head, let hash = rows.string(0, 1), let seal = rows.string(0, 2),
              let length = rows.int(0, 3) else { return nil }
        // The body, a piece at a time, hashed as it is read; a row deleted meanwhile (a newer one
        // saved) ends it early, and it is ignored.
        let sha = SHA256Stream()
        var position = 0
        var piece: PostgresResult?
        var pieceOffset = 0, pieceLength = 0
        let restored = selection(head - seq)
        let read = try? CheckpointReader.read(views: restored, source: { buffer in
            if pieceOffset == pieceLength {
                guard position < length else { return 0 }
                let fetched = try connection.execute("SELECT substring(body FROM $2 FOR $3) FROM ledger_checkpoints WHERE seq = $1",
                                                     [String(seq), String(position + 1), String(Self.checkpointPiece)], binaryResults: true)
                guard fetched.count == 1 else { return 0 }
                piece = fetched
                pieceOffset = 0
                pieceLength = fetched.bytes(0, 0) { $0.count }
                guard pieceLength > 0 else { return 0 }
            }
            let n = min(buffer.count, pieceLength - pieceOffset)
            piece!.bytes(0, 0) { bytes in
                let part = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[pieceOffset..<(pieceOffset + n)])
                buffer.baseAddress!.copyMemory(from: part.baseAddress!, byteCount: n)
                sha.update(part)
            }
            pieceOffset += n
            position += n
            return n
        })
        guard let read, position == length, sha.finalize() == seal, read.views.head == Head(seq: seq, hash: hash),
              let line = try? connection.execute("SELECT line FROM ledger_events WHERE seq = $1", [String(seq)]), line.count == 1,
              let headAt = line.bytes(0, 0, { SavedHeadLine.verifiedTime(line: $0, head: read.views.head) })
        else { return nil }
        var checkpoint = Checkpoint(views: read.views, ids: read.ids, lineStart: 0, offset: 0, headAt: headAt)
        checkpoint.erasures = read.erasures
        return checkpoint
    }

    /// Keeps `checkpoint` as the store's newest (the older ones deleted), unless an erasure was
    /// appended after its line or the newest one remembers another history (`checkpointRewrite`). Failure (a role that may
    /// not write, a lost connection) leaves the store as it was: it is only a cache.
    public func saveCheckpoint(_ checkpoint: Checkpoint) {
        guard checkpoint.isWhole, let connection = try? connection() else { return }
        // One that remembers another history stays, as the evidence writers refuse on.
        do {
            guard try Self.checkpointRewrite(connection) == nil else { return }
        } catch {
            return
        }
        var body: [UInt8] = []
        var tooLarge = false
        CheckpointWriter.write(checkpoint.views, ids: checkpoint.ids) { bytes in
            guard !tooLarge else { return }
            body.append(contentsOf: bytes)
            tooLarge = body.count > Self.largestCheckpoint
        }
        // PostgreSQL stores at most 1 GiB in a bytea: a larger checkpoint is not kept (reads fold the whole log).
        guard !tooLarge else { return }
        let seal = body.withUnsafeBytes { SHA256.hex($0) }
        let head = checkpoint.views.head
        let save = {
            try connection.transaction {
                // Not when an erasure was appended after its line: its views may hold the erased
                // data (read before the erasure, with a key this process kept), which the erasure
                // removed from this table. Looked for in the lines themselves, not the `type` column
                // beside them (a copy a hand may change); a quote inside a JSON string is escaped,
                // so `"type":"…"` is only ever the envelope's member.
                let erasures = [EventType.personalDataErased, .addressDataErased]
                    .map { "position('\"type\":\"\($0.rawValue)\"' IN line) > 0" }.joined(separator: " OR ")
                try connection.execute("""
                    INSERT INTO ledger_checkpoints (seq, hash, seal, body) SELECT $1::bigint, $2::text, $3::text, $4::bytea
                    WHERE NOT EXISTS (SELECT 1 FROM ledger_events WHERE seq > $1::bigint AND (\(erasures)))
                    ON CONFLICT (seq) DO NOTHING
                    """, [String(head.seq), head.hash, seal], bytes: body, binaryResults: false)
                try connection.execute("DELETE FROM ledger_checkpoints WHERE seq <> $1", [String(head.seq)])
            }
        }
        do {
            try save()
        } catch let error as PostgresError where error.sqlState == "42P01" {
            // A store made before the table: make it (idempotent), then save.
            for statement in PostgresSchema.checkpointTable { _ = try? connection.execute(statement) }
            try? save()
        } catch {}
    }

    /// Empties `ledger_checkpoints` (a cache; failure leaves it as it was).
    func dropCheckpoints() {
        guard let connection = try? connection() else { return }
        _ = try? connection.execute("DELETE FROM ledger_checkpoints")
    }
}
