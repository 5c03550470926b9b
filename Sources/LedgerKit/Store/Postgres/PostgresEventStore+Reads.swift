import LedgerDomain

// MARK: - PostgresEventStore reads

extension PostgresEventStore {
    /// Calls `body` with every event from `seq` on, verified (hash, chain, schema), until it returns false.
    public func read(from seq: Int, _ body: (RecordedEvent) -> Bool) throws {
        let connection = try connection()
        do {
            try Self.forEachEvent(connection, from: max(1, seq), through: nil, opener: keyRing, body)
        } catch {
            throw storeError(error, during: "a read")
        }
    }

    /// Every event of `stream`, in order, from the whole verified log (as the file store's): the
    /// lines picked by the stream each one names, never by the rows' `stream` column, which is a
    /// copy any hand can change. What a decision reads (a token's use, a registration to
    /// compensate): a row moved out of its stream by that column must not be forgotten.
    public func readStream(_ stream: String) throws -> [RecordedEvent] {
        guard let (category, id) = StreamName.parse(stream), let bits = UUIDBits(uuid: id) else { return [] }
        var picked: [[UInt8]] = []
        var damage: LogProblem?
        var checker = ChainChecker(opener: keyRing)
        try LogScanner.scanFactsLendingChecker(try PostgresLineStream(url, from: 1), checker: &checker, { item, _, chunk in
            switch item {
            case .event(let event, _, let offset, let length):
                if event.pointee.category == category && event.pointee.stream == bits { picked.append(Array(chunk.bytes(offset..<(offset + length - 1)))) }
                return true
            case .problem(let problem, _, _), .tornTail(let problem, _, _):
                damage = problem
                return false
            }
        }, endOfChunk: { _, _ in true })
        if let damage { throw StoreError(.damaged, "the PostgreSQL log is damaged at \(damage); run `ledger verify`", problem: damage) }
        return try picked.map { line in try line.withUnsafeBufferPointer { try Self.verifyAlone($0, opener: keyRing) } }
    }

    /// Every event of `stream`, found by the table's index on its `stream` column: each line must
    /// verify on its own and name that stream, and the rows' stream positions must run 1, 2, … in
    /// `seq` order; when they do not (a row whose columns were changed: one moved in, or one moved
    /// out, leaving a hole), the whole log is read instead (`readStream`). For what only looks a
    /// stream up.
    public func readIndexedStream(_ stream: String) throws -> [RecordedEvent] {
        let connection = try connection()
        let events: [RecordedEvent]
        var positionsHold = true
        do {
            let result = try connection.execute("SELECT line, stream_position FROM ledger_events WHERE stream = $1 ORDER BY seq", [stream])
            events = try (0..<result.count).map { row in
                if result.int(row, 1) != row + 1 { positionsHold = false }
                return try result.bytes(row, 0) { line in try Self.verifyAlone(line, opener: keyRing) }
            }
        } catch {
            throw storeError(error, during: "a stream read")
        }
        guard positionsHold, events.allSatisfy({ $0.envelope.stream == stream }) else { return try readStream(stream) }
        return events
    }

    /// The number of events in `stream`: its last stream position, the number `append` checks.
    public func streamVersion(_ stream: String) throws -> Int {
        let connection = try connection()
        do {
            return try connection.execute("SELECT coalesce(max(stream_position), 0) FROM ledger_events WHERE stream = $1", [stream]).int(0, 0) ?? 0
        } catch {
            throw storeError(error, during: "a stream version lookup")
        }
    }

    /// The last `seq` and `hash` (seq 0 and the genesis hash when empty).
    public func head() throws -> Head {
        let connection = try connection()
        do {
            return try Self.head(connection).head
        } catch {
            throw storeError(error, during: "reading the head")
        }
    }

    /// The `seq` column of the last row (0 when there is none), its line not read.
    func lastRowSeq() throws -> Int {
        let connection = try connection()
        do {
            return try connection.execute("SELECT coalesce(max(seq), 0) FROM ledger_events").int(0, 0) ?? 0
        } catch {
            throw storeError(error, during: "reading the head")
        }
    }

    /// The head and the time of the last event.
    static func head(_ connection: PostgresConnection) throws -> (head: Head, lastAt: Timestamp?) {
        let result = try connection.execute("SELECT line FROM ledger_events ORDER BY seq DESC LIMIT 1")
        guard result.count == 1 else { return (Head.empty, nil) }
        let envelope = try result.bytes(0, 0) { line in try decodeEnvelope(line) }
        return (Head(seq: envelope.seq, hash: envelope.hash), envelope.at)
    }

    /// Calls `body` with the verbatim line (no newline) of every event from `seq` on, in keyset pages.
    public func forEachLine(from seq: Int = 1, _ body: (Int, UnsafeBufferPointer<UInt8>) throws -> Bool) throws {
        let connection = try connection()
        do {
            try Self.forEachLine(connection, from: seq, through: nil, body)
        } catch let error as PostgresError {
            throw storeError(error, during: "reading the log")
        }
    }

