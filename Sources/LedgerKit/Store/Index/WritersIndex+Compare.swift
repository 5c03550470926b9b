import Glibc
import LedgerDomain

// MARK: - WritersIndex: checked against the log

/// What `ledger verify` needs to check the writers' index against its own fold of the log
/// (`CacheCheck`): a copy of the file in memory (verify never writes the file), a fresh table in
/// memory folded by the same `apply` writers run, and a comparison of what each slot says — not
/// where it lies, which depends on the table's size and the order of inserts.
extension WritersIndex {
    /// `size` bytes of zeroed memory of this process only.
    static func anonymousMapping(size: Int) -> UnsafeMutableRawPointer? {
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), base != MAP_FAILED else { return nil }
        return base
    }

    /// An empty table in memory only.
    /// With `capacity` (a power of two, the table it will be compared with), sized once, so it never
    /// grows (a growth holds the old and the new table at once).
    static func inMemory(capacity: Int = initialCapacity) -> WritersIndex? {
        let capacity = capacity > 0 && capacity & (capacity - 1) == 0 ? max(capacity, initialCapacity) : initialCapacity
        let size = headerSize + capacity * slotSize
        guard let base = anonymousMapping(size: size) else { return nil }
        let table = WritersIndex(path: "", fd: -1, base: base, mappedSize: size, inode: (0, 0))
        table.reset(capacity: capacity)
        return table
    }

    /// A copy in memory of the index file at `path`, as it is now; nil when there is none or it is not
    /// a table writers would map (then they rebuild it, and there is nothing to compare).
    static func snapshot(path: String) -> WritersIndex? {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)  // a FIFO must not hang the open
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size)
        guard size >= headerSize + initialCapacity * slotSize, (size - headerSize) % slotSize == 0,
              let base = anonymousMapping(size: size) else { return nil }
        var done = 0
        while done < size {
            let n = pread(fd, base + done, size - done, off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { munmap(base, size); return nil }
            done += n
        }
        let table = WritersIndex(path: "", fd: -1, base: base, mappedSize: size, inode: (0, 0))
        guard Self.capacity(table.capacity, fills: size),
              magic.indices.allSatisfy({ table.load(UInt8.self, at: $0) == magic[$0] }) else { return nil }
        return table
    }

    /// The first slot whose content differs between this table and `expected` (one holds it and the
    /// other not, or they say different things, or a lookup in this table does not reach it),
    /// described; nil when they hold the same facts where writers look for them.
    func firstDifference(from expected: WritersIndex) -> String? {
        if !sameErasures(as: expected) { return "its record of the last erasures differs from the log's" }
        // The header's own numbers: writers size the table and space its checkpoints by them.
        let savedSeq = self[header: Header.checkpointSeq], coveredSeq = self[header: Header.coveredSeq]
        if savedSeq < 0 || savedSeq > coveredSeq { return "its header's last checkpoint seq (\(savedSeq)) is no line it covers" }
        var held = 0
        for i in 0..<capacity {
            let slot = Self.headerSize + i * Self.slotSize
            let raw = self[slot, Slot.tag]
            guard raw != 0 else { continue }
            guard let tag = Tag(rawValue: raw) else { return "slot \(i) has the unknown tag \(raw)" }
            held += 1
            let key = self[slot, Slot.key]
            // A slot a lookup does not reach (moved past an empty slot, or a second one for the same
            // key) says nothing to a writer: what it holds would look agreed while writers miss it.
            guard find(tag, key, inserting: false) == slot else {
                return "its \(Self.describe(tag, key)) lies where a lookup does not find it"
            }
            guard let other = expected.find(tag, key, inserting: false) else {
                return "it has \(Self.describe(tag, key)), which the log does not give"
            }
            let same = [Slot.value, Slot.words].allSatisfy { bytes in
                bytes.allSatisfy { load(UInt8.self, at: slot + $0) == expected.load(UInt8.self, at: other + $0) }
            }
            if !same { return "its \(Self.describe(tag, key)) differs from the log's" }
        }
        if held != count { return "its header counts \(count) entries where it holds \(held)" }
        var wanted = 0
        for i in 0..<expected.capacity where expected[Self.headerSize + i * Self.slotSize, Slot.tag] != 0 { wanted += 1 }
        return held == wanted ? nil : "it holds \(held) entries where the log gives \(wanted)"
    }

    /// A slot's kind and key, in words (emails are keyed by a hash: never spelled out).
    private static func describe(_ tag: Tag, _ key: UUIDBits) -> String {
        switch tag {
        case .registrationStream: "registration stream \(key.uuidString)"
        case .sessionStream: "session stream \(key.uuidString)"
        case .signinStream: "sign-in stream \(key.uuidString)"
        case .accountStream: "account stream \(key.uuidString)"
        case .migrationStream: "migration stream \(key.uuidString)"
        case .email: "live-account entry for an email"
        case .uid: "email of account \(key.uuidString)"
        case .account: "status of account \(key.uuidString)"
        case .failures, .olderFailures: "sign-in failures of an email"
        }
    }
}
