import Glibc
import LedgerDomain

// MARK: - PostgresLineStream

/// The lines of a PostgreSQL store from a seq on, each with its newline, read as one stream
/// (`COPY … TO STDOUT` in binary, on a connection of its own): the bytes of the equivalent
/// `events.jsonl` from that line, which `LogScanner` verifies and folds as it does a file's, with
/// no copy of the log anywhere. Offsets count from the first line streamed. Read in order only
/// (the scanner's reader, on one thread at a time).
final class PostgresLineStream: LogBytes, @unchecked Sendable {
    /// A transaction stores a batch whole.
    var storesWholeBatches: Bool { true }

    private let before: Int?
    /// Where the rows whose `id` or `stream` column may disagree with their line are noted, when
    /// `verify` asks (`PostgresColumnCheck`); nil for the other reads, which fetch no more than the line.
    private let columns: ColumnSuspects?
    private let connection: PostgresConnection
    private var position = 0
    /// Bytes of a row that did not fit the last read, delivered first by the next one.
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var headerRead = false
    private var ended = false
    /// The `seq` the next row should have. Rows hold one line each, in `seq` order; a row missing
    /// (a gap) leaves the lines as a file's with that line removed, which the scanner names as it
    /// does a file's, so the row after a gap must hold the line of its own `seq`.
    private var nextSeq: Int
    /// The line number of the next row: its place in the log (a gap before it makes it less than its seq).
    private var nextLine: Int

    /// A stream of `url`'s lines with seq `from` and after (those before line number `before`, when
    /// given: a line's place in the log, less than its seq after a gap).
    init(_ url: PostgresURL, from seq: Int, before: Int? = nil, columns: ColumnSuspects? = nil) throws {
        self.before = before
        self.columns = columns
        nextSeq = max(1, seq)
        nextLine = nextSeq
        connection = try Self.open(url, from: nextSeq, withColumns: columns != nil)
    }

    /// A connection running the COPY of the lines from `seq`, in `seq` order from the primary key.
    /// (A sequential scan of the table as it lies, which takes the server a fifth less time for a
    /// whole log, read a million events no faster here: the client is the longer part.)
    private static func open(_ url: PostgresURL, from seq: Int, withColumns: Bool) throws -> PostgresConnection {
        let connection = try PostgresConnection.forStore(url)
        do {
            // In `seq` order straight from the primary key: a sort of the whole log would spill to
            // disk before the first line came out. No JIT: compiling the scan costs more than it saves.
            // Settings local to a read-only transaction (a pooled connection keeps none of them); it
            // ends with the connection.
            try connection.execute("BEGIN READ ONLY")
            try connection.execute("SET LOCAL enable_sort = off")
            try connection.execute("SET LOCAL jit = off")
            let columns = withColumns ? ", id::text, stream, stream_position" : ""
            try connection.startCopyOut("COPY (SELECT seq, line\(columns) FROM \(PostgresSchema.eventsTable) WHERE seq >= \(seq) ORDER BY seq) TO STDOUT (FORMAT binary)")
        } catch let error as PostgresError {
            throw Self.storeError(error)
        }
        return connection
    }

    /// Unknown ahead: the scanner reads a chunk at a time.
    func size() throws -> Int { Int.max }

