// MARK: - ScanChunk

/// A piece of a log file as the scanner read it: whole lines (and at the end of the file, the bytes
/// after its last newline), valid only during the call that gets it.
public struct ScanChunk {
    /// The bytes.
    public let bytes: UnsafeBufferPointer<UInt8>
    /// The file offset of `bytes[0]`.
    public let base: Int

    /// The bytes of the file's range `range`, which the chunk holds.
    public func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[(range.lowerBound - base)..<(range.upperBound - base)])
    }
}
