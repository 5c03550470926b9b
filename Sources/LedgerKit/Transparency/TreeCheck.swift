import Glibc
import LedgerDomain

// MARK: - TreeCheck

/// `ledger verify`'s check of the tree's state against the log it covers: every stored hash
/// recomputed from the lines, the first that differs (or is damaged) a `cache-mismatch` naming the
/// state. A state whose last line the log no longer holds as recorded is not compared: on a file
/// store `RecordedHeads` reports it as `history-rewritten` (or it is stale, and head and prove
/// rebuild it); on a PostgreSQL store, a last leaf that differs is reported here as that. Reads
/// only; costs one more read of the lines the state covers.
enum TreeCheck {
    /// The problems of the tree state of `source`'s log (intact: it was verified first).
    static func problems(_ source: LogSource) throws -> [LogProblem] {
        switch source {
        case .file(let path):
            let treePath = TreeFile.path(forLog: path)
            guard FileSystem.exists(treePath), let storage = try? TreeFile(path: treePath, create: false), let mark = storage.mark else { return [] }
            let log = try FileDescriptor(path: path, flags: O_RDONLY)
            guard SavedHeadLine.verifiedTime(in: log, lineStart: mark.lineStart, offset: mark.lineEnd, head: mark.head) != nil else { return [] }
            return try compare(storage, log: log, naming: treePath, remedy: "remove it (head and prove rebuild it)")
        case .postgres(let store):
            let storage = try PostgresTree(url: store.url, extending: false)
            guard storage.leaves > 0 else { return [] }
            let seq = storage.leaves
            let row = try storage.connection.execute("SELECT line FROM ledger_events WHERE seq = $1", [String(seq)])
            guard row.count == 1, var line = row.string(0, 0) else { return [] }  // stale: past the log's end
            let found = line.withUTF8 { MerkleHasher.sha256.leafHash(UnsafeRawBufferPointer($0)) }
            if let recorded = try storage.hashes(from: MerkleNodeIndex.position(level: 0, index: seq - 1), count: 1).first ?? nil, recorded != found {
                let rewrite = HistoryRewrite(cache: PostgresTree.name, seq: Int(seq), recorded: recorded.hex, found: found.hex,
                                             detail: "recorded leaf hash \(recorded.hex) for line \(seq), but that line's leaf hash is now \(found.hex)")
                return [LogProblem(line: Int(seq), kind: .historyRewritten, message: rewrite.message)]
            }
            return try compare(storage, log: try PostgresLineStream(store.url, from: 1), naming: PostgresTree.name, remedy: "delete its rows (head and prove rebuild them)")
        }
    }

    /// The first stored hash of `storage` that differs from the tree of `log`'s first lines, as a problem.
    private static func compare(_ storage: any TreeStorage, log: any LogBytes, naming: String, remedy: String) throws -> [LogProblem] {
        let hasher = MerkleHasher.sha256
        let leaves = storage.leaves
        var frontier = MerkleFrontier()
        var position: UInt64 = 0
        var stored: [Digest32?] = [], next = 0
        var problem: LogProblem?
        var failure: (any Error)?
        var checker = ChainChecker()
        try LogScanner.scanFactsLendingChecker(log, from: 0, checker: &checker, { item, _, chunk in
            guard case .event(let event, _, let start, let length) = item, frontier.size < leaves else { return false }
            let seq = event.pointee.seq
            frontier.append(hasher.leafHash(UnsafeRawBufferPointer(chunk.bytes(start..<(start + length - 1)))), hasher: hasher) { hash in
                guard problem == nil, failure == nil else { return }
                if next == stored.count {
                    do { stored = try storage.hashes(from: position, count: 1 << 15) } catch { failure = error; return }
                    next = 0
                }
                let recorded = next < stored.count ? stored[next] : nil
                if recorded != hash {
                    let what = recorded == nil ? "its record \(position) is missing or damaged" : "its hash \(position) is \(recorded!.hex), the log's lines give \(hash.hex)"
                    problem = LogProblem(line: seq, kind: .cacheMismatch, message: "\(naming) disagrees with the log up to this line: \(what); \(remedy)")
                }
                next += 1
                position += 1
            }
            return problem == nil && failure == nil
        }, endOfChunk: { _, _ in true })
        if let failure { throw failure }
        return problem.map { [$0] } ?? []
    }
}
