import Glibc
import LedgerDomain

// MARK: - RecordedHead

/// A line a cache beside the log recorded — its seq and hash, where it started and ended — read
/// from the cache's file whatever boot or log file the cache names.
struct RecordedHead {
    /// The cache's file.
    var cache: String
    /// The line's seq and hash.
    var head: Head
    /// Where the cache says the line starts and ends.
    var lineStart: Int, offset: Int
    /// True when the cache's own checksum or seal holds (a damaged cache is no evidence).
    var intact: () -> Bool
}

// MARK: - RecordedHeads

/// What the caches beside a log say its lines were (`HistoryRewrite`): the covered line in the
/// header of the writers' index (`<log>.index`), of its checkpoint and of the copy the views'
/// checkpoint carries, the head of the views' checkpoint (`<log>.checkpoint`) and the last line the Merkle tree's state covers (`<log>.tree`). Reads only the few bytes that hold them, until a cache disagrees.
enum RecordedHeads {
    /// The lines the caches beside the log at `logPath` recorded (only those with a header writers
    /// would have trusted); each one's checksum or seal is checked only when asked (`intact`).
    static func of(logPath: String) -> [RecordedHead] {
        let index = logPath + ".index"
        let readCheckpoint = Checkpoint.path(forLog: logPath)
        return [liveIndex(index), indexCheckpoint(WritersIndex.checkpointPath(forIndex: index)), viewsCheckpoint(readCheckpoint),
                CheckpointIndexSection.section(inCheckpoint: readCheckpoint).flatMap { indexCheckpoint(readCheckpoint, at: $0) },
                treeFile(TreeFile.path(forLog: logPath))]
            .compactMap { $0 }
    }

    /// The first `HistoryRewrite` the caches beside `logPath` prove against `log`, its intact prefix
    /// read from the first line only when a cache's line is not where the cache says, as it says it
    /// (one read, up to the highest such seq: after a restore or a rewrite, never in steady state).
    static func rewrite(logPath: String, log: FileDescriptor) throws -> HistoryRewrite? {
        let suspects = of(logPath: logPath).filter { recorded in
            SavedHeadLine.verifiedTime(in: log, lineStart: recorded.lineStart, offset: recorded.offset, head: recorded.head) == nil
                && recorded.intact()
        }
        guard !suspects.isEmpty else { return nil }
        let (found, damaged) = try hashes(of: Set(suspects.map(\.head.seq)), in: log)
        if let rewrite = suspects.lazy.compactMap({ HistoryRewrite.evidence(cache: $0.cache, recorded: $0.head, found: found[$0.head.seq]?.hex) }).first {
            return rewrite
        }
        guard !damaged else { return nil }  // damage is reported as such, by the writer's own read
        // The line a cache recorded, still where it recorded it with its seq but another hash, is a
        // rewrite whatever readers make of it (e.g. marked as the first line of a batch left open,
        // so that it would pass for a cut batch and be moved aside as a torn tail).
        let size = try log.size()
        for suspect in suspects where found[suspect.head.seq] == nil {
            if case .line(let seq, _, let hash) = RecordedIndexLines.line(in: log, at: suspect.lineStart, before: size), seq == suspect.head.seq,
               let rewrite = HistoryRewrite.evidence(cache: suspect.cache, recorded: suspect.head, found: hash.hex) {
                return rewrite
            }
        }
        // A cache names a line past the log's end: stale after a restore from an older backup, or a
        // rewrite whose tail was dropped to look like one. The lines the index recorded, slot by slot, tell.
        guard suspects.contains(where: { found[$0.head.seq] == nil }) else { return nil }
        return RecordedIndexLines.rewrite(logPath: logPath, log: log, intactEnd: try log.size())
    }

    /// The hashes of the lines of `log`'s intact prefix whose seq is in `seqs`, and whether that
    /// prefix ends at damage (rather than at the end, a torn tail or a cut batch).
    private static func hashes(of seqs: Set<Int>, in log: FileDescriptor) throws -> (found: [Int: Digest32], damaged: Bool) {
        guard let last = seqs.max() else { return ([:], false) }
        var found: [Int: Digest32] = [:]
        var damaged = false
        var checker = ChainChecker()
        try LogScanner.scanFacts(log, from: 0, checker: &checker) { item in
            switch item {
            case .event(let event, let hash, _, _):
                if seqs.contains(event.pointee.seq) { found[event.pointee.seq] = hash }
                return event.pointee.seq < last
            case .problem: damaged = true; return false
            default: return false
            }
        }
        return (found, damaged)
    }

    // MARK: - Each cache's record

