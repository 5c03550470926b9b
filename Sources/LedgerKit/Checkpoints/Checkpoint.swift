import Glibc
import LedgerDomain

// MARK: - Checkpoint

/// The views saved beside a log (`<log>.checkpoint`) with the line they reflect and the fingerprints
/// of the ids up to it, so reads fold only the lines after it and still see an id repeated across
/// it. A cache: trusted only when its bytes hash to the digest it ends with and the log still holds
/// the line it names; anything else is ignored and rebuilt. The digest only catches damage: anyone
/// who can write the file can re-seal it, which `ledger verify` notices (`CacheCheck`).
///
/// File layout: `LEDGERCP`, the covered line's start and end offsets (little-endian Int64), the
/// views and id fingerprints (`CheckpointWriter`), then the lowercase hex SHA-256 of everything
/// before it (64 bytes); in a data folder whose writers' index is current, that index after it
/// (`CheckpointIndexSection`).
public struct Checkpoint {
    /// The views after the covered line.
    public var views: LedgerViews
    /// The fingerprints of the ids of every line up to the covered one.
    public var ids: IDFingerprints
    /// Byte offset where the covered line starts.
    public var lineStart: Int
    /// Byte offset just after it (where the tail begins).
    public var offset: Int
    /// The covered line's time (set by `load`).
    public var headAt: Timestamp?
    /// The account erasures up to the covered line, in log order (set by `load`, from the views'
    /// account changes whatever views it restored): what a read from it asks the key store about.
    public var erasures: [RecordedErasure] = []

    /// A checkpoint of `views` and `ids`, which reflect the log up to the line at `[lineStart, offset)`.
    public init(views: LedgerViews, ids: IDFingerprints, lineStart: Int, offset: Int, headAt: Timestamp? = nil) {
        self.views = views; self.ids = ids; self.lineStart = lineStart; self.offset = offset; self.headAt = headAt
    }

    /// The file's first bytes.
    static let magic = Array("LEDGERCP".utf8)

    /// `<log>.checkpoint`.
    public static func path(forLog log: String) -> String { log + ".checkpoint" }

    /// Events between checkpoints (`StoreTuning.checkpointInterval`); 0 turns them off.
    public static var interval: Int { StoreTuning.current.checkpointInterval }

    /// A checkpoint for `log`, opened as `file`, when one exists, is intact and matches the log; else nil.
    /// Only the views `selection` gives for the bytes of the log after the checkpoint are restored
    /// (`CheckpointReader`; every view by default). When `fingerprintsInPlace` says so for those
    /// bytes (a tail too short to save a new checkpoint), the id fingerprints stay in the file,
    /// which stays open, and are read back as the tail's ids are looked up (`FingerprintFile`).
    public static func load(forLog log: String, file: FileDescriptor,
                            views selection: (_ tailBytes: Int) -> LedgerViews.Selection = { _ in .all },
                            fingerprintsInPlace: (_ tailBytes: Int) -> Bool = { _ in false }) -> Checkpoint? {
        guard interval > 0, FileSystem.exists(path(forLog: log)),
              let saved = try? FileDescriptor(path: path(forLog: log), flags: O_RDONLY), let size = try? saved.size(),
              size >= magic.count + 16 + 64 else { return nil }
        let sha = SHA256Stream()
        var header = [UInt8](repeating: 0, count: magic.count + 16)
        guard (try? header.withUnsafeMutableBytes({ try saved.read(into: $0.baseAddress!, count: $0.count, at: 0) })) == header.count,
              Array(header.prefix(magic.count)) == magic else { return nil }
        header.withUnsafeBytes { sha.update($0) }
        let lineStart = header.withUnsafeBytes { Int(Int64(littleEndian: $0.loadUnaligned(fromByteOffset: magic.count, as: Int64.self))) }
        let offset = header.withUnsafeBytes { Int(Int64(littleEndian: $0.loadUnaligned(fromByteOffset: magic.count + 8, as: Int64.self))) }
        // The views' bytes, hashed as they are read; the 64 bytes after them are the digest to match
        // (then, in a data folder, the writers' index: `CheckpointIndexSection`).
        let end = CheckpointIndexSection.layout(of: saved, size: size).digestAt
        var position = header.count
        // The header is not trusted yet (the seal is checked below): an offset outside the log means no tail.
        let logSize = (try? file.size()) ?? 0
        let tailBytes = offset >= 0 && offset <= logSize ? logSize - offset : 0
        let restored = selection(tailBytes)
        let inPlace = fingerprintsInPlace(tailBytes) ? { (seed: UUIDBits, count: Int, at: Int, regions: [FingerprintFile.Region]) -> IDFingerprints in
            // `at` counts from the views' first byte, which follows the header.
            IDFingerprints(seed: seed, file: FingerprintFile(count: count, regions: regions,
                                                             read: FingerprintsInFile(file: saved, start: header.count + at, count: count).read))
        } : nil
        guard let (views, ids, erasures) = try? CheckpointReader.read(views: restored, fingerprintsAt: inPlace, source: { buffer in
            let n = try saved.read(into: buffer.baseAddress!, count: min(buffer.count, end - position), at: position)
            sha.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            position += n
            return n
        }), position == end else { return nil }
        var trailer = [UInt8](repeating: 0, count: 64)
        guard (try? trailer.withUnsafeMutableBytes({ try saved.read(into: $0.baseAddress!, count: 64, at: end) })) == 64,
              trailer == Array(sha.finalize().utf8),
              let headAt = SavedHeadLine.verifiedTime(in: file, lineStart: lineStart, offset: offset, head: views.head)
        else { return nil }
        var checkpoint = Checkpoint(views: views, ids: ids, lineStart: lineStart, offset: offset, headAt: headAt)
        checkpoint.erasures = erasures
        return checkpoint
    }

