import LedgerDomain

// MARK: - MerkleHasher + SHA256

extension MerkleHasher {
    /// The tree's hashes over libcrypto's SHA-256.
    public static let sha256 = MerkleHasher { bytes in
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { out in
            SHA256.digest(bytes, into: out.baseAddress!)
            return Digest32(bytes: UnsafeRawBufferPointer(out))
        }
    }
}
