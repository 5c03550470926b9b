import LedgerDomain

// MARK: - SavedHeadLine

/// Re-reads the line a saved state (a checkpoint, the store index) says it ends at, to trust that
/// state only while the log still holds that exact line: same bytes, same `seq`, same `hash`. The
/// hash chain makes every line before it the same as when the state was saved.
enum SavedHeadLine {
    /// The line's time when `file` holds, at `[lineStart, offset)`, a verified line with `head`'s seq
    /// and hash, ending in a newline; nil otherwise.
    static func verifiedTime(in file: FileDescriptor, lineStart: Int, offset: Int, head: Head) -> Timestamp? {
        guard offset > lineStart, lineStart >= 0, let size = try? file.size(), offset <= size else { return nil }
        var line = [UInt8](repeating: 0, count: offset - lineStart)
        let read = line.withUnsafeMutableBytes { raw in (try? file.read(into: raw.baseAddress!, count: raw.count, at: lineStart)) ?? 0 }
        guard read == line.count, line.last == 0x0A else { return nil }
        return line.withUnsafeBufferPointer { verifiedTime(line: UnsafeBufferPointer(rebasing: $0.dropLast()), head: head) }
    }

    /// The time of `line` (its bytes, no newline) when it is a verified line with `head`'s seq and hash; nil otherwise.
    static func verifiedTime(line body: UnsafeBufferPointer<UInt8>, head: Head) -> Timestamp? {
        guard let (envelope, bodyLength) = try? LineCodec.decode(body, lineNumber: head.seq) else { return nil }
        let hash = SHA256.hex(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: body[0..<bodyLength])))
        return envelope.seq == head.seq && envelope.hash == head.hash && hash == envelope.hash ? envelope.at : nil
    }
}
