import Glibc
import LedgerDomain

// MARK: - ColumnSuspects

/// The rows of `ledger_events` whose `id` or `stream` column a stream of the lines could not match
/// with its line by text (`agree`): a column changed by hand, or a line not spelled as ledger
/// writes it (one imported from another writer). `PostgresColumnCheck` decodes them.
final class ColumnSuspects: @unchecked Sendable {
    /// Their seqs, in order (written by the stream's reader, read once the stream has ended).
    var seqs: [Int] = []
    /// The seqs of rows whose `stream_position` is not their place among their stream's rows so
    /// far (`count`), in order, at most `LogVerifier.maxProblems`.
    private(set) var misnumbered: [Int] = []
    /// Each stream's rows so far, by a hash of its name seeded for this process (`Hasher`): two
    /// streams sharing one would make a row look misnumbered, which `PostgresPositionCheck` reads again.
    private var rows: [Int: UInt32] = [:]

    /// Forgets what a pass of the stream found.
    func reset() {
        seqs = []
        misnumbered = []
        rows = [:]
    }

    /// Counts the row `seq` of `stream`, numbered `position`, noting it when that is not its place.
    func count(stream: UnsafeBufferPointer<UInt8>, position: Int, seq: Int) {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(stream))
        let key = hasher.finalize()
        rows[key, default: 0] &+= 1
        if position != Int(rows[key] ?? 0), misnumbered.count < LogVerifier.maxProblems { misnumbered.append(seq) }
    }

    /// True when `line` is spelled as ledger writes one and says `seq`, `id` and `stream`: it starts
    /// `{"seq":SEQ,"id":"ID","at":"…","type":"…","v":N,"stream":"STREAM",` (each member where the
    /// envelope puts it, so no text deeper in the line is taken for it), and neither column holds a
    /// quote, a backslash or a control character (text the line would have to escape).
    static func agree(line: UnsafeBufferPointer<UInt8>, seq: Int, id: UnsafeBufferPointer<UInt8>, stream: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = line.baseAddress, plain(id), plain(stream) else { return false }
        var at = 0
        // Compares the bytes at `at` with `bytes` and moves past them (no copy: this runs per row).
        func next(_ bytes: UnsafeRawPointer?, _ count: Int) -> Bool {
            guard let bytes, at + count <= line.count, memcmp(base + at, bytes, count) == 0 else { return false }
            at += count
            return true
        }
        // Moves past a number (at most 18 digits: no overflow), returning it.
        func number() -> Int? {
            var value = 0, digits = 0
            while at < line.count, (0x30...0x39).contains(line[at]) {
                guard digits < 18 else { return nil }
                value = value * 10 + Int(line[at] - 0x30)
                at += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        // Moves past a string's text up to its closing quote, which must come before a backslash.
        func text() -> Bool {
            while at < line.count, line[at] != 0x22 {
                guard line[at] != 0x5C else { return false }
                at += 1
            }
            return at < line.count
        }
        guard next(seqKey.utf8Start, seqKey.utf8CodeUnitCount), number() == seq,
              next(idKey.utf8Start, idKey.utf8CodeUnitCount), next(id.baseAddress, id.count),
              next(atKey.utf8Start, atKey.utf8CodeUnitCount), text(),
              next(typeKey.utf8Start, typeKey.utf8CodeUnitCount), text(),
              next(vKey.utf8Start, vKey.utf8CodeUnitCount), number() != nil,
              next(streamKey.utf8Start, streamKey.utf8CodeUnitCount), next(stream.baseAddress, stream.count),
              next(closeKey.utf8Start, closeKey.utf8CodeUnitCount) else { return false }
        return true
    }

    /// True when `bytes` is not empty and holds no quote, backslash or control character.
    private static func plain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.isEmpty && !bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
    }

    private static let seqKey: StaticString = #"{"seq":"#
    private static let idKey: StaticString = #","id":""#
    private static let atKey: StaticString = #"","at":""#
    private static let typeKey: StaticString = #"","type":""#
    private static let vKey: StaticString = #"","v":"#
    private static let streamKey: StaticString = #","stream":""#
    private static let closeKey: StaticString = #"","#
}

// MARK: - PostgresColumnCheck

