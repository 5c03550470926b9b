import Glibc
import LedgerDomain

// MARK: - LogSource

/// The log a read command verifies and folds: a file, or a PostgreSQL store's lines streamed from
/// the server (no copy of them anywhere). Each keeps its own views checkpoint: beside the file, or
/// in the store's `ledger_checkpoints` table.
public enum LogSource {
    /// A log file.
    case file(String)
    /// A PostgreSQL store.
    case postgres(PostgresEventStore)

    /// What messages name it by: the path, or the store's URL with its password redacted.
    public var name: String {
        switch self {
        case .file(let path): path
        case .postgres(let store): store.url.redacted
        }
    }

    /// What opens its personal members: a file's key ring (its folder's `events.keys`), or a
    /// PostgreSQL store's (`ledger_keys`).
    public var opener: any PersonalDataOpener {
        switch self {
        case .file(let path): KeyRing.forLog(path)
        case .postgres(let store): store.keyRing
        }
    }

    /// True for a PostgreSQL store.
    var isPostgres: Bool { if case .postgres = self { true } else { false } }

    /// True when its members may open with keys that a later erasure of the log names (a key store
    /// restored from a backup): a read that stops early (`--as-of`) reads on for those erasures.
    var mayHoldKeys: Bool {
        switch self {
        case .file: (opener as? KeyRing)?.hasKeyStore == true
        case .postgres: true
        }
    }

    /// The bytes of the log to scan, opened from its first line or just after a checkpoint.
    struct Opened {
        /// The log's bytes.
        var bytes: any LogBytes
        /// Where the scan starts in `bytes`.
        var start: Int
        /// The bytes to read in all, for progress (0 when unknown).
        var total: Int
        /// About how many lines there are from `start` on (to size the id set once).
        var lines: Int
        /// The checkpoint the scan continues, if any.
        var checkpoint: Checkpoint?
    }

    /// Opens the log; with `usingCheckpoint`, continues the checkpoint it keeps when `accept` takes
    /// it, restoring the views `selection` gives for the most lines there can be after it, and
    /// leaving its id fingerprints in its file when `fingerprintsInPlace` says so for them (a file
    /// store's; PostgreSQL's checkpoint row is read whole).
    func open(usingCheckpoint: Bool, views selection: (_ tailLines: Int) -> LedgerViews.Selection = { _ in .all },
              fingerprintsInPlace: (_ tailLines: Int) -> Bool = { _ in false },
              accept: (Checkpoint) -> Bool = { _ in true }) throws -> Opened {
        switch self {
        case .file(let path):
            guard FileSystem.exists(path) else { throw SystemError("open", path: path, code: ENOENT) }
            let file = try FileDescriptor(path: path, flags: O_RDONLY)
            let total = try file.size()
            let checkpoint = usingCheckpoint
                ? Checkpoint.load(forLog: path, file: file, views: { selection($0 / LineCodec.shortestLine) },
                                  fingerprintsInPlace: { fingerprintsInPlace($0 / LineCodec.shortestLine) }).flatMap { accept($0) ? $0 : nil } : nil
            let start = checkpoint?.offset ?? 0
            // Lines are 300-700 bytes.
            return Opened(bytes: file, start: start, total: total, lines: (total - start) / 450, checkpoint: checkpoint)
        case .postgres(let store):
            let checkpoint = usingCheckpoint ? store.storedCheckpoint(views: selection).flatMap { accept($0) ? $0 : nil } : nil
            let after = checkpoint?.views.head.seq ?? 0
            // The last row's seq sizes the read (its line is not decoded here: a damaged one is the scanner's to name).
            let head = try store.lastRowSeq()
            return Opened(bytes: try PostgresLineStream(store.url, from: after + 1), start: 0, total: 0,
                          lines: max(0, head - after), checkpoint: checkpoint)
        }
    }

    /// Saves `checkpoint` where this log keeps it (failure leaves the old one: it is a cache).
    func save(_ checkpoint: Checkpoint) {
        switch self {
        case .file(let path): checkpoint.save(forLog: path)
        case .postgres(let store): store.saveCheckpoint(checkpoint)
        }
    }

