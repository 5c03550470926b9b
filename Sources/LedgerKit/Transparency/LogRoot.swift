import Glibc
import LedgerDomain

// MARK: - LogRoot

/// The Merkle tree root of a log's first lines, computed from the lines themselves (each hashed as a
/// leaf, the chain checked on the way), never from the tree's state: what `verify --signed-head`
/// compares a signed head with, so that no cache, however well re-sealed, can vouch for a history
/// the log does not hold.
public enum LogRoot {
    /// The root of the first `size` lines of `source`'s log, or nil when it holds fewer intact lines.
    public static func of(_ source: LogSource, size: UInt64) throws -> Digest32? { try prefix(source, size: size).root }

    /// The number of intact lines read (at most `size`) and, when there were `size`, their root.
    public static func prefix(_ source: LogSource, size: UInt64) throws -> (size: UInt64, root: Digest32?) {
        let hasher = MerkleHasher.sha256
        guard size > 0 else { return (0, hasher.emptyRoot) }
        var frontier = MerkleFrontier()
        var checker = ChainChecker()
        let log: any LogBytes
        switch source {
        case .file(let path): log = try FileDescriptor(path: path, flags: O_RDONLY)
        case .postgres(let store): log = try PostgresLineStream(store.url, from: 1)
        }
        try LogScanner.scanFactsLendingChecker(log, from: 0, checker: &checker, { item, _, chunk in
            guard case .event(_, _, let start, let length) = item, frontier.size < size else { return false }
            frontier.append(hasher.leafHash(UnsafeRawBufferPointer(chunk.bytes(start..<(start + length - 1)))), hasher: hasher) { _ in }
            return frontier.size < size
        }, endOfChunk: { _, _ in true })
        return (frontier.size, frontier.size == size ? frontier.root(hasher: hasher) : nil)
    }
}
