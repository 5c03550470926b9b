import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - TreeLog

/// A generated log's lines and the tree RFC 9162 defines over them, computed here from the bytes (not
/// by the store), for comparing with what `ledger head` and `ledger prove` print.
struct TreeLog {
    /// Each line's bytes, without its newline.
    let lines: [[UInt8]]
    /// Every complete subtree, post-order.
    let nodes: StoredNodes

    /// The tree of the log at `path`.
    init(path: String) throws {
        lines = splitLines(try readBytes(path)).map { Array($0.dropLast()) }
        nodes = StoredNodes(leaves: lines.map { line in line.withUnsafeBytes { MerkleHasher.sha256.leafHash($0) } })
    }

    /// The tree algorithms over `nodes`.
    var tree: MerkleTree<StoredNodes> { MerkleTree(source: nodes, hasher: .sha256) }

    /// The root of the first `size` lines, in Base64.
    func root(_ size: Int) throws -> String { try tree.root(size: UInt64(size)).base64 }

    /// The `SEQ:HASH` of line `seq`, as `verify` prints heads.
    func head(_ seq: Int) throws -> String {
        let e = try Array(lines[seq - 1]).withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: seq).0 }
        return "\(e.seq):\(e.hash)"
    }
}

/// A data folder holding the first `events` lines of the generated log of `seed` as its log.
func withTreeLedger<T>(events: Int, seed: Int = 29, _ body: (LedgerDir, TreeLog) throws -> T) throws -> T {
    try withLedgerDir { dir in
        let generated = try GeneratedLog.make(in: dir.path, events: events, seed: seed)
        try FileManager.default.moveItem(atPath: generated, toPath: dir.logPath)
        return try body(dir, try TreeLog(path: dir.logPath))
    }
}

/// The path of the tree file of `dir`.
func treePath(_ dir: LedgerDir) -> String { dir.logPath + ".tree" }

/// The tree file's size for `leaves` leaves: its header, then 40 bytes per complete subtree.
func treeFileSize(leaves: Int) -> Int { 88 + 40 * Int(MerkleNodeIndex.count(leaves: UInt64(leaves))) }

/// Changes byte `offset` of the file at `path` (xor `mask`), in place.
func flipByte(_ path: String, at offset: Int, mask: UInt8 = 1) throws {
    var bytes = try readBytes(path)
    bytes[offset] ^= mask
    try writeBytes(bytes, to: path)
}
