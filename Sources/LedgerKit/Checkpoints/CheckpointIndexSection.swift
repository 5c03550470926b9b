import Glibc
import LedgerDomain

// MARK: - CheckpointIndexSection

/// The writers' index a read checkpoint (`<log>.checkpoint`) carries after its seal, so that a
/// writer that finds neither `<log>.index` nor `<log>.index.checkpoint` — a folder restored with
/// only the log and the read checkpoint, the index files removed — starts from it and folds only
/// the lines after the line it covers, instead of the whole log.
///
/// A read that saves its checkpoint writes it when the folder's live index is one writers would
/// use (this boot's, this log's, trusted), copied under the writers' lock, shared: no writer
/// changes it meanwhile; else it carries on the section of the checkpoint it replaces (the first
/// writer borrows that copy in place, `WritersIndex+Borrowing`, leaving an empty placeholder as
/// the index file, and the next copies it). The section is that index's durable checkpoint, byte for byte as
/// `<log>.index.checkpoint` holds it (`WritersIndex+Checkpoint`: header, slots, checksums), and it
/// is trusted as that file is: its checksums hold and the log holds the line it names, at the
/// offsets it records. It may cover another line than the views (older or newer): a writer folds
/// the lines after its own. `ledger verify` compares it with the log as it compares the index
/// checkpoint.
///
/// Layout after the views' 64-byte digest: the section's bytes, then their count (little-endian
/// Int64) and `LEDGERIX`. A checkpoint without them ends with its digest, whose lowercase hex
/// never spells `LEDGERIX`.
enum CheckpointIndexSection {
    /// The file's last 8 bytes when it carries a section.
    static let magic = Array("LEDGERIX".utf8)
    /// The count and the magic.
    static let footerSize = 16

    /// Where the views' digest starts in a read checkpoint of `size` bytes, open as `file`, and
    /// where the index section lies when it has one.
    static func layout(of file: FileDescriptor, size: Int) -> (digestAt: Int, section: Range<Int>?) {
        let plain = (digestAt: size - 64, section: Range<Int>?.none)
        var footer = [UInt8](repeating: 0, count: footerSize)
        guard size >= footerSize + 64,
              (try? footer.withUnsafeMutableBytes({ try file.read(into: $0.baseAddress!, count: footerSize, at: size - footerSize) })) == footerSize,
              Array(footer[8...]) == magic else { return plain }
        let count = footer.withUnsafeBytes { Int(Int64(littleEndian: $0.loadUnaligned(as: Int64.self))) }
        // What precedes the section must still hold a header and a digest.
        guard count > WritersIndex.headerSize + WritersIndex.trailerSize, count <= size - footerSize - 64 - Checkpoint.magic.count - 16 else { return plain }
        let start = size - footerSize - count
        return (start - 64, start..<(start + count))
    }

    /// The section's range in the read checkpoint at `path`, when it has one.
    static func section(inCheckpoint path: String) -> Range<Int>? {
        guard let file = try? FileDescriptor(path: path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK), let size = try? file.size() else { return nil }
        return layout(of: file, size: size).section
    }

    /// Gives `append` the section and its footer for the log at `logPath`: from its live index when
    /// writers would use it, else the section the checkpoint being replaced carries, when the log
    /// still holds the line it names (the placeholder a writer that borrowed that copy left, another
    /// boot's index, or a writer holds the lock); nothing when neither is there (the checkpoint is then saved
    /// without one). Both are read a piece at a time, not mapped: the read's memory does not grow
    /// with them.
    static func write(forLog logPath: String, _ append: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard WritersIndex.enabled else { return }
        if try WritersLockShared.runIfFree(logPath: logPath, { try writeLive(forLog: logPath, append) }) == true { return }
        try carryOn(forLog: logPath, append)
    }

    /// The live index as a section, under the writers' lock, shared; false (nothing given) when
    /// writers would not use it.
    private static func writeLive(forLog logPath: String, _ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard let log = try? FileDescriptor(path: logPath, flags: O_RDONLY), let identity = log.identity(),
              let index = try? FileDescriptor(path: logPath + ".index", flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK),
              let size = try? index.size(), let header = WritersIndex.anonymousMapping(size: WritersIndex.headerSize) else { return false }
        let table = WritersIndex(path: "", fd: -1, base: header, mappedSize: WritersIndex.headerSize, inode: (0, 0))  // unmapped when released
        // The header read first: only a table writers would use for this log is copied.
        guard (try? index.read(into: header, count: WritersIndex.headerSize, at: 0)) == WritersIndex.headerSize,
              table.hasMagic, WritersIndex.capacity(table.capacity, fills: size),
              table.coverage(logDevice: identity.device, inode: identity.inode) != nil,
              let buffer = WritersIndex.anonymousMapping(size: WritersIndex.checkpointPiece) else { return false }
        defer { munmap(buffer, WritersIndex.checkpointPiece) }
        let count = try WritersIndex.writeCheckpoint(header: UnsafeRawBufferPointer(start: header, count: WritersIndex.headerSize),
                                                     slotBytes: size - WritersIndex.headerSize, slots: { at, count in
            let n = (try? index.read(into: buffer, count: count, at: WritersIndex.headerSize + at)) ?? 0
            return n == count ? UnsafeRawBufferPointer(start: buffer, count: n) : nil
        }, append)
        guard count > 0 else { return false }
        try appendFooter(count: count, append)
        return true
    }

    /// The section of the checkpoint about to be replaced, byte for byte, when its header is one a
    /// writer would start from for this log (its checksums are checked by the writer that uses it).
    private static func carryOn(forLog logPath: String, _ append: (UnsafeRawBufferPointer) throws -> Void) throws {
        let path = Checkpoint.path(forLog: logPath)
        var info = stat()
        guard let log = try? FileDescriptor(path: logPath, flags: O_RDONLY),
              let file = try? FileDescriptor(path: path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK),
              fstat(file.fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              let section = layout(of: file, size: Int(info.st_size)).section,
              WritersIndex.checkedHeader(of: file.fd, at: section.lowerBound, size: section.count - WritersIndex.trailerSize, log: log),
              let buffer = WritersIndex.anonymousMapping(size: WritersIndex.checkpointPiece) else { return }
        defer { munmap(buffer, WritersIndex.checkpointPiece) }
        var done = 0
        while done < section.count {
            let want = min(WritersIndex.checkpointPiece, section.count - done)
            // Bytes already given cannot be taken back: a short read fails the save.
            guard (try? file.read(into: buffer, count: want, at: section.lowerBound + done)) == want else {
                throw SystemError("read", path: path)
            }
            try append(UnsafeRawBufferPointer(start: buffer, count: want))
            done += want
        }
        try appendFooter(count: section.count, append)
    }

    /// The footer after a section of `count` bytes.
    private static func appendFooter(count: Int, _ append: (UnsafeRawBufferPointer) throws -> Void) throws {
        var footer = [UInt8]()
        withUnsafeBytes(of: Int64(count).littleEndian) { footer.append(contentsOf: $0) }
        footer += magic
        try footer.withUnsafeBytes { try append($0) }
    }
}
