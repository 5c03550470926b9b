import Glibc
import LedgerDomain

// MARK: - StoreIndexFile

/// `events.jsonl.index`: what a writer must know about the whole log — each stream's version and
/// where its first and last lines are, and which emails belong to live accounts — as a
/// memory-mapped open-addressing hash table, so a new process appends after reading only the lines
/// the index does not cover yet, not the whole log, and reads a stream without reading the log.
///
/// It is a cache of the log, never a source of truth: only writers holding the log's exclusive
/// lock touch it; it is never fsynced, and its header names the boot it was written in, the log
/// file (device, inode) and the last line it covers (offset, seq, hash, re-hashed on open). Any
/// mismatch — another boot (a power loss may have dropped some of its pages), another log, a log
/// cut or rewritten — discards it and it is rebuilt from the log. Every slot carries the seq of
/// the last event applied to it, so applying an event twice (a process that died between
/// updating slots and the header) changes nothing.
final class StoreIndexFile: StoreLookups {
    // MARK: - Layout

    static let magic: [UInt8] = Array("LDGRIX05".utf8)
    static let headerSize = 4096
    static let slotSize = 48
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
        /// By uid: its status and its `AccountCreated` line (`StoreIndexFile+SignIn`).
        case account = 7
        /// By email: consecutive wrong passwords and the last two times; then the three before them.
        case failures = 8, olderFailures = 9
    }

    /// The covered prefix of the log, as the header records it.
    struct Coverage: Equatable {
        var lineStart: Int
        var offset: Int
        var head: Head
        var lastAt: Timestamp
    }

    let path: String
    private var fd: Int32
    private var base: UnsafeMutableRawPointer
    private var mappedSize: Int
    private var inode: (dev: UInt64, ino: UInt64)
    var capacity: Int { Int(load(Int64.self, at: 144)) }
    private var count: Int {
        get { Int(load(Int64.self, at: 152)) }
        set { store(Int64(newValue), at: 152) }
    }

    init(path: String, fd: Int32, base: UnsafeMutableRawPointer, mappedSize: Int, inode: (UInt64, UInt64)) {
        self.path = path; self.fd = fd; self.base = base; self.mappedSize = mappedSize; self.inode = inode
    }

    deinit {
        munmap(base, mappedSize)
        if fd >= 0 { close(fd) }
    }

    /// True when the table lives in this process's memory only (`StoreIndexFile+Compare`): no file
    /// behind it, growing in memory too.
    private var inMemory: Bool { fd < 0 }

    // MARK: - Opening

    /// `LEDGER_STORE_INDEX=0` turns the index off (writers then read the whole log once per process).
    static var enabled: Bool {
        guard let raw = getenv("LEDGER_STORE_INDEX") else { return true }
        return String(cString: raw) != "0"
    }

    /// This boot's id (`/proc/sys/kernel/random/boot_id`), nil when unreadable (then no index is used).
    static let bootID: [UInt8]? = {
        // A /proc file reports size 0: read it directly rather than by its size.
        let fd = Glibc.open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, 64) }
        return n >= 36 ? Array(bytes.prefix(36)) : nil
    }()

    /// Maps the index at `path`, or a new empty one (when `fresh`, absent or unusable). Nil when none can
    /// be created with its space reserved (a full disk, a read-only folder): the store then works without it.
    static func open(path: String, fresh: Bool = false) -> StoreIndexFile? {
        guard enabled, bootID != nil else { return nil }
        guard !fresh else { return create(path: path) }
        // A symbolic link, a hard link (a file with another name) or anything but a regular file is
        // neither read nor written: it is replaced by a new index, renamed over its name.
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return create(path: path) }
        var info = stat()
        let size = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_nlink == 1 ? Int(info.st_size) : 0
        guard size >= headerSize + initialCapacity * slotSize, (size - headerSize) % slotSize == 0,
              let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            close(fd)
            return create(path: path)
        }
        let index = StoreIndexFile(path: path, fd: fd, base: base, mappedSize: size, inode: (UInt64(info.st_dev), UInt64(info.st_ino)))
        let capacity = index.capacity
        guard index.hasMagic, capacity > 0, capacity & (capacity - 1) == 0, headerSize + capacity * slotSize == size else {
            return create(path: path)
        }
        return index
    }

    /// A new empty index, built aside and renamed over `path` (never cut in place: another writer
    /// may still map the old file, and must see a different inode rather than a shorter file).
    private static func create(path: String) -> StoreIndexFile? {
        let temp = path + ".new"
        let size = headerSize + initialCapacity * slotSize
        unlink(temp)  // never opened through a name already there (a hard link to a file elsewhere): created new
        let fd = Glibc.open(temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard posix_fallocate(fd, 0, off_t(size)) == 0, fstat(fd, &info) == 0,
              let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            close(fd); unlink(temp); return nil
        }
        let index = StoreIndexFile(path: path, fd: fd, base: base, mappedSize: size, inode: (UInt64(info.st_dev), UInt64(info.st_ino)))
        index.reset(capacity: initialCapacity)
        guard rename(temp, path) == 0 else { unlink(temp); return nil }
        return index
    }

    /// True when the file at `path` is still the one mapped (another writer may have grown and replaced it).
    var isCurrent: Bool {
        guard !inMemory else { return false }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return UInt64(info.st_dev) == inode.dev && UInt64(info.st_ino) == inode.ino
    }

    // MARK: - Header

    private var hasMagic: Bool {
        Self.magic.indices.allSatisfy { base.load(fromByteOffset: $0, as: UInt8.self) == Self.magic[$0] }
    }

    /// Empties the table and forgets the coverage (the next writer rebuilds it from the log).
    func reset(capacity: Int) {
        memset(base, 0, mappedSize)
        for (i, byte) in Self.magic.enumerated() { base.storeBytes(of: byte, toByteOffset: i, as: UInt8.self) }
        store(Int64(capacity), at: 144)
        count = 0
    }

    /// The covered prefix when the header belongs to this boot and to the log `(dev, ino)`; nil otherwise.
    func coverage(logDevice dev: UInt64, inode ino: UInt64) -> Coverage? {
        guard hasMagic, let boot = Self.bootID, load(Int64.self, at: 176) == 1,
              (0..<36).allSatisfy({ base.load(fromByteOffset: 8 + $0, as: UInt8.self) == boot[$0] }),
              load(UInt64.self, at: 160) == dev, load(UInt64.self, at: 168) == ino else { return nil }
        let hash = String(decoding: UnsafeRawBufferPointer(start: base + 72, count: 64), as: UTF8.self)
        let seq = Int(load(Int64.self, at: 64))
        guard seq > 0 else { return nil }
        return Coverage(lineStart: Int(load(Int64.self, at: 56)), offset: Int(load(Int64.self, at: 48)),
                        head: Head(seq: seq, hash: hash), lastAt: Timestamp(millis: Int64(load(Int64.self, at: 136))))
    }

    /// Records that the table reflects the log `(dev, ino)` up to `coverage`.
    func setCoverage(_ coverage: Coverage, logDevice dev: UInt64, inode ino: UInt64) {
        guard let boot = Self.bootID, coverage.head.hash.utf8.count == 64 else { return }
        store(Int64(0), at: 176)  // not trusted while being changed
        for (i, byte) in boot.enumerated() { base.storeBytes(of: byte, toByteOffset: 8 + i, as: UInt8.self) }
        store(Int64(coverage.offset), at: 48)
        store(Int64(coverage.lineStart), at: 56)
        store(Int64(coverage.head.seq), at: 64)
        for (i, byte) in coverage.head.hash.utf8.enumerated() { base.storeBytes(of: byte, toByteOffset: 72 + i, as: UInt8.self) }
        store(Int64(coverage.lastAt.millis), at: 136)
        store(dev, at: 160)
        store(ino, at: 168)
        store(Int64(1), at: 176)
    }

    /// Marks the table untrusted: the next writer rebuilds it from the log (after damage was found
    /// that the lines it covers hid).
    func markUntrusted() { store(Int64(0), at: 176) }

    // MARK: - Applying events

    /// Folds one event of the log into the table; idempotent per event (slots remember the last seq).
    /// False when the table is full and could not grow, or has no free slot although its count says
    /// it has (a damaged file): the caller then drops the index.
    /// `offset` is where the event's line starts: a stream slot keeps its first and last line's.
    func apply(_ event: RecordedEvent, offset: Int) -> Bool {
        apply(ViewEvent(event), hash: Digest32(hex: event.envelope.hash) ?? .zero, offset: offset)
    }

    /// Folds one event as the views fold it (see `apply(_:offset:)`): `verify` folds the log's lines
    /// read in place into a fresh table this way, writers their decoded events.
    /// `hash` is the line's: an account slot keeps the first 8 bytes of its `AccountCreated` line's.
    func apply(_ event: ViewEvent, hash: Digest32, offset: Int) -> Bool {
        // Untrusted until `setCoverage` records what the slots now hold: a writer killed between two
        // stores of one slot (its count, then its seq) leaves a table the next writer rebuilds.
        if load(Int64.self, at: 176) != 0 { store(Int64(0), at: 176) }
        guard reserve(4) else { return false }
        let seq = Int64(event.seq)
        // A stream id is a lowercase UUID (a checked line's stream parses), so its bits are its key.
        if event.stream != .zero, let tag = Self.tag(event.category) {
            guard let slot = find(tag, event.stream, inserting: true) else { return false }
            if load(Int64.self, at: slot + 40) < seq {
                let version = load(UInt32.self, at: slot + 4)
                if version == 0 { store(Int64(offset), at: slot + 24) }
                store(Int64(offset), at: slot + 32)
                store(version &+ 1, at: slot + 4)
                store(seq, at: slot + 40)
            }
        }
        return applyAccounts(event, hash: hash, offset: offset, seq: seq)
    }

    // MARK: - Lookups

    /// The number of events in `stream` (0 when it has none).
    func version(of stream: String) -> Int {
        guard let (category, id) = StreamName.parse(stream), let tag = Self.tag(category),
              let slot = find(tag, Self.key(id), inserting: false) else { return 0 }
        return Int(load(UInt32.self, at: slot + 4))
    }

    /// Where `stream`'s lines are: its event count, the offsets of its first and last lines, and the
    /// last one's seq (count 0 when it has none).
    func lines(of stream: String) -> StreamLines {
        guard let (category, id) = StreamName.parse(stream), let tag = Self.tag(category),
              let slot = find(tag, Self.key(id), inserting: false) else { return StreamLines(count: 0, first: 0, last: 0, lastSeq: 0) }
        return StreamLines(count: Int(load(UInt32.self, at: slot + 4)), first: Int(load(Int64.self, at: slot + 24)),
                           last: Int(load(Int64.self, at: slot + 32)), lastSeq: Int(load(Int64.self, at: slot + 40)))
    }

    /// True when a live account holds `email` (`AccountFold.liveAccount` over the slots).
    func isLive(email: String) -> Bool {
        AccountFold.liveAccount(of: Self.emailKey(email), in: IndexAccounts(table: self)) != nil
    }

    // MARK: - Slots

    private static func tag(_ category: StreamCategory) -> Tag? {
        switch category {
        case .registration: .registrationStream
        case .session: .sessionStream
        case .signin: .signinStream
        }
    }

    /// 16 bytes for an id: its bits when it is a lowercase UUID, else the first 16 bytes of its SHA-256.
    static func key(_ text: String) -> UUIDBits {
        if let bits = Identifiers.uuidBits(text) { return bits }
        return hashKey("id\u{0}" + text)
    }

    /// 16 bytes for an email: the first 16 bytes of SHA-256 of it.
    static func emailKey(_ email: String) -> UUIDBits { hashKey("email\u{0}" + email) }

    private static func hashKey(_ text: String) -> UUIDBits {
        var text = text
        return text.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
                SHA256.digest(UnsafeRawBufferPointer(utf8), into: digest.baseAddress!)
                let high = digest[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let low = digest[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return UUIDBits(high: high, low: low)
            }
        }
    }

    /// The byte offset of the slot holding `(tag, key)`; with `inserting`, a fresh slot for it when absent.
    /// Nil also when a whole round finds neither it nor a free slot (a damaged file: never an endless probe).
    func find(_ tag: Tag, _ key: UUIDBits, inserting: Bool) -> Int? {
        let mask = capacity - 1
        var i = Int(truncatingIfNeeded: (key.high ^ (key.low &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(tag.rawValue)) >> 7) & mask
        for _ in 0..<capacity {
            let slot = Self.headerSize + i * Self.slotSize
            let found = base.load(fromByteOffset: slot, as: UInt8.self)
            if found == 0 {
                guard inserting else { return nil }
                storeKey(key, at: slot + 8)
                store(UInt32(0), at: slot + 4)
                storeKey(UUIDBits(high: 0, low: 0), at: slot + 24)
                store(Int64(0), at: slot + 40)
                base.storeBytes(of: tag.rawValue, toByteOffset: slot, as: UInt8.self)  // the tag last: a slot is whole once tagged
                count += 1
                return slot
            }
            if found == tag.rawValue && loadKey(at: slot + 8) == key { return slot }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Makes room for `more` slots, doubling the table (into a new file, renamed over) past half full.
    private func reserve(_ more: Int) -> Bool {
        guard (count + more) * 2 > capacity else { return true }
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
        store(Int64(newCapacity), at: 144)
        count = 0
        for i in 0..<old.capacity {
            let from = Self.headerSize + i * Self.slotSize
            let raw = old.base.load(fromByteOffset: from, as: UInt8.self)
            guard raw != 0, let tag = Tag(rawValue: raw) else { continue }
            let key = UUIDBits(high: old.base.load(fromByteOffset: from + 8, as: UInt64.self), low: old.base.load(fromByteOffset: from + 16, as: UInt64.self))
            let to = find(tag, key, inserting: true)!
            memcpy(base + to + 4, old.base + from + 4, 4)
            memcpy(base + to + 24, old.base + from + 24, Self.slotSize - 24)
        }
        guard inMemory || rename(temp, path) == 0 else {
            // Keep using the old file: put the old mapping back.
            munmap(newBase, newSize); close(newFD); unlink(temp)
            base = old.base; mappedSize = old.size
            return false
        }
        munmap(old.base, old.size)
        if old.fd >= 0 { close(old.fd) }
        fd = newFD
        inode = (UInt64(info.st_dev), UInt64(info.st_ino))
        return true
    }

    // MARK: - Raw access

    func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T { base.loadUnaligned(fromByteOffset: offset, as: T.self) }
    func store<T: FixedWidthInteger>(_ value: T, at offset: Int) { base.storeBytes(of: value, toByteOffset: offset, as: T.self) }
    func loadKey(at offset: Int) -> UUIDBits { UUIDBits(high: load(UInt64.self, at: offset), low: load(UInt64.self, at: offset + 8)) }
    func storeKey(_ key: UUIDBits, at offset: Int) { store(key.high, at: offset); store(key.low, at: offset + 8) }
}
