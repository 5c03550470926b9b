import Glibc
import LedgerDomain

// MARK: - TreeFile

/// `<log>.tree`, the file store's tree state: an 88-byte header, then one 40-byte record per complete
/// subtree in `MerkleNodeIndex` order (its hash, then a `Checksum64` of its position and hash).
///
/// Header: `LEDGERMT`, the layout version (1), the leaves covered, the covered line's start, end,
/// seq and chain hash (big-endian words), then a `Checksum64` of those 80 bytes; integers little-endian.
/// Extending appends records, syncs them, then rewrites the header and syncs it: records past the
/// header's count are a crash's leftovers, overwritten by the next extension. A header or a record
/// whose checksum fails is damage: the state is rebuilt from the log. Opened with `O_NOFOLLOW` and
/// refused when hard-linked (`FileDescriptor`), and held under an exclusive `flock` while used, so
/// two commands never extend it at once.
final class TreeFile: TreeStorage {
    /// The header's first 8 bytes.
    static let magic = Array("LEDGERMT".utf8)
    /// The layout version this build writes and reads.
    static let version: UInt64 = 1
    /// Bytes before the first record.
    static let headerSize = 88
    /// Bytes per record.
    static let recordSize = 40

    /// The tree file of the log at `logPath`.
    static func path(forLog logPath: String) -> String { logPath + ".tree" }

    /// The open file.
    let file: FileDescriptor
    private(set) var leaves: UInt64 = 0
    private(set) var mark: TreeMark?
    /// False when the file had a header whose checksum failed (or another layout): it was no evidence.
    private(set) var headerIntact = true

    /// Opens (creating when absent, with `create`) and locks the tree file at `path`: exclusive to
    /// extend it, shared to only read it. A file too short for a header is an empty state.
    init(path: String, create: Bool) throws {
        let existed = FileSystem.exists(path)
        file = try FileDescriptor(path: path, flags: create ? O_RDWR | O_CREAT : O_RDONLY)
        try file.lock(create ? LOCK_EX : LOCK_SH)
        if create && !existed { try? FileSystem.syncDirectory(FileSystem.directoryName(path)) }
        var header = [UInt8](repeating: 0, count: Self.headerSize)
        let read = try header.withUnsafeMutableBytes { try file.read(into: $0.baseAddress!, count: Self.headerSize, at: 0) }
        guard read == Self.headerSize else { return }
        guard let decoded = Self.decode(header: header) else { headerIntact = false; return }
        (leaves, mark) = decoded
    }

