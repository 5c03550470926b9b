import Glibc
import LedgerDomain

// MARK: - WritersIndex: borrowing the read checkpoint's copy

/// The first writer that finds no file at all at the index's path, nor the index checkpoint, only
/// the copy of the index a read checkpoint carries (`CheckpointIndexSection`) — a folder restored
/// with the log and the read checkpoint — borrows that copy instead of copying it: the section is
/// mapped private (copy on write), checked as a copy of it is, and used as the index in place, its
/// writes staying in the process. Nothing that grows with the history is copied or written, and
/// the read checkpoint's file is never changed.
///
/// The empty table that writer created at the index's path stays there as a placeholder, and the
/// next writer, which finds a file it cannot use there, copies the carried index into an index
/// file of its own as before (`loadCheckpoint`), once, for every writer after it. A borrowed table
/// serves the one lock hold that borrowed it: the read checkpoint may be written over in place
/// once the lock is released (a backup copied onto it), which the mapping would not survive, so
/// the same process's next operation drops it untouched and copies too (`syncIndexFile`). A
/// borrowed table that grows becomes a file of its own at once.
extension WritersIndex {
    /// What `borrow` did.
    enum Borrowing {
        /// The copy is this process's index, told it covers its line of the log.
        case borrowed(WritersIndex, Coverage)
        /// It is damaged or names a line the log does not hold: no writer may start from it.
        case refused
        /// It could not be mapped, or is not the writer's own (mode 0600, one name): a copy may still serve.
        case notBorrowable
    }

    /// The index checkpoint in `section` of the read checkpoint at `path`, mapped private and
    /// checked (its header against `log`, then its checksums), as the index standing in for
    /// `placeholder`, the empty table just created at the index's path. Under the writers' exclusive lock.
    static func borrow(path: String, section: Range<Int>, log: FileDescriptor, for placeholder: WritersIndex) -> Borrowing {
        let source = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)  // a FIFO must not hang the open
        guard source >= 0 else { return .refused }
        var leased = false  // then the table holds the descriptor
        defer { if !leased { close(source) } }
        var info = stat()
        guard fstat(source, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let identity = log.identity(),
              section.lowerBound >= 0, section.upperBound <= Int(info.st_size) else { return .refused }
        // Pages not yet written follow the file: one another name or another user may write in
        // place would change the table under the writer. Such a file is copied instead, as an
        // index checkpoint is (`adopt`).
        guard isWritersOwn(info) else { return .notBorrowable }
        // A cut of the file would fault the mapping (SIGBUS), and bytes written in place would
        // change the table after its checks: a read lease keeps both off while the table is
        // borrowed. Nobody else may open the file for writing or cut it meanwhile (an open that
        // waits is let through when the table is dropped: the writer's next operation, or its
        // exit); it is refused while anyone holds the file open for writing.
        guard takeReadLease(source) else { return .notBorrowable }
        let size = section.count - trailerSize
        guard checkedHeader(of: source, at: section.lowerBound, size: size, log: log) else { return .refused }
        let page = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
        let aligned = section.lowerBound / page * page
        let mapSize = section.lowerBound - aligned + size
        guard let start = mmap(nil, mapSize, PROT_READ | PROT_WRITE, MAP_PRIVATE, source, off_t(aligned)), start != MAP_FAILED else {
            return .notBorrowable
        }
        let table = WritersIndex(borrowing: start, size: mapSize, at: section.lowerBound - aligned, tableSize: size, for: placeholder, lease: source)
        leased = true
        var trailer = [UInt8](repeating: 0, count: trailerSize)
        let n = trailer.withUnsafeMutableBytes { pread(source, $0.baseAddress!, trailerSize, off_t(section.lowerBound + size)) }
        let header = UnsafeRawBufferPointer(start: table.base, count: headerSize)
        // The slots are checksummed as read from the file (the same pages, which the lease keeps
        // as they are), not through the mapping: the mapping's pages are then touched only where
        // the writer looks, and giving them back costs nothing that grows with the table.
        let slots = SlotsChecksum(source: source, start: section.lowerBound + headerSize, count: size - headerSize)
        slots.run()
        guard n == trailerSize, let sum = slots.value, hex(Checksum64.of(header)) + hex(sum) == trailer,
              let coverage = table.verifiedCoverage(log: log) else {
            return .refused
        }
        table.setCoverage(coverage, logDevice: UInt64(identity.device), inode: UInt64(identity.inode))
        table.checkpointSeq = coverage.head.seq
        return .borrowed(table, coverage)
    }

    /// Takes a read lease on `fd` (`fcntl(F_SETLEASE, F_RDLCK)`): the kernel then makes anyone who
    /// opens the file for writing or cuts it wait until the descriptor is closed (at most
    /// /proc/sys/fs/lease-break-time, 45 s by default, after which the kernel breaks the lease: the
    /// table is not used again), or fail at once when their open does not block. It notifies the
    /// holder with a signal, `SIGURG` here, whose default action is to ignore it (`SIGIO`'s would
    /// end the process). False when the file system or the kernel refuses (another descriptor open
    /// for writing, leases turned off, a file not the caller's).
    private static func takeReadLease(_ fd: Int32) -> Bool {
        // Linux's F_SETSIG and F_SETLEASE, which Glibc's module leaves out (they need _GNU_SOURCE).
        let setSignal: Int32 = 10, setLease: Int32 = 1024
        return fcntl(fd, setSignal, SIGURG) == 0 && fcntl(fd, setLease, Int32(F_RDLCK)) == 0
    }
}
