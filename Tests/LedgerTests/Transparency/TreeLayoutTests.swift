@testable import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - TreeLayoutTests

/// The stored layouts: the post-order numbering both stores use, the inverse PostgreSQL takes from a
/// row count, and the tree file's header, refused when any byte of it is changed.
@Suite struct TreeLayoutTests {
    @Test func postOrderPositionsNumberEveryCompleteSubtreeOnce() {
        // Each leaf, then the subtrees it completes: positions run 0, 1, 2, … without a gap.
        var expected: UInt64 = 0
        for leaf in UInt64(0)..<1_000 {
            for level in 0..<MerkleNodeIndex.completed(byLeaf: leaf) {
                #expect(MerkleNodeIndex.position(level: level, index: (leaf + 1) >> UInt64(level) - 1) == expected)
                expected += 1
            }
            #expect(MerkleNodeIndex.count(leaves: leaf + 1) == expected)
        }
    }

    @Test func rowCountsGiveTheLeavesWhoseSubtreesTheyHold() {
        for leaves in UInt64(0)..<2_000 {
            let rows = MerkleNodeIndex.count(leaves: leaves)
            #expect(PostgresTree.leaves(covering: rows) == leaves)
            // A write cut short leaves extra rows: they cover no more leaves until the next is whole.
            if leaves > 0 { #expect(PostgresTree.leaves(covering: rows - 1) == leaves - 1) }
        }
    }

    @Test func aHeaderReadsBackAndAnyChangedByteIsRefused() throws {
        let mark = TreeMark(head: Head(seq: 300, hash: String(repeating: "ab", count: 32)), lineStart: 12_345, lineEnd: 12_999)
        let header = TreeFile.encode(leaves: 300, mark: mark)
        #expect(header.count == TreeFile.headerSize)
        let decoded = try #require(TreeFile.decode(header: header))
        #expect(decoded.leaves == 300 && decoded.mark == mark)
        #expect(TreeFile.decode(header: TreeFile.encode(leaves: 0, mark: nil))?.leaves == 0)
        for i in header.indices {
            var changed = header
            changed[i] ^= 0x10
            #expect(TreeFile.decode(header: changed) == nil, "byte \(i)")
        }
    }
}