/// `verify`'s check of the columns `ledger_events` keeps beside each line that appends decide on:
/// `seq`, `id` (whether an id is taken) and `stream` (a stream's version and lines) must say what
/// the line says. The stream of the lines compares them by text as it reads (`ColumnSuspects`);
/// the rows it could not match are decoded here and compared member by member, and a column that
/// differs is a `cache-mismatch` on that line, as a cache beside a file that disagrees is. A line
/// that is not a ledger line is the scanner's to name. (The other columns, `at`, `type`, `v`,
/// `data`, `prev`, `hash` and `stream_position`, are copies no decision reads; a stream whose
/// positions do not run 1, 2, … is refused by the next append to it.) Since schema 4 the server
/// refuses such an edit (`PostgresSchema.lineGuard`); a store that lost that constraint is named here.
enum PostgresColumnCheck {
    /// Rows fetched at a time.
    static let pageSize = 1000

    /// The problems of the `suspects` rows of `store`, in seq order (at most `limit`), after the
    /// store's own when it lost `PostgresSchema.lineGuard`.
    static func problems(_ store: PostgresEventStore, suspects: [Int], limit: Int) throws -> [LogProblem] {
        let connection = try store.connection()
        var problems: [LogProblem] = []
        do {
            let state = try unguarded(connection)
            if state == .hooked {
                problems.append(LogProblem(line: 1, kind: .cacheMismatch, message: PostgresEventStore.hookedMessage + "; writers refuse the store"))
            } else if state == .absent {
                problems.append(LogProblem(line: 1, kind: .cacheMismatch, message:
                    "\(PostgresSchema.eventsTable) lacks its constraint \(PostgresSchema.lineGuard) or \(PostgresSchema.priorLineGuard) as ledger "
                    + "defines them (schema \(PostgresSchema.version)), which keep the seq, id and stream columns appends decide on what each line "
                    + "says and every row but the last in place: someone who owns the table dropped or changed one, and writers refuse the "
                    + "store; once the problems below are dealt with, `ledger init --store URL` adds them back"))
            }
        } catch {
            throw store.storeError(error, during: "looking for the constraint \(PostgresSchema.lineGuard)")
        }
        guard !suspects.isEmpty else { return problems }
        do {
            for start in stride(from: 0, to: suspects.count, by: pageSize) where problems.count < limit {
                let page = suspects[start..<min(start + pageSize, suspects.count)].map(String.init).joined(separator: ",")
                let rows = try connection.execute("SELECT seq, line, id::text, stream FROM ledger_events WHERE seq = ANY($1::bigint[]) ORDER BY seq",
                                                  ["{\(page)}"])
                for row in 0..<rows.count where problems.count < limit {
                    let seq = rows.int(row, 0) ?? 0
                    guard let envelope = rows.bytes(row, 1, { line in try? LineCodec.decode(line, lineNumber: seq).0 }) else { continue }
                    let named: [(String, String, String)] = [("seq", String(seq), String(envelope.seq)), ("id", rows.string(row, 2) ?? "", envelope.id),
                                                            ("stream", rows.string(row, 3) ?? "", envelope.stream)]
                    guard let (name, column, said) = named.first(where: { $0.1 != $0.2 }) else { continue }
                    problems.append(LogProblem(line: envelope.seq, kind: .cacheMismatch, message:
                        "the row of this line in \(PostgresSchema.eventsTable) holds \(name) \(column) where the line says \(said): "
                        + "a column beside the line was changed, and appends decide on it; put it back as the line says"))
                }
            }
        } catch {
            throw store.storeError(error, during: "checking the columns of \(PostgresSchema.eventsTable)")
        }
        return problems
    }

    /// `absent` when the store was migrated to schema 4 or later and `ledger_events` no longer has
    /// both guards of `PostgresSchema+LineGuard` as defined, `hooked` when it has triggers or rules of
    /// its own; nil otherwise, and for a store not migrated yet (its first append migrates it).
    static func unguarded(_ connection: PostgresConnection) throws -> LineGuardState? {
        let schema: PostgresResult
        do {
            schema = try connection.execute("SELECT schema_version FROM ledger_store")
        } catch where PostgresEventStore.isMissingTable(error) {
            return nil
        }
        guard let version = schema.int(0, 0), version >= 4 else { return nil }
        let state = try PostgresEventStore.lineGuardState(connection).state
        return state == .absent || state == .hooked ? state : nil
    }


}
