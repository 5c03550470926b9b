import LedgerDomain

// MARK: - KeyStore: the file layout

/// Where each field of `events.keys` lies (format `LDGRKEY1`), declared once; Events/README.md
/// ("The key store") says the same for readers in other languages. A 128-byte header, then
/// `capacity` slots of 128 bytes (a power of two), so a slot never crosses a 4 KiB page. Integers
/// are little-endian. The file is exactly `headerSize + capacity * slotSize` bytes.
///
/// Header: `LDGRKEY1` (8 bytes at 0), the format version 1 (UInt32 at 8), the slot size 128
/// (UInt32 at 12), the capacity (UInt64 at 16), zeros to 120, and at 120 the checksum.
///
/// Slot: its state (UInt8 at 0: 0 empty, 1 live, 2 erased), the subject id's length n (UInt8 at 1,
/// 1…64), zeros to 8, the subject id's ASCII bytes at 8 (n bytes, zeros after them to 72), the
/// 256-bit key at 72 (32 zero bytes when erased), zeros to 120, and at 120 the checksum. An empty
/// slot is 128 zero bytes; any other slot whose checksum, state, length, subject or zeros are wrong
/// is torn (a write cut short, or damage), and is reported, never read as a key.
///
/// Checksum: the first 8 bytes of SHA-256 of the record's first 120 bytes.
///
/// Where a subject lies: its home slot is the first 8 bytes of SHA-256 of the subject id, read as
/// a little-endian UInt64, modulo the capacity; it is in the first slot from its home (going up,
/// wrapping at the end) that holds it, at most `probeWindow` (128) slots on, and an empty slot before it
/// means it is absent. When a new subject finds no empty slot in its window, the table doubles.
enum KeyStoreLayout {
    /// The file's first 8 bytes.
    static let magic = Array("LDGRKEY1".utf8)
    /// The format version in the header.
    static let version: UInt32 = 1
    /// Bytes of the header.
    static let headerSize = 128
    /// Bytes of a slot.
    static let slotSize = 128
    /// Where a record's checksum starts (the bytes before it are what it covers).
    static let checksumOffset = 120
    /// Slots of a new file (128 KiB).
    static let initialCapacity = 1024
    /// The largest file of zeros taken for a creation cut short (read whole to check it): a new
    /// table's size, with room to spare.
    static let largestCutShortCreation = 1 << 20
    /// The most slots a subject may lie from its home (16 KiB): with linear probing, tables grow
    /// at a load of about 0.75 (a window of 32 made large tables grow under half full).
    static let probeWindow = 128
    /// The slots a probe reads at once: one 4 KiB page, where a present subject almost always lies.
    static let probeChunk = 32
    /// The largest capacity accepted from a header (2^32 slots: 512 GiB).
    static let maxCapacity = 1 << 32

    /// Slot fields.
    enum Slot {
        static let state = 0
        static let subjectLength = 1
        static let subject = 8
        static let key = 72
    }

    /// The byte offset of slot `index`.
    static func offset(ofSlot index: Int) -> Int { headerSize + index * slotSize }

    /// The size of a file of `capacity` slots.
    static func fileSize(capacity: Int) -> Int { headerSize + capacity * slotSize }

    /// The checksum of `record`'s first 120 bytes.
    static func checksum(_ record: UnsafeRawBufferPointer) -> UInt64 {
        let digest = SHA256.digest(UnsafeRawBufferPointer(rebasing: record[0..<checksumOffset]))
        return littleEndian(digest[0..<8])
    }

    /// The home slot of `subject` in a table of `capacity` slots.
    static func home(of subject: SubjectID, capacity: Int) -> Int {
        let digest = Array(subject.text.utf8).withUnsafeBytes { SHA256.digest($0) }
        return Int(truncatingIfNeeded: littleEndian(digest[0..<8]) & UInt64(capacity - 1))
    }

    /// The UInt64 of 8 little-endian bytes.
    static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Writes `value` little-endian into `record` at `offset`, `width` bytes.
    static func put(_ value: UInt64, width: Int, into record: inout [UInt8], at offset: Int) {
        for i in 0..<width { record[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
    }

    /// Seals `record` (128 bytes) by writing the checksum of its first 120 bytes at 120.
    static func seal(_ record: inout [UInt8]) {
        let sum = record.withUnsafeBytes { checksum($0) }
        put(sum, width: 8, into: &record, at: checksumOffset)
    }

    // MARK: - Header

    /// The header of a table of `capacity` slots.
    static func header(capacity: Int) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: headerSize)
        header.replaceSubrange(0..<8, with: magic)
        put(UInt64(version), width: 4, into: &header, at: 8)
        put(UInt64(slotSize), width: 4, into: &header, at: 12)
        put(UInt64(capacity), width: 8, into: &header, at: 16)
        seal(&header)
        return header
    }

    /// The capacity a header declares, checked against the file's size; throws `damaged` or
    /// `truncated` (a file cut short, e.g. mid-slot) when the file is not a key store of this format.
    static func capacity(header: [UInt8], fileSize size: Int, path: String) throws(KeyStoreError) -> Int {
        guard header.count == headerSize, Array(header[0..<8]) == magic else {
            throw KeyStoreError(.damaged, "\(path) is not a key store (no LDGRKEY1 header)")
        }
        let stored = littleEndian(header[checksumOffset..<headerSize])
        guard header.withUnsafeBytes({ checksum($0) }) == stored, header[24..<checksumOffset].allSatisfy({ $0 == 0 }) else {
            throw KeyStoreError(.damaged, "the header of \(path) is damaged (its checksum does not match)")
        }
        guard littleEndian(header[8..<12]) == UInt64(version), littleEndian(header[12..<16]) == UInt64(slotSize) else {
            throw KeyStoreError(.damaged, "\(path) is a key store of another format version")
        }
        let capacity = littleEndian(header[16..<24])
        guard capacity >= UInt64(probeWindow), capacity <= UInt64(maxCapacity), capacity & (capacity - 1) == 0 else {
            throw KeyStoreError(.damaged, "the header of \(path) declares \(capacity) slots, not a power of two from 128")
        }
        let expected = fileSize(capacity: Int(capacity))
        guard size >= expected else {
            throw KeyStoreError(.truncated, "\(path) has \(size) bytes where its \(capacity) slots need \(expected): it was cut short")
        }
        guard size == expected else {
            throw KeyStoreError(.damaged, "\(path) has \(size) bytes where its \(capacity) slots need \(expected)")
        }
        return Int(capacity)
    }
}