    /// The leaves and covered line of a header, nil unless its magic, version and checksum hold.
    static func decode(header: [UInt8]) -> (leaves: UInt64, mark: TreeMark?)? {
        guard header.count == headerSize, Array(header[0..<8]) == magic else { return nil }
        return header.withUnsafeBytes { raw -> (UInt64, TreeMark?)? in
            let word = { (at: Int) in UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            guard word(8) == version, Checksum64.of(UnsafeRawBufferPointer(rebasing: raw[0..<80])) == word(80) else { return nil }
            let leaves = word(16), seq = word(40), start = word(24), end = word(32)
            // Every number must fit the log it describes: a header whose checksum holds but whose
            // offsets do not (a forged one) is damage, never a trap.
            guard leaves < 1 << 48, seq == leaves, start < 1 << 62, end < 1 << 62, start <= end else { return nil }
            let hash = Digest32(bytes: UnsafeRawBufferPointer(rebasing: raw[48..<80]))
            let mark = leaves == 0 ? nil : TreeMark(head: Head(seq: Int(seq), hash: hash.hex), lineStart: Int(start), lineEnd: Int(end))
            return (leaves, mark)
        }
    }

    /// The header recording `leaves` leaves up to `mark`.
    static func encode(leaves: UInt64, mark: TreeMark?) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: headerSize)
        header.withUnsafeMutableBytes { raw in
            raw.copyBytes(from: magic)
            let put = { (value: UInt64, at: Int) in raw.storeBytes(of: value.littleEndian, toByteOffset: at, as: UInt64.self) }
            put(version, 8); put(leaves, 16)
            put(UInt64(mark?.lineStart ?? 0), 24); put(UInt64(mark?.lineEnd ?? 0), 32); put(UInt64(mark?.head.seq ?? 0), 40)
            (Digest32(hex: mark?.head.hash ?? "") ?? .zero).store(into: raw.baseAddress! + 48)
            put(Checksum64.of(UnsafeRawBufferPointer(rebasing: raw[0..<80])), 80)
        }
        return header
    }

    /// The checksum of the record at `position` holding `hash`.
    static func checksum(position: UInt64, hash: Digest32) -> UInt64 {
        withUnsafeTemporaryAllocation(byteCount: 40, alignment: 8) { raw in
            raw.storeBytes(of: position.littleEndian, toByteOffset: 0, as: UInt64.self)
            hash.store(into: raw.baseAddress! + 8)
            return Checksum64.of(UnsafeRawBufferPointer(raw))
        }
    }

    /// The hash stored at `position`, or `TreeDamaged` when it is missing or its checksum fails.
    func hash(at position: UInt64) throws -> Digest32 {
        try withUnsafeTemporaryAllocation(byteCount: Self.recordSize, alignment: 8) { raw in
            let n = try file.read(into: raw.baseAddress!, count: Self.recordSize, at: Self.headerSize + Int(position) * Self.recordSize)
            let hash = Digest32(bytes: UnsafeRawBufferPointer(rebasing: raw[0..<32]))
            guard n == Self.recordSize, UInt64(littleEndian: raw.load(fromByteOffset: 32, as: UInt64.self)) == Self.checksum(position: position, hash: hash)
            else { throw TreeDamaged(what: "\(file.path): record \(position)") }
            return hash
        }
    }

    func node(level: Int, index: UInt64) throws -> Digest32 {
        let position = MerkleNodeIndex.position(level: level, index: index)
        guard position < MerkleNodeIndex.count(leaves: leaves) else { throw TreeDamaged(what: "\(file.path): record \(position) past its size") }
        return try hash(at: position)
    }

    func hashes(from position: UInt64, count: Int) throws -> [Digest32?] {
        var bytes = [UInt8](repeating: 0, count: count * Self.recordSize)
        let n = try bytes.withUnsafeMutableBytes { raw in
            var done = 0
            while done < raw.count {
                let got = try file.read(into: raw.baseAddress! + done, count: raw.count - done, at: Self.headerSize + Int(position) * Self.recordSize + done)
                if got == 0 { break }
                done += got
            }
            return done
        }
        return bytes.withUnsafeBytes { raw in
            (0..<(n / Self.recordSize)).map { i in
                let hash = Digest32(bytes: UnsafeRawBufferPointer(rebasing: raw[(i * Self.recordSize)..<(i * Self.recordSize + 32)]))
                let sum = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * Self.recordSize + 32, as: UInt64.self))
                return sum == Self.checksum(position: position + UInt64(i), hash: hash) ? hash : nil
            }
        }
    }

    func write(_ nodes: [Digest32], from position: UInt64) throws {
        var bytes = [UInt8](repeating: 0, count: nodes.count * Self.recordSize)
        bytes.withUnsafeMutableBytes { raw in
            for (i, hash) in nodes.enumerated() {
                hash.store(into: raw.baseAddress! + i * Self.recordSize)
                raw.storeBytes(of: Self.checksum(position: position + UInt64(i), hash: hash).littleEndian, toByteOffset: i * Self.recordSize + 32, as: UInt64.self)
            }
        }
        try bytes.withUnsafeBytes { try file.write($0, at: Self.headerSize + Int(position) * Self.recordSize) }
    }

    func commit(leaves: UInt64, mark: TreeMark?) throws {
        try file.syncData()
        try Self.encode(leaves: leaves, mark: mark).withUnsafeBytes { try file.write($0, at: 0) }
        try file.syncData()
        self.leaves = leaves
        self.mark = mark
        headerIntact = true
    }

    func reset() throws {
        try file.truncate(to: 0)
        try commit(leaves: 0, mark: nil)
    }
}