    /// Fills `buffer` with up to `count` bytes of lines; 0 once every line was delivered.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws -> Int {
        guard offset == position else { throw StoreError(.damaged, "a PostgreSQL log stream is read in order, not at byte \(offset)") }
        let out = buffer.assumingMemoryBound(to: UInt8.self)
        var filled = 0
        while filled < count {
            if pendingStart < pending.count {
                let n = min(count - filled, pending.count - pendingStart)
                _ = pending.withUnsafeBufferPointer { memcpy(out + filled, $0.baseAddress! + pendingStart, n) }
                pendingStart += n
                filled += n
                continue
            }
            guard !ended else { break }
            if let before, nextLine >= before {
                ended = true  // the rest of the COPY goes with the connection
                break
            }
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            do {
                if try !connection.copyData({ message in try take(message) }) { ended = true }
            } catch let error as PostgresError {
                throw Self.storeError(error)
            }
        }
        position += filled
        return filled
    }

    /// Appends the line of one COPY message (after the file header, in the first) to `pending`.
    private func take(_ message: UnsafeBufferPointer<UInt8>) throws {
        var cursor = 0
        func int(_ width: Int) throws -> Int {
            guard cursor + width <= message.count else { throw StoreError(.damaged, "a PostgreSQL COPY message ended early") }
            var value = 0
            for byte in message[cursor..<(cursor + width)] { value = value << 8 | Int(byte) }
            cursor += width
            return value
        }
        if !headerRead {
            // "PGCOPY\n\377\r\n\0", flags, then the length of a header extension to skip.
            guard message.count >= 19, Array(message[0..<11]) == [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00] else {
                throw StoreError(.damaged, "PostgreSQL sent a COPY stream without its binary header")
            }
            cursor = 15
            cursor += try int(4)
            headerRead = true
        }
        while cursor < message.count {
            if let before, nextLine >= before { return }
            let fields = try int(2)
            if fields == 0xFFFF { return }  // the trailer
            guard fields == (columns == nil ? 2 : 5), try int(4) == 8 else { throw StoreError(.damaged, "a PostgreSQL COPY row is not a seq and a line") }
            let seq = try int(8)
            let length = try int(4)
            guard length <= message.count - cursor else { throw StoreError(.damaged, "a PostgreSQL COPY row ended early") }
            let line = UnsafeBufferPointer(rebasing: message[cursor..<(cursor + length)])
            var rowEnd = cursor + length
            if let columns {
                // Three more fields, each its length then its bytes: the row's `id` and `stream` as
                // text, and its `stream_position` (a 4-byte integer, most significant byte first).
                func field() throws -> UnsafeBufferPointer<UInt8> {
                    guard rowEnd + 4 <= message.count else { throw StoreError(.damaged, "a PostgreSQL COPY row ended early") }
                    let count = message[rowEnd..<(rowEnd + 4)].reduce(0) { $0 << 8 | Int($1) }
                    guard count <= message.count - rowEnd - 4 else { throw StoreError(.damaged, "a PostgreSQL COPY row ended early") }
                    defer { rowEnd += 4 + count }
                    return UnsafeBufferPointer(rebasing: message[(rowEnd + 4)..<(rowEnd + 4 + count)])
                }
                let id = try field(), stream = try field(), position = try field()
                if !ColumnSuspects.agree(line: line, seq: seq, id: id, stream: stream) { columns.seqs.append(seq) }
                guard position.count == 4 else { throw StoreError(.damaged, "a PostgreSQL COPY row's stream_position is not 4 bytes") }
                columns.count(stream: stream, position: position.reduce(0) { $0 << 8 | Int($1) }, seq: seq)
            }
            if seq != nextSeq {
                // Past a gap: a row whose line is another seq's (its `seq` column moved) would chain
                // as a file's does; it is the rows that are wrong.
                if seq < nextSeq || Self.lineSeq(line).map({ $0 != seq }) == true {
                    throw Self.damage(at: nextLine, .seqGap, "the row after seq \(nextSeq - 1) has seq \(seq), which its line does not say")
                }
            }
            // An empty row is the file's empty line (the scanner names it); one holding a newline
            // would be two lines of the file: the row itself is wrong.
            guard length == 0 || memchr(line.baseAddress!, 0x0A, length) == nil else {
                throw Self.damage(at: nextLine, .invalidJSON, "the row's line holds a newline (more than one line)")
            }
            pending.append(contentsOf: line)
            pending.append(0x0A)
            nextSeq = seq &+ 1
            nextLine &+= 1
            cursor = rowEnd
        }
    }

    /// The seq a line starts with (`{"seq":N,`), nil when it does not (the scanner names that line).
    private static func lineSeq(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        let prefix: [UInt8] = Array(#"{"seq":"#.utf8)
        guard line.count > prefix.count + 1, line.starts(with: prefix) else { return nil }
        var value = 0
        for (n, byte) in line[prefix.count...].enumerated() {
            if byte == UInt8(ascii: ",") { return n > 0 ? value : nil }
            guard (0x30...0x39).contains(byte), n < 18 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return nil
    }

    /// The store's rows themselves are damaged at `seq` (what `verify` of their lines could not see).
    private static func damage(at seq: Int, _ kind: ProblemKind, _ message: String) -> StoreError {
        let problem = LogProblem(line: seq, kind: kind, message: "\(message) in \(PostgresSchema.eventsTable)")
        return StoreError(.damaged, "the PostgreSQL log is damaged at \(problem)", problem: problem)
    }

    private static func storeError(_ error: PostgresError) -> StoreError {
        if error.sqlState == "42P01" { return StoreError(.unavailable, "the store has no ledger tables; create them with `ledger init --store URL`") }
        // A statement the server refused (a timeout, a permission) is not a server that is down
        // (a lost connection, a shutdown: classes 08 and 57P).
        if !error.sqlState.isEmpty, !error.connectionLost, !error.sqlState.hasPrefix("08"), !error.sqlState.hasPrefix("57P") {
            return StoreError(.io, "PostgreSQL refused the read: \(error.message)", reason: StoreError.serverRefused)
        }
        return StoreError(.unavailable, error.message)
    }
}