    static func forEachLine(_ connection: PostgresConnection, from seq: Int, through last: Int?,
                            _ body: (Int, UnsafeBufferPointer<UInt8>) throws -> Bool) throws {
        var next = seq
        while true {
            let result = try connection.execute(
                "SELECT seq, line FROM ledger_events WHERE seq >= $1 AND seq <= $2 ORDER BY seq LIMIT \(pageSize)",
                [String(next), String(last ?? Int.max)])
            for row in 0..<result.count {
                let rowSeq = result.int(row, 0) ?? 0
                guard try result.bytes(row, 1, { line in try body(rowSeq, line) }) else { return }
                next = rowSeq + 1
            }
            if result.count < pageSize { return }
        }
    }

    /// Verifies every line from `seq` through `last` as a chain (the first one against its own `prev`)
    /// and calls `body` with each event, its personal members opened by `opener`; damage throws `StoreError(.damaged)`.
    static func forEachEvent(_ connection: PostgresConnection, from seq: Int, through last: Int?, opener: any PersonalDataOpener,
                             _ body: (RecordedEvent) -> Bool) throws {
        var checker: ChainChecker?
        try forEachLine(connection, from: seq, through: last) { _, line in
            if checker == nil {
                let first = try decodeEnvelope(line)
                checker = first.seq == 1 ? ChainChecker() : ChainChecker(continuingAfter: Head(seq: first.seq - 1, hash: first.prev))
                checker!.opener = opener
            }
            switch LogScanner.decode(line, offset: 0, terminated: true, checker: &checker!) {
            case .event(let event, _, _): return body(event)
            case .problem(let problem, _, _), .tornTail(let problem, _, _):
                throw StoreError(.damaged, "the PostgreSQL log is damaged at \(problem) — export it and run `ledger verify`", problem: problem)
            }
        }
    }

    /// Verifies one line on its own (hash, envelope, type and data) and returns its event, its
    /// personal members opened by `opener`.
    static func verifyAlone(_ line: UnsafeBufferPointer<UInt8>, opener: any PersonalDataOpener) throws -> RecordedEvent {
        let envelope = try decodeEnvelope(line)
        var checker = ChainChecker(continuingAfter: Head(seq: envelope.seq - 1, hash: envelope.prev))
        checker.opener = opener
        switch LogScanner.decode(line, offset: 0, terminated: true, checker: &checker) {
        case .event(let event, _, _): return event
        case .problem(let problem, _, _), .tornTail(let problem, _, _):
            throw StoreError(.damaged, "the PostgreSQL log is damaged at \(problem)", problem: problem)
        }
    }

    /// The envelope of a stored line (shape only).
    static func decodeEnvelope(_ line: UnsafeBufferPointer<UInt8>) throws -> Envelope {
        do throws(LogProblem) {
            return try LineCodec.decode(line, lineNumber: 0).0
        } catch {
            throw StoreError(.damaged, "a stored line is not a ledger line: \(error)", problem: error)
        }
    }

    // MARK: - Views

    /// `read(from: 1)`, every event built whole: the server sends whole rows.
    public func scanViews(wanted: (ViewEvent) -> Bool, visit: (ViewEvent, Digest32) -> Void) throws -> [RecordedEvent] {
        try scanViewsReadingEveryEvent(wanted: wanted, visit: visit)
    }

    /// Every view, folded from every event: what writers and `recover` act on never rests on the
    /// checkpoint the read commands keep (`ledger_checkpoints`).
    public func currentViews(now: Timestamp, usingCheckpoint: Bool) throws -> LedgerViews { try viewsFoldedFromEveryEvent() }

    /// False: the views always come from every event.
    public var viewsMayComeFromACheckpoint: Bool { false }

    // MARK: - Tail

    /// False: a transaction never leaves a torn last row, so there is nothing to repair. A last row
    /// that leaves its batch open (rows of a committed batch deleted, or a restore cut it) is
    /// damage: refused as writers refuse it, however many of the batch's rows are left.
    public func repairTail() throws -> Bool {
        let connection = try connection()
        let head: PostgresResult
        do {
            head = try connection.execute("SELECT line FROM \(PostgresSchema.eventsTable) ORDER BY seq DESC LIMIT 1")
        } catch {
            throw storeError(error, during: "reading the last line")
        }
        if head.count > 0, !head.isNull(0, 0) { _ = try head.bytes(0, 0) { try Self.checkedHead($0, rows: Self.lines(connection)) } }
        return false
    }
}

// MARK: - Export

extension PostgresEventStore {
    /// Hands `write` every line, each with its newline, in seq order: exactly the bytes of the
    /// equivalent `events.jsonl`, each line verified first as `verify` checks it (`LogExport`), so a
    /// row changed in the table stops the export at its line, as a damaged file's line does.
    public func exportLines(_ write: (UnsafeRawBufferPointer) -> Void) throws -> LogExport.Outcome {
        let lines = try lastRowSeq()
        return try LogExport.lines(open: { try PostgresLineStream(url, from: 1) }, openBefore: { [url] in try PostgresLineStream(url, from: 1, before: $0) },
                                   lines: lines, write)
    }
}
