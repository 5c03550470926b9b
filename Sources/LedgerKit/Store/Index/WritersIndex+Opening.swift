import Glibc
import LedgerDomain

// MARK: - WritersIndex: opening

/// Mapping the index file: the one at its path when it is a table writers can use, else a new empty
/// one built aside and renamed over it.
extension WritersIndex {
    /// False when the index is turned off (`StoreTuning.writersIndex`; writers then read the whole
    /// log once per process).
    static var enabled: Bool { StoreTuning.current.writersIndex }

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
    static func open(path: String, fresh: Bool = false) -> WritersIndex? {
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
        let index = WritersIndex(path: path, fd: fd, base: base, mappedSize: size, inode: (UInt64(info.st_dev), UInt64(info.st_ino)))
        let capacity = index.capacity
        guard index.hasMagic, Self.capacity(capacity, fills: size), index.holdsPossibleCount else {
            return create(path: path)
        }
        return index
    }

    /// True when `capacity` slots, a power of two, are what `size` bytes of file hold after the
    /// header (computed without a product that a forged capacity could overflow).
    static func capacity(_ capacity: Int, fills size: Int) -> Bool {
        guard capacity > 0, capacity & (capacity - 1) == 0, size >= headerSize + initialCapacity * slotSize,
              (size - headerSize) % slotSize == 0 else { return false }
        return capacity == (size - headerSize) / slotSize
    }

    /// A new empty index, built aside and renamed over `path` (never cut in place: another writer
    /// may still map the old file, and must see a different inode rather than a shorter file).
    fileprivate static func create(path: String) -> WritersIndex? {
        let temp = path + ".new"
        guard let index = newFile(temp, size: headerSize + initialCapacity * slotSize, for: path) else { return nil }
        index.reset(capacity: initialCapacity)
        guard rename(temp, path) == 0 else { unlink(temp); return nil }
        return index
    }

    /// A new file of `size` zeroed bytes at `temp`, its space reserved, mapped shared as the table that
    /// will be renamed to `path`; never opened through a name already there (a hard link to a file
    /// elsewhere): created new. Nil when it cannot be made.
    static func newFile(_ temp: String, size: Int, for path: String) -> WritersIndex? {
        unlink(temp)
        let fd = Glibc.open(temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard posix_fallocate(fd, 0, off_t(size)) == 0, fstat(fd, &info) == 0,
              let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            close(fd); unlink(temp); return nil
        }
        return WritersIndex(path: path, fd: fd, base: base, mappedSize: size, inode: (UInt64(info.st_dev), UInt64(info.st_ino)))
    }
}

extension WritersIndex {
    /// The seq of the last line the index (or index checkpoint) file at `path` says it covers, read
    /// from its header without mapping or changing it; nil when there is no such file, it is not a
    /// regular file, or its header is not an index's (what a writer would replace anyway).
    static func recordedSeq(atPath path: String) -> Int? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let length = Header.coveredSeq.offset + 8
        var header = [UInt8](repeating: 0, count: length)
        let read = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, length, 0) }
        guard read == length, Array(header.prefix(magic.count)) == magic else { return nil }
        return Int(header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: Header.coveredSeq.offset, as: Int64.self) })
    }
}
