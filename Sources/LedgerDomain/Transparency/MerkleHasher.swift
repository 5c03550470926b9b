// MARK: - MerkleHasher

/// SHA-256 as the tree uses it, injected (LedgerKit gives the libcrypto one): RFC 9162 §2.1.1's
/// domain-separated leaf and interior hashes, so a leaf can never pass for an interior node.
public struct MerkleHasher: Sendable {
    /// SHA-256 of a byte string.
    private let sha256: @Sendable (UnsafeRawBufferPointer) -> Digest32

    /// A hasher over the given SHA-256.
    public init(sha256: @escaping @Sendable (UnsafeRawBufferPointer) -> Digest32) { self.sha256 = sha256 }

    /// SHA-256(0x00 ‖ bytes): the hash of one leaf (here, one log line without its newline).
    public func leafHash(_ bytes: UnsafeRawBufferPointer) -> Digest32 {
        withUnsafeTemporaryAllocation(byteCount: bytes.count + 1, alignment: 8) { buffer in
            buffer.storeBytes(of: 0, toByteOffset: 0, as: UInt8.self)
            if let base = bytes.baseAddress, bytes.count > 0 {
                (buffer.baseAddress! + 1).copyMemory(from: base, byteCount: bytes.count)
            }
            return sha256(UnsafeRawBufferPointer(buffer))
        }
    }

    /// SHA-256(0x01 ‖ left ‖ right): the hash of an interior node.
    public func nodeHash(_ left: Digest32, _ right: Digest32) -> Digest32 {
        withUnsafeTemporaryAllocation(byteCount: 65, alignment: 8) { buffer in
            buffer.storeBytes(of: 1, toByteOffset: 0, as: UInt8.self)
            left.store(into: buffer.baseAddress! + 1)
            right.store(into: buffer.baseAddress! + 33)
            return sha256(UnsafeRawBufferPointer(buffer))
        }
    }

    /// SHA-256 of nothing: the root of the empty tree.
    public var emptyRoot: Digest32 { sha256(UnsafeRawBufferPointer(start: nil, count: 0)) }
}
