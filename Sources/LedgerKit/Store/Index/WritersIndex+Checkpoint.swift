import Glibc
import LedgerDomain

// MARK: - WritersIndex: its durable checkpoint

/// `events.jsonl.index.checkpoint`: the writers' index as of one verified line, written durably
/// (temp → fsync → rename → fsync of the folder) by a writer every `Checkpoint.interval` events,
/// so a writer that finds no index it can trust (after a reboot, or with the file gone) starts
/// from this copy — taking the file over as its index — and folds only the lines after it, not
/// the whole log. A cache like the index:
/// trusted only when its bytes match the checksums it ends with and the log still holds, at the
/// offsets it records, the line it names (the hash chain then makes every line before it the
/// same); the checksums catch damage, not someone who rewrites a doctored copy, which `ledger
/// verify` notices (`CacheCheck`). They are `Checksum64`s rather than a SHA-256 seal: the table
/// is about 200 bytes per event, and hashing it would cost a writer more than the lines it saves.
///
/// Layout: the index file's bytes (header, then slots) with the boot and log fields zeroed, then
/// the `Checksum64` of the header and that of the slots, each as 16 lowercase hex digits.
extension WritersIndex {
    /// `<index>.checkpoint`.
    static func checkpointPath(forIndex path: String) -> String { path + ".checkpoint" }

    /// The seq of the covered line the last checkpoint was written (or tried) at; 0 (none yet) when
    /// the header says a seq the table does not cover (a damaged or edited header: a checkpoint is
    /// then due, never put off for good).
    var checkpointSeq: Int {
        get {
            let saved = Int(self[header: Header.checkpointSeq])
            return saved >= 0 && saved <= Int(self[header: Header.coveredSeq]) ? saved : 0
        }
        set { self[header: Header.checkpointSeq] = Int64(newValue) }
    }

    /// Saves this table, which holds exactly what its header covers, as the checkpoint at `path`.
    /// Failure leaves the previous checkpoint, or none: it is only a cache.
    func saveCheckpoint(to path: String) throws {
        try FileSystem.writeAtomically(to: path) { append in _ = try writeCheckpoint(append) }
    }

    /// Gives `append` this table as a checkpoint's bytes (`writeCheckpoint(header:slotBytes:slots:_:)`)
    /// and returns how many; 0 (nothing given) when its header names no line.
    func writeCheckpoint(_ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try Self.writeCheckpoint(header: UnsafeRawBufferPointer(start: base, count: Self.headerSize), slotBytes: mappedSize - Self.headerSize,
                                 slots: { UnsafeRawBufferPointer(start: base + Self.headerSize + $0, count: $1) }, append)
    }

    /// Gives `append` a checkpoint of the table with `header` and `slotBytes` bytes of slots, which
    /// `slots(at, count)` gives a piece at a time (nil when they cannot be read): the header with its
    /// boot and log zeroed, the slots, the trailer of checksums. Returns how many bytes; 0 (nothing
    /// given) when the header names no line. Also what a read checkpoint carries (`CheckpointIndexSection`).
    static func writeCheckpoint(header source: UnsafeRawBufferPointer, slotBytes: Int,
                                slots: (_ at: Int, _ count: Int) -> UnsafeRawBufferPointer?,
                                _ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        guard source.count == headerSize, let page = anonymousMapping(size: headerSize) else { return 0 }
        memcpy(page, source.baseAddress!, headerSize)
        let header = WritersIndex(path: "", fd: -1, base: page, mappedSize: headerSize, inode: (0, 0))  // unmapped when released
        guard let coverage = header.recordedCoverage else { return 0 }
        for i in 0..<Header.bootIDLength { header.store(UInt8(0), at: Header.bootID + i) }
        header[header: Header.logDevice] = 0
        header[header: Header.logInode] = 0
        header.checkpointSeq = coverage.head.seq
        let headerBytes = UnsafeRawBufferPointer(start: page, count: headerSize)
        try append(headerBytes)
        var checksum = Checksum64.Running()
        var done = 0
        while done < slotBytes {
            guard let piece = slots(done, min(checkpointPiece, slotBytes - done)), piece.count > 0 else { throw SystemError("read", path: "the writers' index") }
            checksum.update(piece)
            try append(piece)
            done += piece.count
        }
        let trailer = hex(Checksum64.of(headerBytes)) + hex(checksum.value)
        try trailer.withUnsafeBytes { try append($0) }
        return headerSize + slotBytes + trailerSize
    }

