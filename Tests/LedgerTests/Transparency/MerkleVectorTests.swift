import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - MerkleVectorTests

/// The tree and its proofs against the published RFC 9162 vectors in `../shared/vectors/`, read in
/// place (a missing file fails the suite; it never skips), plus the refusals a verifier owes them.
@Suite struct MerkleVectorTests {
    /// The decoded vector file.
    struct Vectors {
        var emptyRoot: Digest32
        var leaves: [[UInt8]]
        var leafHashes: [Digest32]
        var roots: [UInt64: Digest32]
        var inclusion: [(index: UInt64, size: UInt64, proof: [Digest32])]
        var consistency: [(old: UInt64, new: UInt64, proof: [Digest32])]
    }

    static let path = Paths.repoRoot + "/../shared/vectors/rfc9162-merkle.json"

    /// What is wrong with the vector file.
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads and decodes the vectors; throws (failing the test) when the file is absent or malformed.
    static func load() throws -> Vectors {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw Malformed(description: "not an object") }
        func value<T>(_ item: [String: Any], _ key: String, as: T.Type) throws -> T {
            guard let value = item[key] as? T else { throw Malformed(description: "no \(key)") }
            return value
        }
        func digest(_ hex: String) throws -> Digest32 {
            guard let digest = Digest32(hex: hex) else { throw Malformed(description: "bad hex \(hex)") }
            return digest
        }
        func digests(_ item: [String: Any], _ key: String) throws -> [Digest32] { try value(item, key, as: [String].self).map(digest) }
        func bytes(_ hex: String) -> [UInt8] {
            stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
        }
        var roots: [UInt64: Digest32] = [:]
        for (size, hex) in try value(json, "roots", as: [String: String].self) {
            guard let size = UInt64(size) else { throw Malformed(description: "bad size \(size)") }
            roots[size] = try digest(hex)
        }
        let inclusion = try value(json, "inclusion", as: [[String: Any]].self).map { item in
            (index: try value(item, "leafIndex", as: UInt64.self), size: try value(item, "treeSize", as: UInt64.self), proof: try digests(item, "proof"))
        }
        let consistency = try value(json, "consistency", as: [[String: Any]].self).map { item in
            (old: try value(item, "oldSize", as: UInt64.self), new: try value(item, "treeSize", as: UInt64.self), proof: try digests(item, "proof"))
        }
        return Vectors(
            emptyRoot: try digest(try value(json, "emptyTreeRoot", as: String.self)),
            leaves: try value(json, "leaves", as: [String].self).map(bytes),
            leafHashes: try digests(json, "leafHashes"), roots: roots, inclusion: inclusion, consistency: consistency)
    }

    let hasher = MerkleHasher.sha256

    @Test func vectorFileIsPresentAndComplete() throws {
        let v = try Self.load()
        #expect(v.leaves.count == 8 && v.leafHashes.count == 8)
        #expect(v.roots.count == 8)
        #expect(v.inclusion.count == 36)  // every leaf of every size 1–8
        #expect(v.consistency.count == 28)  // every pair 1 ≤ m < n ≤ 8
    }

    @Test func leafHashesAndEmptyRootMatch() throws {
        let v = try Self.load()
        #expect(hasher.emptyRoot == v.emptyRoot)
        for (leaf, expected) in zip(v.leaves, v.leafHashes) {
            #expect(leaf.withUnsafeBytes { hasher.leafHash($0) } == expected)
        }
    }

    @Test func rootsOfSizesOneToEightMatch() throws {
        let v = try Self.load()
        let nodes = StoredNodes(leaves: v.leafHashes)
        let tree = MerkleTree(source: nodes, hasher: hasher)
        #expect(try tree.root(size: 0) == v.emptyRoot)
        for size in 1...UInt64(8) {
            #expect(try tree.root(size: size) == v.roots[size], "size \(size)")
            let frontier = StoredNodes(leaves: Array(v.leafHashes.prefix(Int(size)))).frontier
            #expect(frontier.root(hasher: hasher) == v.roots[size], "frontier of size \(size)")
            #expect(try MerkleFrontier(size: size, source: nodes).hashes == frontier.hashes)
        }
    }

    @Test func inclusionProofsMatchAndVerify() throws {
        let v = try Self.load()
        let tree = MerkleTree(source: StoredNodes(leaves: v.leafHashes), hasher: hasher)
        for item in v.inclusion {
            let root = try #require(v.roots[item.size])
            #expect(try tree.inclusionProof(index: item.index, size: item.size) == item.proof, "leaf \(item.index) of \(item.size)")
            #expect(MerkleProof.verifyInclusion(leafHash: v.leafHashes[Int(item.index)], index: item.index, treeSize: item.size, proof: item.proof, root: root, hasher: hasher))
        }
    }

    @Test func consistencyProofsMatchAndVerify() throws {
        let v = try Self.load()
        let tree = MerkleTree(source: StoredNodes(leaves: v.leafHashes), hasher: hasher)
        for item in v.consistency {
            let old = try #require(v.roots[item.old]), new = try #require(v.roots[item.new])
            #expect(try tree.consistencyProof(oldSize: item.old, newSize: item.new) == item.proof, "\(item.old) -> \(item.new)")
            #expect(MerkleProof.verifyConsistency(oldSize: item.old, newSize: item.new, oldRoot: old, newRoot: new, proof: item.proof, hasher: hasher))
        }
    }

    @Test func damagedInclusionProofsAreRefused() throws {
        let v = try Self.load()
        for item in v.inclusion {
            let root = try #require(v.roots[item.size])
            let leaf = v.leafHashes[Int(item.index)]
            func accepts(leaf: Digest32 = leaf, index: UInt64 = item.index, size: UInt64 = item.size, proof: [Digest32] = item.proof, root: Digest32 = root) -> Bool {
                MerkleProof.verifyInclusion(leafHash: leaf, index: index, treeSize: size, proof: proof, root: root, hasher: hasher)
            }
            #expect(!accepts(leaf: flipped(leaf, bit: 7)))
            #expect(!accepts(root: flipped(root, bit: 200)))
            for i in item.proof.indices {
                var proof = item.proof
                proof[i] = flipped(proof[i], bit: i * 31 % 256)
                #expect(!accepts(proof: proof), "flipped hash \(i) of leaf \(item.index) in \(item.size)")
            }
            #expect(!accepts(index: item.index + 1))
            #expect(!accepts(index: item.size, size: item.size))  // index past the tree
            if item.index > 0 { #expect(!accepts(index: item.index - 1)) }
            // A size whose proofs have another length: the hashes alone bind a size only that far
            // (a signed head binds the rest).
            for other in v.inclusion where other.index == item.index && other.proof.count != item.proof.count {
                #expect(!accepts(size: other.size), "leaf \(item.index) of \(item.size) as of size \(other.size)")
            }
            if !item.proof.isEmpty { #expect(!accepts(proof: Array(item.proof.dropLast()))) }
            #expect(!accepts(proof: item.proof + [leaf]))
        }
    }

    @Test func damagedConsistencyProofsAreRefused() throws {
        let v = try Self.load()
        for item in v.consistency {
            let old = try #require(v.roots[item.old]), new = try #require(v.roots[item.new])
            func accepts(oldSize: UInt64 = item.old, newSize: UInt64 = item.new, old: Digest32 = old, new: Digest32 = new, proof: [Digest32] = item.proof) -> Bool {
                MerkleProof.verifyConsistency(oldSize: oldSize, newSize: newSize, oldRoot: old, newRoot: new, proof: proof, hasher: hasher)
            }
            #expect(!accepts(old: flipped(old, bit: 3)))
            #expect(!accepts(new: flipped(new, bit: 255)))
            for i in item.proof.indices {
                var proof = item.proof
                proof[i] = flipped(proof[i], bit: 100 + i)
                #expect(!accepts(proof: proof), "flipped hash \(i) of \(item.old) -> \(item.new)")
            }
            #expect(!accepts(proof: Array(item.proof.dropLast())))
            #expect(!accepts(proof: item.proof + [old]))
            #expect(!accepts(oldSize: item.new, newSize: item.old, old: new, new: old))  // old size past the new one
            for other in v.consistency where other.old == item.old && other.proof.count != item.proof.count {
                #expect(!accepts(newSize: other.new), "\(item.old) -> \(item.new) as \(item.old) -> \(other.new)")
            }
            if item.old > 1 { #expect(!accepts(oldSize: item.old - 1)) }
        }
        // Equal sizes and size 0: empty proofs, and nothing else.
        let root8 = try #require(v.roots[8])
        #expect(MerkleProof.verifyConsistency(oldSize: 8, newSize: 8, oldRoot: root8, newRoot: root8, proof: [], hasher: hasher))
        #expect(!MerkleProof.verifyConsistency(oldSize: 8, newSize: 8, oldRoot: root8, newRoot: root8, proof: [root8], hasher: hasher))
        #expect(MerkleProof.verifyConsistency(oldSize: 0, newSize: 8, oldRoot: v.emptyRoot, newRoot: root8, proof: [], hasher: hasher))
        #expect(!MerkleProof.verifyConsistency(oldSize: 0, newSize: 8, oldRoot: root8, newRoot: root8, proof: [], hasher: hasher))
        #expect(!MerkleProof.verifyConsistency(oldSize: 9, newSize: 8, oldRoot: root8, newRoot: root8, proof: [], hasher: hasher))
    }

    @Test func digestSpellsItsBytesInBase64() throws {
        let v = try Self.load()
        let root = try #require(v.roots[8])
        #expect(root.base64 == "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=")
        #expect(Digest32(base64: root.base64) == root)
        #expect(Digest32(base64: "AAAA") == nil)
    }
}
