import Glibc
import LedgerDomain

// MARK: - WritersIndex

/// `events.jsonl.index`: what a writer must know about the whole log — each stream's version and
/// where its first and last lines are, and which emails belong to live accounts — as a
/// memory-mapped open-addressing hash table, so a new process appends after reading only the lines
/// the index does not cover yet, not the whole log, and reads a stream without reading the log.
///
/// It is a cache of the log, never a source of truth: only writers holding the log's exclusive
/// lock touch it; it is never fsynced, and its header names the boot it was written in, the log
/// file (device, inode) and the last line it covers (offset, seq, hash, re-hashed on open). Any
/// mismatch — another boot (a power loss may have dropped some of its pages), another log, a log
/// cut or rewritten — discards it, and it is rebuilt from its durable checkpoint
/// (`WritersIndex+Checkpoint`) and the lines after it, or from the whole log. Every slot carries
/// the seq of the last event applied to it, so applying an event twice (a process that died
/// between updating slots and the header) changes nothing.
final class WritersIndex {
    // MARK: - Layout

    static let magic: [UInt8] = Array("LDGRIX07".utf8)
    static let headerSize = Header.size
    static let slotSize = Slot.size
    static let initialCapacity = 1 << 12

    /// Where a stream's lines are (see `lines(of:)`).
    struct StreamLines: Equatable {
        var count: Int
        var first: Int
        var last: Int
        var lastSeq: Int
    }

    /// Slot tags (0 = empty).
    enum Tag: UInt8 {
        case registrationStream = 1, sessionStream = 2, signinStream = 3, email = 5, uid = 6
        /// By uid: its status and its `AccountCreated` line (`WritersIndex+Accounts`).
        case account = 7
        /// By email: consecutive wrong passwords and the last two times; then the three before them.
        case failures = 8, olderFailures = 9
        /// An account's own stream (`account-<uid>`).
        case accountStream = 10
        /// A migration's stream (`migration-<uuid>`).
        case migrationStream = 11
    }

    /// The covered prefix of the log, as the header records it.
    struct Coverage: Equatable {
        var lineStart: Int
        var offset: Int
        var head: Head
        var lastAt: Timestamp
    }

    let path: String
    private(set) var fd: Int32
    private(set) var base: UnsafeMutableRawPointer
    private(set) var mappedSize: Int
    private var inode: (dev: UInt64, ino: UInt64)
    /// For a borrowed table (`WritersIndex+Borrowing`): the whole private mapping, which starts at
    /// a page boundary before `base`; nil otherwise (the mapping is `base` and `mappedSize`).
    private var borrowedMapping: (start: UnsafeMutableRawPointer, size: Int)?
    /// For a borrowed table, the descriptor of the file it maps, which holds the file's read lease
    /// until it is closed; -1 otherwise.
    private var leaseFD: Int32 = -1
    var capacity: Int { Int(self[header: Header.capacity]) }
    var count: Int {
        get { Int(self[header: Header.count]) }
        set { self[header: Header.count] = Int64(newValue) }
    }

    init(path: String, fd: Int32, base: UnsafeMutableRawPointer, mappedSize: Int, inode: (UInt64, UInt64)) {
        self.path = path; self.fd = fd; self.base = base; self.mappedSize = mappedSize; self.inode = inode
    }

    /// A table borrowed from the private copy-on-write mapping at `start` (`size` bytes) of a range
    /// of another file, the table `offset` bytes into it: its writes stay in this process
    /// (`WritersIndex+Borrowing`). It stands in for `placeholder`, the file at the index's path,
    /// and is current while that file is.
    /// `lease` is the mapped file's descriptor holding its read lease, closed with the table.
    init(borrowing start: UnsafeMutableRawPointer, size: Int, at offset: Int, tableSize: Int, for placeholder: WritersIndex, lease: Int32) {
        path = placeholder.path; fd = -1; base = start + offset; mappedSize = tableSize; inode = placeholder.inode
        borrowedMapping = (start, size)
        leaseFD = lease
    }

    deinit {
        unmap()
        if fd >= 0 { close(fd) }
    }

    /// Unmaps the table's mapping, borrowed or not; a borrowed one's file is then given back (its
    /// lease released).
    private func unmap() {
        if let borrowedMapping { munmap(borrowedMapping.start, borrowedMapping.size) } else { munmap(base, mappedSize) }
        if leaseFD >= 0 { close(leaseFD); leaseFD = -1 }
    }

    /// True when the table lives in this process's memory only (`WritersIndex+Compare`): no file
    /// behind it, growing in memory too.
    var inMemory: Bool { fd < 0 && borrowedMapping == nil }

    /// True when the table is borrowed (`WritersIndex+Borrowing`); it becomes a file of its own when it grows.
    var isBorrowed: Bool { borrowedMapping != nil }