    /// The slots are checksummed and written this many bytes at a time (a multiple of 32).
    static let checkpointPiece = 4 << 20

    /// Bytes after the table: its checksums.
    static let trailerSize = 32

    /// The trailer of a checkpoint of `header` and `slots`.
    static func checksums(header: UnsafeRawBufferPointer, slots: UnsafeRawBufferPointer) -> [UInt8] {
        hex(Checksum64.of(header)) + hex(Checksum64.of(slots))
    }

    /// A checksum as the trailer spells it: 16 lowercase hex digits.
    static func hex(_ value: UInt64) -> [UInt8] {
        let digits = String(value, radix: 16)
        return Array((String(repeating: "0", count: 16 - digits.count) + digits).utf8)
    }

    /// The checkpoint at `path` with what it covers, when it is intact and `log` holds its line:
    /// as the index file at `indexPath` told it covers that line of `log` (the checkpoint itself,
    /// renamed: `adopt`; or, when it cannot be taken over, a copy built aside and renamed over it),
    /// or, without `indexPath`, as a copy in memory (for `verify`). Nil otherwise.
    /// With `section` (where a read checkpoint carries one, `CheckpointIndexSection`), the bytes
    /// of the file in that range are the checkpoint, and it is always copied: the file stays the
    /// reads' (a writer borrows it in place instead when it can, `WritersIndex+Borrowing`).
    static func loadCheckpoint(path: String, section: Range<Int>? = nil, log: FileDescriptor,
                               into indexPath: String?) -> (table: WritersIndex, coverage: Coverage)? {
        if let indexPath, section == nil {
            switch adopt(path: path, log: log, as: indexPath) {
            case .adopted(let table, let coverage): return (table, coverage)
            case .refused: return nil
            case .notAdoptable: break
            }
        }
        let source = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)  // a FIFO must not hang the open
        guard source >= 0 else { return nil }
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let identity = log.identity() else { return nil }
        let start = section?.lowerBound ?? 0
        let end = section.map { min($0.upperBound, Int(info.st_size)) } ?? Int(info.st_size)
        let size = end - start - trailerSize
        guard checkedHeader(of: source, at: start, size: size, log: log) else { return nil }
        let temp = indexPath.map { $0 + ".new" }
        let mapped = if let temp, let indexPath { newFile(temp, size: size, for: indexPath) } else {
            anonymousMapping(size: size).map { WritersIndex(path: "", fd: -1, base: $0, mappedSize: size, inode: (0, 0)) }
        }
        guard let table = mapped else { return nil }
        let loaded = fill(table, from: source, at: start, size: size).flatMap { table.verifiedCoverage(log: log) }
        guard let loaded else {
            if let temp { unlink(temp) }
            return nil
        }
        guard let indexPath, let temp else { return (table, loaded) }
        table.setCoverage(loaded, logDevice: UInt64(identity.device), inode: UInt64(identity.inode))
        table.checkpointSeq = loaded.head.seq
        guard rename(temp, indexPath) == 0 else { unlink(temp); return nil }
        return (table, loaded)
    }

    /// What `adopt` did.
    private enum Adoption {
        /// The checkpoint is the index file now.
        case adopted(WritersIndex, Coverage)
        /// It is damaged or names a line the log does not hold: no writer may start from it.
        case refused
        /// It could not be taken over (another name links to it, it cannot be opened for writing or
        /// mapped): a copy of it may still serve.
        case notAdoptable
    }

    /// The checkpoint at `path`, checked as a copy of it is, made the index file itself: renamed to
    /// `indexPath` and told it covers its line of `log`, instead of copied (a copy reads and writes
    /// the whole table, which grows with the history, where the writer then folds only the tail).
    /// Until the next checkpoint is saved (`Checkpoint.interval` events on) there is none: a writer
    /// that finds no index it can trust before then (after a power loss) folds the whole log once.
    /// Under the writers' exclusive lock; a reader that had the file open sees its checksums fail
    /// and ignores it, as it ignores any damaged cache.
    private static func adopt(path: String, log: FileDescriptor, as indexPath: String) -> Adoption {
        let fd = Glibc.open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)  // a FIFO must not hang the open
        guard fd >= 0 else { return errno == ENOENT ? .refused : .notAdoptable }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let identity = log.identity() else { close(fd); return .refused }
        // Another name for the same file would see the index's writes, and a file of another owner
        // or mode would give the live index (which has no checksum) to whoever else may write or
        // read it: those are copied instead, into a new file of this writer's, mode 0600.
        guard isWritersOwn(info) else { close(fd); return .notAdoptable }
        let size = Int(info.st_size) - trailerSize
        guard checkedHeader(of: fd, at: 0, size: size, log: log) else { close(fd); return .refused }
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else { close(fd); return .notAdoptable }
        let table = WritersIndex(path: indexPath, fd: fd, base: base, mappedSize: size, inode: (UInt64(info.st_dev), UInt64(info.st_ino)))
        var trailer = [UInt8](repeating: 0, count: trailerSize)
        let n = trailer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, trailerSize, off_t(size)) }
        let header = UnsafeRawBufferPointer(start: base, count: headerSize)
        let slots = UnsafeRawBufferPointer(start: base + headerSize, count: size - headerSize)
        guard n == trailerSize, checksums(header: header, slots: slots) == trailer, let coverage = table.verifiedCoverage(log: log) else {
            return .refused
        }
        // Renamed first, then changed: killed in between, the index file holds a table of no boot
        // (the next writer rebuilds it), never a checkpoint with another boot's marks.
        guard rename(path, indexPath) == 0 else { return .notAdoptable }
        // A name linked to it while it was checked (a backup's `cp -al`) would see the index's
        // writes: nothing is written yet, so it goes back to being the checkpoint, and is copied.
        guard fstat(fd, &info) == 0, info.st_nlink == 1 else {
            if rename(indexPath, path) != 0 { unlink(indexPath) }
            return .notAdoptable
        }
        guard ftruncate(fd, off_t(size)) == 0 else { unlink(indexPath); return .refused }
        table.setCoverage(coverage, logDevice: UInt64(identity.device), inode: UInt64(identity.inode))
        table.checkpointSeq = coverage.head.seq
        return .adopted(table, coverage)
    }

    /// True when the file `info` describes is one only this writer may write: its own, mode 0600,
    /// with no other name. Only such a file becomes (or is borrowed as) the live index in place.
    static func isWritersOwn(_ info: stat) -> Bool {
        info.st_nlink == 1 && info.st_uid == geteuid() && info.st_mode & 0o777 == 0o600
    }

    /// True when the header on the first page of `fd` is one `verifiedCoverage` accepts for a table
    /// of `size` bytes: checked before any checksum, so a file grown (or made sparse) to any size,
    /// even with a header to match, costs a read of its first page and of one line of the log under
    /// the writers' lock, not a read of all of it.
    static func checkedHeader(of fd: Int32, at start: Int, size: Int, log: FileDescriptor) -> Bool {
        guard start >= 0, size >= headerSize, let page = anonymousMapping(size: headerSize) else { return false }
        let header = WritersIndex(path: "", fd: -1, base: page, mappedSize: headerSize, inode: (0, 0))  // unmapped when released
        guard pread(fd, page, headerSize, off_t(start)) == headerSize else { return false }
        return header.verifiedCoverage(log: log, tableSize: size) != nil
    }

    /// The most slots a table that folded the events up to `seq` can have: each event inserts at
    /// most 4 slots and the table doubles once past three quarters full, so it stays under 16 slots an event
    /// (and never below its first size).
    static func maxCapacity(coveringSeq seq: Int) -> Int { max(initialCapacity, 32 * min(seq, Int.max / 64) + 64) }

    /// Copies the checkpoint's `size` table bytes, from byte `start` of `source`, into `table` —
    /// file to file in the kernel when the table has a file, else read into its memory — and checks
    /// them against its checksums; nil when they are short or do not match. A file's slots are
    /// checksummed from `source` on another thread while the kernel copies them (the same bytes of
    /// the page cache; the checksums catch damage, not a hand writing the file meanwhile, which
    /// `verify` catches): the new table's pages are then touched only where the writer uses them.
    private static func fill(_ table: WritersIndex, from source: Int32, at start: Int, size: Int) -> Void? {
        let fd = table.fd
        let summed = fd >= 0 ? SlotsChecksum(source: source, start: start + headerSize, count: size - headerSize) : nil
        let thread = summed.map { summed in JoinableThread { summed.run() } }
        var done = 0
        while done < size {
            var offset = off_t(start + done)
            let n = fd >= 0 ? sendfile(fd, source, &offset, size - done) : pread(source, table.base + done, size - done, off_t(start + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        thread?.join()
        var trailer = [UInt8](repeating: 0, count: trailerSize)
        let n = trailer.withUnsafeMutableBytes { pread(source, $0.baseAddress!, trailerSize, off_t(start + size)) }
        let header = UnsafeRawBufferPointer(start: table.base, count: headerSize)
        guard done == size, n == trailerSize else { return nil }
        if let summed {
            guard let slots = summed.value, hex(Checksum64.of(header)) + hex(slots) == trailer else { return nil }
        } else {
            let slots = UnsafeRawBufferPointer(start: table.base + headerSize, count: size - headerSize)
            guard checksums(header: header, slots: slots) == trailer else { return nil }
        }
        return ()
    }

    /// What the header covers, when the table (of `tableSize` bytes, the mapping's by default) is
    /// one writers map, no larger than the events it covers can have filled, and `log` holds the
    /// covered line; its time then comes from that line, as when a live index is adopted.
    func verifiedCoverage(log: FileDescriptor, tableSize: Int? = nil) -> Coverage? {
        let capacity = self.capacity
        guard hasMagic, Self.capacity(capacity, fills: tableSize ?? mappedSize), holdsPossibleCount,
              self[header: Header.trusted] == 1, var coverage = recordedCoverage,
              capacity <= Self.maxCapacity(coveringSeq: coverage.head.seq),
              let time = SavedHeadLine.verifiedTime(in: log, lineStart: coverage.lineStart, offset: coverage.offset, head: coverage.head)
        else { return nil }
        coverage.lastAt = time
        return coverage
    }
}

// MARK: - SlotsChecksum

/// The `Checksum64` of a checkpoint's slots, read from its file a piece at a time on the thread
/// that runs it (`fill`).
final class SlotsChecksum: @unchecked Sendable {  // written by `run` on its thread, read after `join`
    let source: Int32, start: Int, count: Int
    /// The checksum, once `run` has read every byte; nil when a read fell short.
    private(set) var value: UInt64?

    init(source: Int32, start: Int, count: Int) { self.source = source; self.start = start; self.count = count }

    func run() {
        let piece = WritersIndex.checkpointPiece
        guard let buffer = WritersIndex.anonymousMapping(size: piece) else { return }
        defer { munmap(buffer, piece) }
        var running = Checksum64.Running()
        var done = 0
        while done < count {
            let n = pread(source, buffer, min(piece, count - done), off_t(start + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0, n == min(piece, count - done) else { return }
            running.update(UnsafeRawBufferPointer(start: buffer, count: n))
            done += n
        }
        value = running.value
    }
}
