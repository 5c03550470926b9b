import LedgerDomain

// MARK: - PostgresTree

/// A PostgreSQL store's tree state: table `ledger_tree`, one row per complete subtree, its
/// `MerkleNodeIndex` position and its 32-byte hash. Rows are written in position order, so the rows
/// from 0 on are always a correct prefix: the state covers the most leaves whose subtrees they
/// all hold (rows past that, a write cut short, are deleted). Extended under a session advisory
/// lock, so two hosts never extend it at once; the line it covers is the store's line of that seq,
/// whose leaf hash must be the one recorded.
final class PostgresTree: TreeStorage {
    /// The `pg_advisory_lock` key extensions serialize on ('ledger' + 2).
    static let lockKey = "7306916373939896322"
    /// What messages call it.
    static let name = "the Merkle tree the PostgreSQL store keeps (ledger_tree)"

    /// The connection, holding the lock.
    let connection: PostgresConnection
    private(set) var leaves: UInt64 = 0
    var mark: TreeMark? { nil }

    /// Opens the state over a connection of its own and takes the lock (released when it closes);
    /// to extend it, makes the table when the store predates it; only to compare it (`extending`
    /// false), changes nothing.
    init(url: PostgresURL, extending: Bool = true) throws {
        connection = try PostgresConnection.forStore(url)
        guard extending else {
            // To compare only: whatever rows there are, nothing changed, nothing made.
            guard try connection.execute("SELECT to_regclass('ledger_tree') IS NOT NULL").string(0, 0) == "t" else { return }
            try connection.execute("SELECT pg_advisory_lock(\(Self.lockKey))")
            let counted = try connection.execute("SELECT count(*) FROM ledger_tree")
            leaves = Self.leaves(covering: UInt64(counted.int(0, 0) ?? 0))
            return
        }
        if try connection.execute("SELECT to_regclass('ledger_tree') IS NULL").string(0, 0) == "t" {
            for statement in PostgresSchema.treeTable { try connection.execute(statement) }
        }
        try connection.execute("SELECT pg_advisory_lock(\(Self.lockKey))")
        let counted = try connection.execute("SELECT count(*), coalesce(max(pos), -1) FROM ledger_tree")
        guard let rows = counted.int(0, 0), let last = counted.int(0, 1), rows == last + 1 else {
            try reset()
            return
        }
        leaves = Self.leaves(covering: UInt64(rows))
        if UInt64(rows) > MerkleNodeIndex.count(leaves: leaves) {
            try connection.execute("DELETE FROM ledger_tree WHERE pos >= $1", [String(MerkleNodeIndex.count(leaves: leaves))])
        }
    }

    /// The most leaves whose complete subtrees number at most `rows`.
    static func leaves(covering rows: UInt64) -> UInt64 {
        var leaves = rows / 2
        while MerkleNodeIndex.count(leaves: leaves + 1) <= rows { leaves += 1 }
        return leaves
    }

    /// Hashes read since the last change, by position: a proof asks for some nodes more than once
    /// (its root and its path share them), and each would be a round trip.
    private var read: [UInt64: Digest32] = [:]

    func node(level: Int, index: UInt64) throws -> Digest32 {
        let position = MerkleNodeIndex.position(level: level, index: index)
        if let hash = read[position] { return hash }
        let result = try connection.execute("SELECT encode(hash, 'hex') FROM ledger_tree WHERE pos = $1", [String(position)])
        guard result.count == 1, let hex = result.string(0, 0), let hash = Digest32(hex: hex) else {
            throw TreeDamaged(what: "\(Self.name): position \(position)")
        }
        read[position] = hash
        return hash
    }

    func hashes(from position: UInt64, count: Int) throws -> [Digest32?] {
        let result = try connection.execute("SELECT pos, encode(hash, 'hex') FROM ledger_tree WHERE pos >= $1 ORDER BY pos LIMIT $2",
                                            [String(position), String(count)])
        var out: [Digest32?] = []
        for row in 0..<result.count {
            guard result.int(row, 0) == Int(position) + row else { break }  // a gap ends what is stored
            out.append(result.string(row, 1).flatMap { Digest32(hex: $0) })
        }
        return out
    }

    func write(_ nodes: [Digest32], from position: UInt64) throws {
        let positions = "{" + nodes.indices.map { String(position + UInt64($0)) }.joined(separator: ",") + "}"
        let hashes = "{" + nodes.map(\.hex).joined(separator: ",") + "}"
        try connection.execute("""
            INSERT INTO ledger_tree (pos, hash) SELECT p, decode(h, 'hex') FROM unnest($1::bigint[], $2::text[]) AS t(p, h)
            ON CONFLICT (pos) DO UPDATE SET hash = EXCLUDED.hash
            """, [positions, hashes])
    }

    func commit(leaves: UInt64, mark: TreeMark?) throws { self.leaves = leaves }

    func reset() throws {
        read = [:]
        try connection.execute("DELETE FROM ledger_tree")
        leaves = 0
    }
}

// MARK: - LogTree on a PostgreSQL store

extension LogTree {
    /// The tree of `store`'s lines, its state (`ledger_tree`) extended to the store's head.
    public static func open(store: PostgresEventStore) throws -> LogTree {
        do {
            let storage = try PostgresTree(url: store.url)
            let tree = LogTree(storage: storage) { tree in
                try storage.reset()
                try tree.extend(try PostgresLineStream(store.url, from: 1), from: 0, after: nil)
            }
            do {
                try tree.catchUp(storage, store: store)
            } catch is TreeDamaged {
                try tree.rebuild(tree)
            }
            return tree
        } catch let error as PostgresError {
            throw store.storeError(error, during: "reading the Merkle tree")
        }
    }

    /// Extends `storage` from its last leaf, when the store's line of that seq still has that leaf
    /// hash; else starts it over when the store no longer reaches it, or throws a rewritten history.
    private func catchUp(_ storage: PostgresTree, store: PostgresEventStore) throws {
        guard storage.leaves > 0 else { return try extend(try PostgresLineStream(store.url, from: 1), from: 0, after: nil) }
        let seq = storage.leaves
        let row = try storage.connection.execute("SELECT hash, line FROM ledger_events WHERE seq = $1", [String(seq)])
        guard row.count == 1, let hash = row.string(0, 0), let line = row.string(0, 1) else {
            try storage.reset()  // the store no longer reaches it: restored from an older backup
            return try extend(try PostgresLineStream(store.url, from: 1), from: 0, after: nil)
        }
        var text = line
        let found = text.withUTF8 { hasher.leafHash(UnsafeRawBufferPointer($0)) }
        let recorded = try storage.node(level: 0, index: seq - 1)
        guard found == recorded else {
            let rewrite = HistoryRewrite(cache: PostgresTree.name, seq: Int(seq), recorded: recorded.hex, found: found.hex,
                                         detail: "recorded leaf hash \(recorded.hex) for line \(seq), but that line's leaf hash is now \(found.hex)")
            throw StoreError(.historyRewritten, rewrite.message)
        }
        let mark = TreeMark(head: Head(seq: Int(seq), hash: hash))
        try extend(try PostgresLineStream(store.url, from: Int(seq) + 1), from: 0, after: mark)
    }
}