    /// False when the table is borrowed and the kernel no longer holds its file's read lease (it
    /// breaks it when someone has waited `/proc/sys/fs/lease-break-time` to write the file): the
    /// file may be cut under the mapping, which must not be touched again.
    var holdsItsLease: Bool {
        guard leaseFD >= 0 else { return true }
        let getLease: Int32 = 1025  // Linux's F_GETLEASE, which Glibc's module leaves out
        return fcntl(leaseFD, getLease) == Int32(F_RDLCK)
    }

    /// True when the file at `path` is still the one mapped (another writer may have grown and
    /// replaced it), or, for a borrowed table, the placeholder it stands in for.
    var isCurrent: Bool {
        guard !inMemory else { return false }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return UInt64(info.st_dev) == inode.dev && UInt64(info.st_ino) == inode.ino
    }

    // MARK: - Header

    var hasMagic: Bool {
        Self.magic.indices.allSatisfy { base.load(fromByteOffset: $0, as: UInt8.self) == Self.magic[$0] }
    }

    /// Empties the table and forgets the coverage (the next writer rebuilds it from the log).
    func reset(capacity: Int) {
        memset(base, 0, mappedSize)
        for (i, byte) in Self.magic.enumerated() { base.storeBytes(of: byte, toByteOffset: i, as: UInt8.self) }
        self[header: Header.capacity] = Int64(capacity)
        count = 0
    }

    /// The covered prefix when the header belongs to this boot and to the log `(dev, ino)`; nil otherwise.
    func coverage(logDevice dev: UInt64, inode ino: UInt64) -> Coverage? {
        guard hasMagic, let boot = Self.bootID, self[header: Header.trusted] == 1,
              (0..<Header.bootIDLength).allSatisfy({ load(UInt8.self, at: Header.bootID + $0) == boot[$0] }),
              self[header: Header.logDevice] == dev, self[header: Header.logInode] == ino else { return nil }
        return recordedCoverage
    }

    /// The covered prefix the header records, whichever boot and log it names; nil when it names no line.
    var recordedCoverage: Coverage? {
        let hash = String(decoding: UnsafeRawBufferPointer(start: base + Header.coveredHash, count: Header.coveredHashLength), as: UTF8.self)
        let seq = Int(self[header: Header.coveredSeq])
        guard seq > 0 else { return nil }
        return Coverage(lineStart: Int(self[header: Header.coveredLineStart]), offset: Int(self[header: Header.coveredSize]),
                        head: Head(seq: seq, hash: hash), lastAt: Timestamp(millis: self[header: Header.coveredLastAt]))
    }

    /// Records that the table reflects the log `(dev, ino)` up to `coverage`.
    func setCoverage(_ coverage: Coverage, logDevice dev: UInt64, inode ino: UInt64) {
        guard let boot = Self.bootID, coverage.head.hash.utf8.count == Header.coveredHashLength else { return }
        self[header: Header.trusted] = 0  // not trusted while being changed
        for (i, byte) in boot.enumerated() { store(byte, at: Header.bootID + i) }
        self[header: Header.coveredSize] = Int64(coverage.offset)
        self[header: Header.coveredLineStart] = Int64(coverage.lineStart)
        self[header: Header.coveredSeq] = Int64(coverage.head.seq)
        for (i, byte) in coverage.head.hash.utf8.enumerated() { store(byte, at: Header.coveredHash + i) }
        self[header: Header.coveredLastAt] = coverage.lastAt.millis
        self[header: Header.logDevice] = dev
        self[header: Header.logInode] = ino
        self[header: Header.trusted] = 1
    }

    /// Marks the table untrusted: the next writer rebuilds it from the log (after damage was found
    /// that the lines it covers hid).
    func markUntrusted() { self[header: Header.trusted] = 0 }

    // MARK: - Applying events

    /// Folds one event of the log, as the views fold it, into the table; idempotent per event (slots
    /// remember the last seq). False when the table is full and could not grow, or has no free slot
    /// although its count says it has (a damaged file): the caller then drops the index.
    /// `offset` is where the event's line starts: a stream slot keeps its first and last line's.
    /// `hash` is the line's: an account slot keeps the first 8 bytes of its password line's.
    func apply(_ event: ViewEvent, hash: Digest32, offset: Int) -> Bool {
        // Untrusted until `setCoverage` records what the slots now hold: a writer killed between two
        // stores of one slot (its count, then its seq) leaves a table the next writer rebuilds.
        if self[header: Header.trusted] != 0 { self[header: Header.trusted] = 0 }
        guard reserve(4) else { return false }
        let seq = Int64(event.seq)
        // A stream id is a lowercase UUID (a checked line's stream parses), so its bits are its key.
        if event.stream != .zero, let tag = Self.tag(event.category) {
            guard let slot = find(tag, event.stream, inserting: true) else { return false }
            if self[slot, Slot.seq] < seq {
                let version = self[slot, StreamSlot.count]
                if version == 0 { self[slot, StreamSlot.firstLine] = Int64(offset) }
                self[slot, StreamSlot.lastLine] = Int64(offset)
                self[slot, StreamSlot.count] = version &+ 1
                self[slot, Slot.seq] = seq
            }
        }
        noteErasure(event, offset: offset)
        return applyAccounts(event, hash: hash, offset: offset, seq: seq)
    }

