import LedgerDomain
import LedgerKit

// MARK: - SyntheticLog

/// A log of synthetic leaves (`prefix-0`, `prefix-1`, …) as the tree branch's stored nodes, with its
/// signed heads and consistency proofs: two logs of different prefixes that share their first
/// leaves are a fork.
struct SyntheticLog {
    /// The leaf hashes.
    var leaves: [Digest32] = []
    /// The log's key.
    let signer: NoteSigner

    /// A log signed by `signer` whose first `shared` leaves are `common-i` and the rest `prefix-i`.
    init(signer: NoteSigner, size: Int, shared: Int = 0, prefix: String = "leaf") {
        self.signer = signer
        for i in 0..<size { append(i < shared ? "common-\(i)" : "\(prefix)-\(i)") }
    }

    /// Adds a leaf holding `line`.
    mutating func append(_ line: String) {
        leaves.append(Array(line.utf8).withUnsafeBytes { MerkleHasher.sha256.leafHash($0) })
    }

    /// The tree of the first leaves.
    var tree: MerkleTree<StoredNodes> { MerkleTree(source: StoredNodes(leaves: leaves), hasher: .sha256) }

    /// The root at `size`.
    func root(_ size: Int) throws -> Digest32 { try tree.root(size: UInt64(size)) }

    /// The signed head at `size` (default: all leaves).
    func head(_ size: Int? = nil) throws -> String {
        let size = size ?? leaves.count
        return try SignedHead.sign(signer: signer, size: UInt64(size), root: root(size))
    }

    /// The add-checkpoint body from `old` to `size` (default: all leaves).
    func request(old: Int, size: Int? = nil) throws -> [UInt8] {
        let size = size ?? leaves.count
        let proof = try tree.consistencyProof(oldSize: UInt64(old), newSize: UInt64(size))
        return Array(("old \(old)\n" + proof.map { $0.base64 + "\n" }.joined() + "\n" + (try head(size))).utf8)
    }
}

/// Test keys, deterministic per seed.
enum TestKeys {
    /// A log key named `name`.
    static func log(_ name: String = "example.com/ledger", seed: UInt64 = 1) throws -> NoteSigner {
        try NoteSigner.generate(name: name, type: .ed25519, random: SeededRandom(seed: seed))
    }

    /// A witness key named `name`.
    static func witness(_ name: String = "witness.example/w1", seed: UInt64 = 2) throws -> NoteSigner {
        try NoteSigner.generate(name: name, type: .cosignatureV1, random: SeededRandom(seed: seed))
    }
}
