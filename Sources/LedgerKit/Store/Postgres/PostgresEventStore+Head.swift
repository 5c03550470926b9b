import LedgerDomain

// MARK: - PostgresEventStore: the head a line is chained after

extension PostgresEventStore {
    /// Reads the store's lines from seq `from` to seq `to`, in seq order.
    typealias HeadRows = (_ from: Int, _ to: Int) throws -> [[UInt8]]

    /// The store's lines read over `connection` (`HeadRows`).
    static func lines(_ connection: PostgresConnection) -> HeadRows {
        { from, to in
            let result = try connection.execute("SELECT line FROM \(PostgresSchema.eventsTable) WHERE seq BETWEEN $1 AND $2 ORDER BY seq",
                                                [String(from), String(to)])
            return (0..<result.count).map { row in result.isNull(row, 0) ? [] : result.bytes(row, 0) { Array($0) } }
        }
    }

    /// The envelope of the store's last line, `line`, when a line may be chained after it: it must
    /// hash to its own hash (a head edited in place, its `hash` member kept, is damage), and it must
    /// close its batch. A transaction stores a batch whole, so a last line that leaves its batch open
    /// has lost the rows after it (deleted, or a backup restored that a batch was cut in): a line
    /// chained after it would make the cut batch damage for good. That is named as `verify` names
    /// it (`openBatchProblem`, from the rows before the head that `rows` reads).
    static func checkedHead(_ line: UnsafeBufferPointer<UInt8>, rows: HeadRows? = nil) throws -> Envelope {
        let envelope = try decodeEnvelope(line)
        guard hashHolds(line, envelope) else {
            let problem = LogProblem(line: envelope.seq, kind: .badHash, message: "the last line of \(PostgresSchema.eventsTable) does not hash to its hash")
            throw StoreError(.damaged, "the PostgreSQL log is damaged at \(problem)", problem: problem)
        }
        if envelope.batchMark.leavesBatchOpen {
            let problem = openBatchProblem(envelope, rows: rows)
            throw StoreError(.damaged, "the PostgreSQL log is damaged at \(problem); nothing was appended", problem: problem)
        }
        return envelope
    }

    /// The problem of a store whose last line, `head`, leaves its batch open, named as `verify`
    /// names it: when the rows before it are that batch's earlier lines (each continuing the batch
    /// of the line before it, its hash and its link intact), the store ends inside the batch
    /// (`torn-tail` on its first line); otherwise the first row that does not continue the lines
    /// before it is damage on its own line. Without `rows` (or when they cannot be read), the rows
    /// are taken to be the batch's.
    static func openBatchProblem(_ head: Envelope, rows: HeadRows?) -> LogProblem {
        let count = head.batchMark.index
        let first = head.seq - count + 1
        guard first >= 1 else {
            return LogProblem(line: head.seq, kind: .brokenBatch, message: "its batch \(head.batchMark) claims a place no line before it can have started")
        }
        let cut = LogScanner.storeEndsInsideBatch(firstLine: first, described: "\(count) complete line\(count == 1 ? "" : "s")")
        let from = max(1, first - 1)
        guard let rows, let lines = try? rows(from, head.seq), !lines.isEmpty else { return cut }
        var open: BatchMark?, previousHash: String?
        for (k, line) in lines.enumerated() {
            let seq = from + k
            guard let envelope = try? line.withUnsafeBufferPointer({ try decodeEnvelope($0) }) else {
                return LogProblem(line: seq, kind: .invalidJSON, message: "row \(seq) of \(PostgresSchema.eventsTable) does not hold a ledger line")
            }
            // A row missing (the store without its constraints): the gap, as verify names it.
            guard envelope.seq == seq else {
                return LogProblem(line: seq, kind: .seqGap, message: "seq \(envelope.seq) follows seq \(seq - 1); expected \(seq)")
            }
            if seq >= first {
                let mark = envelope.batchMark
                if !line.withUnsafeBufferPointer({ hashHolds($0, envelope) }) {
                    return LogProblem(line: seq, kind: .badHash, message: "line \(seq) does not hash to its hash")
                }
                if let previousHash, envelope.prev != previousHash {
                    return LogProblem(line: seq, kind: .brokenChain, message: "line \(seq)'s prev is not line \(seq - 1)'s hash")
                }
                if let open, mark != open.next {
                    return LogProblem(line: seq, kind: .brokenBatch, message: "its batch \(mark) does not continue the batch \(open) line \(seq - 1) left open")
                }
                if open == nil, !mark.isUnmarked, mark.index != 1 {
                    return LogProblem(line: seq, kind: .brokenBatch, message: "its batch \(mark) claims a place in a batch no line before it started")
                }
            }
            open = envelope.batchMark.leavesBatchOpen ? envelope.batchMark : nil
            previousHash = envelope.hash
        }
        return cut
    }

    /// Whether `line` hashes to the hash its envelope gives (the SHA-256 of its bytes before `,"hash":"`).
    static func hashHolds(_ line: UnsafeBufferPointer<UInt8>, _ envelope: Envelope) -> Bool {
        line.count > 75 && SHA256.hex(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[..<(line.count - 75)])) == envelope.hash
    }
}