    // MARK: - Lookups

    /// The number of events in `stream` (0 when it has none).
    func version(of stream: String) -> Int {
        guard let (category, id) = StreamName.parse(stream), let tag = Self.tag(category),
              let slot = find(tag, Self.key(id), inserting: false) else { return 0 }
        return Int(self[slot, StreamSlot.count])
    }

    /// Where `stream`'s lines are: its event count, the offsets of its first and last lines, and the
    /// last one's seq (count 0 when it has none).
    func lines(of stream: String) -> StreamLines {
        guard let (category, id) = StreamName.parse(stream), let tag = Self.tag(category),
              let slot = find(tag, Self.key(id), inserting: false) else { return StreamLines(count: 0, first: 0, last: 0, lastSeq: 0) }
        return StreamLines(count: Int(self[slot, StreamSlot.count]), first: Int(self[slot, StreamSlot.firstLine]),
                           last: Int(self[slot, StreamSlot.lastLine]), lastSeq: Int(self[slot, Slot.seq]))
    }

    /// The account fold's state in the slots, for reads.
    var accounts: IndexAccounts { IndexAccounts(table: self) }

    // MARK: - Growing

    /// True when the header's count of slots in use is one the table can hold (0 to its capacity):
    /// any other is a damaged or edited header, and the table is not used.
    var holdsPossibleCount: Bool { count >= 0 && count <= capacity }

    /// Makes room for `more` slots, doubling the table (into a new file, renamed over) past three
    /// quarters full. False also when the header's count is impossible (the caller drops the table).
    private func reserve(_ more: Int) -> Bool {
        guard holdsPossibleCount else { return false }
        guard (count + more) * 4 > capacity * 3 else { return true }
        let newCapacity = capacity * 2
        let newSize = Self.headerSize + newCapacity * Self.slotSize
        let temp = path + ".grow"
        var newFD: Int32 = -1
        let newBase: UnsafeMutableRawPointer
        var info = stat()
        if inMemory {
            guard let mapped = Self.anonymousMapping(size: newSize) else { return false }
            newBase = mapped
        } else {
            unlink(temp)  // as in `create`: a new file, never one reached through an existing name
            newFD = Glibc.open(temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard newFD >= 0 else { return false }
            guard posix_fallocate(newFD, 0, off_t(newSize)) == 0,
                  let mapped = mmap(nil, newSize, PROT_READ | PROT_WRITE, MAP_SHARED, newFD, 0), mapped != MAP_FAILED else {
                close(newFD); unlink(temp); return false
            }
            newBase = mapped
            fstat(newFD, &info)
        }
        let old = (fd: fd, base: base, size: mappedSize, capacity: capacity)
        memcpy(newBase, old.base, Self.headerSize)
        // Move into the new mapping, then re-insert every slot of the old one.
        base = newBase
        mappedSize = newSize
        self[header: Header.capacity] = Int64(newCapacity)
        count = 0
        for i in 0..<old.capacity {
            let from = Self.headerSize + i * Self.slotSize
            let raw = old.base.load(fromByteOffset: from + Slot.tag.offset, as: UInt8.self)
            guard raw != 0, let tag = Tag(rawValue: raw) else { continue }
            let key = UUIDBits(high: old.base.loadUnaligned(fromByteOffset: from + Slot.key.offset, as: UInt64.self),
                               low: old.base.loadUnaligned(fromByteOffset: from + Slot.key.offset + 8, as: UInt64.self))
            let to = find(tag, key, inserting: true)!
            memcpy(base + to + Slot.value.lowerBound, old.base + from + Slot.value.lowerBound, Slot.value.count)
            memcpy(base + to + Slot.words.lowerBound, old.base + from + Slot.words.lowerBound, Slot.words.count)
        }
        guard inMemory || rename(temp, path) == 0 else {
            // Keep using the old file: put the old mapping back.
            munmap(newBase, newSize); close(newFD); unlink(temp)
            base = old.base; mappedSize = old.size
            return false
        }
        base = old.base; mappedSize = old.size
        unmap()  // the old mapping, borrowed or not: a borrowed table is now a file of its own
        borrowedMapping = nil
        base = newBase; mappedSize = newSize
        if old.fd >= 0 { close(old.fd) }
        fd = newFD
        inode = (UInt64(info.st_dev), UInt64(info.st_ino))
        return true
    }

    // MARK: - Raw access

    /// The integer at byte `offset` of the mapping.
    func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T { base.loadUnaligned(fromByteOffset: offset, as: T.self) }
    /// Stores an integer at byte `offset` of the mapping.
    func store<T: FixedWidthInteger>(_ value: T, at offset: Int) { base.storeBytes(of: value, toByteOffset: offset, as: T.self) }
}