    /// Removes this log's views checkpoint, when it has one (a cache: failure leaves it, and the
    /// next read that meets the same erasure tries again).
    func dropCheckpoint() {
        switch self {
        case .file(let path):
            let checkpoint = Checkpoint.path(forLog: path)
            guard FileSystem.exists(checkpoint), unlink(checkpoint) == 0 else { return }
            try? FileSystem.syncDirectory(FileSystem.directoryName(path))
        case .postgres(let store): store.dropCheckpoints()
        }
    }
}

extension LogSource {
    /// After a read that met erasure events, the last at seq `lastErasureSeq`: when the key store
    /// still holds a key one of them names, or the writers' index or its checkpoint was recorded
    /// before the last of them (files a backup taken before the erasure brought back), does what a
    /// start must — destroys those keys, with the sign-in lock files of their emails and the caches,
    /// and drops those index files, under the writers' lock
    /// (`FileEventStore.finishErasuresARestoreBroughtBack`) — and returns the subjects whose keys it
    /// destroyed. Otherwise nothing is written (two headers are read). Only a data folder's own log
    /// (`DIR/events.jsonl`). On PostgreSQL: when `ledger_keys` still holds a key of a subject the read
    /// saw erased (one query), `recover`'s sweep (`PostgresEventStore.destroyKeysTheLogErased`).
    ///
    /// A read that started from a checkpoint passes the erasures it records (`recorded`): a subject
    /// of one whose key the key store still holds is taken as met when the log holds its line
    /// (`ErasureLine`), and so is the last one's seq, for the index files; the checkpoint is a
    /// cache, and only says where to look.
    public func finishErasures(lastErasureSeq: Int, recorded: [RecordedErasure] = []) throws -> [SubjectID] {
        guard lastErasureSeq > 0 || !recorded.isEmpty else { return [] }
        if case .postgres(let store) = self {
            guard try store.holdsLiveKeys(of: store.keyRing.erasedSubjectsMet) || !(try store.restoredKeys(of: recorded)).isEmpty else { return [] }
            do {
                return try store.destroyKeysTheLogErased().all
            } catch let error as StoreError where error.code == .historyRewritten {
                return []  // as on the file store: a log rewritten under its caches destroys nothing, and says so to writers
            }
        }
        guard case .file(let path) = self, let ring = opener as? KeyRing, ring.hasKeyStore, !cachesRememberAnotherHistory else { return [] }
        let store = FileEventStore(directory: FileSystem.directoryName(path))
        guard let read = FileIdentity(path: path), read == FileIdentity(path: store.logPath) else { return [] }
        var lastErasureSeq = lastErasureSeq
        var restored = Set<SubjectID>()
        if !recorded.isEmpty, let log = try? FileDescriptor(path: path, flags: O_RDONLY), let size = try? log.size() {
            for erasure in recorded where ring.storeHoldsLiveKey(of: erasure.subject) && ErasureLine.holds(erasure, in: log, size: size) {
                restored.insert(erasure.subject)
            }
            if let last = recorded.last, last.seq > lastErasureSeq,
               [store.indexPath, store.indexCheckpointPath].contains(where: { FileEventStore.recorded($0, before: last.seq) }),
               ErasureLine.holds(last, in: log, size: size) {
                lastErasureSeq = last.seq
            }
        }
        let kept = ring.erasedSubjectsWithKeysKept.union(restored)
        guard lastErasureSeq > 0 || !kept.isEmpty else { return [] }
        guard !kept.isEmpty || FileEventStore.recorded(store.indexPath, before: lastErasureSeq)
              || FileEventStore.recorded(store.indexCheckpointPath, before: lastErasureSeq) else { return [] }
        guard let destroyed = try store.finishErasuresARestoreBroughtBack(lastErasureSeq: lastErasureSeq, keysKept: kept) else { return [] }
        // Looked at under the lock: none of those keys is live now (a long-lived process's later
        // reads do not look again for them).
        ring.noteLooked(kept)
        return destroyed
    }