    /// True when this may be saved. A checkpoint holds every view, and a load trusts it to: views
    /// folded narrowed (some of them left empty, `LedgerViews.narrow`) are never saved; nor views
    /// without one id per event.
    public var isWhole: Bool { views.selection == .all && ids.count == views.events }

    /// Saves this checkpoint for `log` atomically (temp file, fsync, rename). Failure leaves the
    /// previous checkpoint, or none: it is only a cache.
    ///
    /// Not when an erasure was appended after its line, or is under way: its views may hold the
    /// erased data (read before the erasure), which the erasure removed from the folder. That is
    /// looked at under the writers' lock, shared (`WritersLockShared.runIfFree`: not saved while a
    /// writer holds it), before the file is written and again when it is renamed into place: the
    /// log's bytes after the line searched for an erasure's type, the erasure's marker looked for
    /// (as a PostgreSQL store's checkpoint is saved only when no erasure follows its line). The
    /// file has no name until then (`unnamed`): a read killed meanwhile leaves nothing in the folder.
    public func save(forLog log: String) {
        guard isWhole else { return }
        let sha = SHA256Stream()
        let offset = offset
        func stillTrue() -> Bool {
            !WritersLockShared.erasureUnderWay(logPath: log)
                && (try? FileDescriptor(path: log, flags: O_RDONLY)).map { !WritersLockShared.mayHoldErasure($0, from: offset) } == true
        }
        guard WritersLockShared.runIfFree(logPath: log, stillTrue) == true else { return }
        let renameIfStillTrue: (() throws -> Void) throws -> Void = { rename in
            try WritersLockShared.runIfFree(logPath: log) { if stillTrue() { try rename() } }
        }
        try? FileSystem.writeAtomically(to: Self.path(forLog: log), unnamed: true, renaming: renameIfStillTrue) { append in
            var header = Self.magic
            withUnsafeBytes(of: Int64(lineStart).littleEndian) { header.append(contentsOf: $0) }
            withUnsafeBytes(of: Int64(offset).littleEndian) { header.append(contentsOf: $0) }
            try header.withUnsafeBytes { sha.update($0); try append($0) }
            var failure: (any Error)?
            withoutActuallyEscaping(append) { append in
                CheckpointWriter.write(views, ids: ids) { bytes in
                    guard failure == nil else { return }
                    sha.update(bytes)
                    do { try append(bytes) } catch { failure = error }
                }
            }
            if let failure { throw failure }
            try Array(sha.finalize().utf8).withUnsafeBytes { try append($0) }
            try CheckpointIndexSection.write(forLog: log, append)
        }
    }
}

// MARK: - FingerprintsInFile

/// Reads a checkpoint's id fingerprints back from its file, which it keeps open for the read: a
/// checkpoint renamed over meanwhile is another file, whose bytes stay as they were read and
/// sealed; bytes written over this one in place since fail their region's digest
/// (`FingerprintFile`), and the read starts over the strict way.
private struct FingerprintsInFile: @unchecked Sendable {  // `pread` at offsets: no shared position
    let file: FileDescriptor
    let start: Int
    let count: Int

    /// Fills `into` with the fingerprints from index `first`: false when they are not all there.
    func read(_ first: Int, _ into: UnsafeMutableBufferPointer<UInt64>) -> Bool {
        guard first >= 0, into.count <= count - first, let base = into.baseAddress else { return false }
        let bytes = into.count * 8
        guard (try? file.read(into: UnsafeMutableRawPointer(base), count: bytes, at: start + first * 8)) == bytes else { return false }
        for i in 0..<into.count { into[i] = UInt64(littleEndian: into[i]) }
        return true
    }
}