    /// `count` bytes of the file at `path` from `offset`; nil when it cannot be read whole.
    private static func bytes(_ path: String, at offset: Int, count: Int) -> [UInt8]? {
        guard let file = try? FileDescriptor(path: path, flags: O_RDONLY | O_NOFOLLOW) else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        let n = out.withUnsafeMutableBytes { (try? file.read(into: $0.baseAddress!, count: count, at: offset)) ?? 0 }
        return n == count ? out : nil
    }

    /// A header of the writers' index, as bytes: its covered line when writers would have trusted it.
    private static func covered(header bytes: [UInt8]) -> (Head, lineStart: Int, offset: Int)? {
        guard let base = WritersIndex.anonymousMapping(size: WritersIndex.headerSize) else { return nil }
        bytes.withUnsafeBytes { _ = memcpy(base, $0.baseAddress!, WritersIndex.headerSize) }
        let header = WritersIndex(path: "", fd: -1, base: base, mappedSize: WritersIndex.headerSize, inode: (0, 0))
        guard header.hasMagic, header[header: WritersIndex.Header.trusted] == 1, let coverage = header.recordedCoverage,
              Digest32(hex: coverage.head.hash) != nil else { return nil }
        return (coverage.head, coverage.lineStart, coverage.offset)
    }

    /// The live index's covered line (its header is all there is to check: the index has no checksum).
    private static func liveIndex(_ path: String) -> RecordedHead? {
        guard let header = bytes(path, at: 0, count: WritersIndex.headerSize), let (head, lineStart, offset) = covered(header: header) else { return nil }
        return RecordedHead(cache: path, head: head, lineStart: lineStart, offset: offset, intact: { true })
    }

    /// The index checkpoint's covered line, its header's checksum (the trailer's first 16 digits)
    /// holding: the file at `path`, or the one in its bytes `section` (a read checkpoint's).
    private static func indexCheckpoint(_ path: String, at section: Range<Int>? = nil) -> RecordedHead? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let start = section?.lowerBound ?? 0, end = section?.upperBound ?? Int(info.st_size)
        guard end <= Int(info.st_size), end - start > WritersIndex.headerSize + WritersIndex.trailerSize,
              let header = bytes(path, at: start, count: WritersIndex.headerSize),
              let trailer = bytes(path, at: end - WritersIndex.trailerSize, count: 16),
              header.withUnsafeBytes({ Array(WritersIndex.checksums(header: $0, slots: $0).prefix(16)) }) == trailer,
              let (head, lineStart, offset) = covered(header: header) else { return nil }
        return RecordedHead(cache: path, head: head, lineStart: lineStart, offset: offset, intact: { true })
    }

    /// The views checkpoint's head (`Checkpoint`'s layout: `LEDGERCP`, the line's start and end, then
    /// `CheckpointWriter`'s magic, the event count, the head's seq and its hash as four words); its
    /// seal, a SHA-256 of the whole file, is checked only when asked.
    private static func viewsCheckpoint(_ path: String) -> RecordedHead? {
        guard let bytes = bytes(path, at: 0, count: 80), Array(bytes[0..<8]) == Checkpoint.magic,
              Array(bytes[24..<32]) == CheckpointWriter.magic else { return nil }
        let (lineStart, offset, seq, hash) = bytes.withUnsafeBytes { raw in
            let word = { (at: Int) in UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            return (Int(Int64(bitPattern: word(8))), Int(Int64(bitPattern: word(16))), Int(Int64(bitPattern: word(40))),
                    Digest32(a: word(48), b: word(56), c: word(64), d: word(72)))
        }
        guard seq > 0 else { return nil }
        return RecordedHead(cache: path, head: Head(seq: seq, hash: hash.hex), lineStart: lineStart, offset: offset, intact: { sealed(path) })
    }

    /// The last line the tree's state covers, its header's checksum holding.
    private static func treeFile(_ path: String) -> RecordedHead? {
        guard let header = bytes(path, at: 0, count: TreeFile.headerSize), let (_, mark) = TreeFile.decode(header: header), let mark else { return nil }
        return RecordedHead(cache: path, head: mark.head, lineStart: mark.lineStart, offset: mark.lineEnd, intact: { true })
    }

    /// True when the views of the checkpoint at `path` are followed by their SHA-256.
    private static func sealed(_ path: String) -> Bool {
        guard let file = try? FileDescriptor(path: path, flags: O_RDONLY | O_NOFOLLOW), let size = try? file.size(), size > 64 else { return false }
        let end = CheckpointIndexSection.layout(of: file, size: size).digestAt
        let sha = SHA256Stream()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position = 0
        while position < end {
            let n = buffer.withUnsafeMutableBytes { (try? file.read(into: $0.baseAddress!, count: min($0.count, end - position), at: position)) ?? 0 }
            guard n > 0 else { return false }
            buffer.withUnsafeBytes { sha.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            position += n
        }
        return bytes(path, at: end, count: 64) == Array(sha.finalize().utf8)
    }
}