    /// True when a cache beside a log file recorded another hash for a line the log holds
    /// (`RecordedHeads.rewrite`: the log was rewritten, or restored from a backup on purpose): the
    /// evidence writers refuse on and `verify` names. A read keeps it (saves no views checkpoint
    /// over it) and destroys nothing because of the log's word. A few bytes of each cache are read,
    /// and the log's prefix only when a cache's line is not where it says.
    var cachesRememberAnotherHistory: Bool {
        guard case .file(let path) = self, let log = try? FileDescriptor(path: path, flags: O_RDONLY) else { return false }
        return ((try? RecordedHeads.rewrite(logPath: path, log: log)) ?? nil) != nil
    }

    /// Refuses to read a log file whose folder has a key store that cannot be opened (a symbolic
    /// link, a directory, a FIFO, a file it may not read, a damaged header): every personal member
    /// would read as erased, and the output would say so without a word of why. A folder without a
    /// key store (an exported log, a version 1 folder) is read as it is. `verify` does not ask: it
    /// reports what such a store fails to open (`missing-key`).
    public func checkKeyStore() throws {
        // A log that cannot be opened says so itself, when it is opened.
        guard case .file(let path) = self, access(path, R_OK) == 0 else { return }
        let keys = FileSystem.join(FileSystem.directoryName(path), KeyStore.fileName)
        guard FileSystem.exists(keys) else { return }
        do throws(KeyStoreError) {
            _ = try KeyStore(path: keys, writable: false)
        } catch {
            let message = "the key store \(keys) cannot be read (\(error.message)): personal data cannot be shown without it"
            switch error.code {
            case .io: throw StoreError(.io, message, reason: error.cause?.isNotRegular == true ? StoreError.notRegularFile : nil)
            default:
                // A first writer's creation cut short (zeros, no header yet) made no key: nothing to show.
                if Self.isCutShortCreation(keys) { return }
                throw StoreError(.damaged, message)
            }
        }
    }

    /// How many subjects' members this process's reads met that did not open and that no erasure
    /// names (a key missing, or changed bytes): a read shows them as erased, `verify` says why.
    public var subjectsNotOpened: Int { (opener as? KeyRing)?.subjectsNotOpened ?? 0 }

    /// True for a data version 2 log file with no key store beside it (copied without it, the
    /// store lost, or one whose creation was cut short): every personal member reads as erased,
    /// which a read should say.
    public var lacksItsKeyStore: Bool {
        guard case .file(let path) = self else { return false }
        let keys = FileSystem.join(FileSystem.directoryName(path), KeyStore.fileName)
        guard !FileSystem.exists(keys) || Self.isCutShortCreation(keys),
              let log = try? FileDescriptor(path: path, flags: O_RDONLY) else { return false }
        return FileEventStore.firstLineIsVersion2(log)
    }

    /// True when the key store at `path` is what a creation cut short leaves: empty, or zeros (of
    /// at most `KeyStoreLayout.largestCutShortCreation` bytes: a larger file is not read).
    static func isCutShortCreation(_ path: String) -> Bool {
        guard let bytes = try? FileSystem.read(path, limit: KeyStoreLayout.largestCutShortCreation) else { return false }
        return bytes.allSatisfy { $0 == 0 }
    }

    /// Delivers every event of the log in order with its line as stored (no newline), verified as
    /// it goes, until `body` returns false (`LogFollower.read`; `.missing` when there is no log file).
    public func readEvents(_ body: (RecordedEvent, UnsafeBufferPointer<UInt8>) -> Bool) throws -> LogFollower.Outcome {
        try checkKeyStore()
        switch self {
        case .file(let path): return try LogFollower(path: path).read(body)
        case .postgres(let store): return try PostgresLogFollower(store: store).read(body)
        }
    }

    /// `readEvents` of only the events about account `uid` (`AccountHistory`: its own stream's,
    /// its registration's and its sessions'), in log order.
    public func readHistory(ofAccount uid: String, _ body: (RecordedEvent, UnsafeBufferPointer<UInt8>) -> Bool) throws -> LogFollower.Outcome {
        var history = AccountHistory(uid: UUIDBits(uuid: uid) ?? .zero)
        return try readEvents { event, line in
            history.includes(ViewEvent(event)) ? body(event, line) : true
        }
    }
}
