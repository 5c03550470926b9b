import Glibc
import LedgerDomain

// MARK: - FileEventStore: erasure

extension FileEventStore {
    /// The marker an erasure leaves while it runs (`erasure.pending`: the subjects, one per line):
    /// written before its event is appended, removed once every key it names is destroyed and every
    /// cache dropped, so a writer that finds it (the erasure was cut short) finishes the job.
    public var erasureMarkerPath: String { FileSystem.join(directory, Self.erasureMarkerName) }

    /// The name of the erasure marker in a data folder (`erasureMarkerPath`).
    static let erasureMarkerName = "erasure.pending"

    /// The files beside the log that may hold personal data in clear or as unkeyed hashes: the
    /// writers' index, its durable checkpoint and the views' checkpoint. Only caches: rebuilt from
    /// the log, where an erased subject's members read as erased.
    var personalCaches: [String] { [indexPath, indexCheckpointPath, Checkpoint.path(forLog: logPath)] }

    /// The temporary files of the personal caches' atomic writes in the folder (`<cache>.tmp-<pid>`,
    /// `StaleTemporaryFiles`), whether their writer still runs or not: a read that folded the log
    /// before an erasure may have one written, or have been killed with it there. Their writers
    /// lose nothing but a cache (a rename that finds no file).
    func personalCacheTemporaries() -> [String] {
        let names = Set(personalCaches.map { String($0.split(separator: "/").last ?? "") })
        guard let folder = opendir(directory) else { return [] }
        defer { closedir(folder) }
        var found: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard StaleTemporaryFiles.writer(of: name) != nil, let marker = name.firstRange(of: ".tmp-"),
                  names.contains(String(name[..<marker.lowerBound])) else { continue }
            found.append(FileSystem.join(directory, name))
        }
        return found
    }

    /// Notes durably that `subjects` are being erased: under the append lock, before the lines
    /// that hold their erasure events are written (so no other writer takes the marker for one
    /// whose event never came).
    func beginErasure(of subjects: [SubjectID]) throws {
        let text = subjects.map { $0.text + "\n" }.joined()
        try StoreError.mapping { try FileSystem.writeAtomically(Array(text.utf8), to: erasureMarkerPath) }
    }

    /// Destroys the keys of `subjects` (their erasure events are durable), removes the sign-in lock
    /// files named by the erased accounts' emails (read first, while their keys still open them),
    /// drops the caches, then the marker: each step synced, all under the writers' lock; killed at
    /// any point, the marker is still there for the next writer to finish the job.
    public func destroyKeys(of subjects: [SubjectID]) throws {
        let lock = try StoreError.mapping { try lockForAppend() }
        defer { releaseWritersLock(lock) }
        let log = try StoreError.mapping { try logForAppend() }
        let uids = Set(subjects.compactMap(\.account))
        // The marker goes only if it still names these subjects alone: another erasure may have
        // begun since this one's event (its marker written over this one's, its keys still live).
        let own = Set(subjects)
        guard !uids.isEmpty else { try destroyHoldingLock(subjects, markerOnlyIfNaming: own); return }
        let scan = try erasures(in: log)
        try destroyHoldingLock(subjects, emails: uids.flatMap { scan.emails[$0] ?? [] }, heldByLiveAccount: scan.accounts.holdsLiveAccount,
                               markerOnlyIfNaming: own)
    }

    /// Adds to `emails` the email `fact` says one of `uids` holds or held.
    static func noteEmails(of fact: ViewEvent.Fact, in emails: inout [UUIDBits: Set<String>], of uids: Set<UUIDBits>?) {
        switch fact {
        case .accountCreated(let uid, let email, _) where uids?.contains(uid) ?? true: emails[uid, default: []].insert(email)
        case .emailChanged(let uid, let email, let previous) where uids?.contains(uid) ?? true: emails[uid, default: []].formUnion([email, previous])
        default: break
        }
    }

    /// `destroyKeys` for a writer that holds the lock; `emails` are the erased accounts' (their lock
    /// files go, but for an email a live account holds now, as `heldByLiveAccount` says from a fold
    /// of the whole verified log: its lock is that account's). Returns the subjects whose key was
    /// live until now. The erasure marker goes too; with `markerOnlyIfNaming`, only when every
    /// subject it names is among those (else it is another erasure's, begun since, to finish).
    @discardableResult
    func destroyHoldingLock(_ subjects: [SubjectID], emails: [String] = [],
                            heldByLiveAccount: (String) -> Bool = { _ in false },
                            markerOnlyIfNaming own: Set<SubjectID>? = nil) throws -> [SubjectID] {
        var destroyed: [SubjectID] = []
        // A version 1 log has no keys: nothing of it is encrypted, so there is none to destroy.
        if !subjects.isEmpty, let keys = try dataKeys() {
            for subject in subjects {
                do {
                    if try keys.state(of: subject) == .live { destroyed.append(subject) }
                    try keys.erase(subject: subject)
                } catch {
                    throw StoreError(.io, "the key of \(subject) could not be destroyed: \(error.message); run `ledger recover`")
                }
                keyRing.forget(subject)
            }
        }
        let emails = emails.filter { !$0.isEmpty && !heldByLiveAccount($0) }
        for email in emails { unlink(FileSignInLocks.path(directory: directory, email: email)) }
        try StoreError.mapping {
            var removed = !emails.isEmpty
            if removed { try? FileSystem.syncDirectory(FileSystem.join(directory, "locks")) }
            for path in personalCaches + personalCacheTemporaries() where FileSystem.exists(path) {
                if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", path: path, code: errno) }
                removed = true
            }
            prefix = VerifiedPrefix()  // the index this process mapped is gone: the next append rebuilds it
            // A marker that cannot be read (not a regular file, too large) goes, as it always did.
            if FileSystem.exists(erasureMarkerPath), own.map({ own in ErasedKeys.markedSubjects(logPath: logPath).map { $0.isSubset(of: own) } ?? true }) ?? true {
                if unlink(erasureMarkerPath) != 0 && errno != ENOENT { throw SystemError("unlink", path: erasureMarkerPath, code: errno) }
                removed = true
            }
            if removed { try FileSystem.syncDirectory(directory) }
        }
        return destroyed
    }

    /// Under the writers' lock, before anything else: an erasure cut short (its marker left) is
    /// finished. The keys of the subjects whose `PersonalDataErased` the verified log holds are
    /// destroyed (the event is there: the erasure happened); the others' are kept (their event
    /// never became durable), and the caches are dropped in both cases.
    func finishErasureLeftBehind(_ log: FileDescriptor) throws {
        guard FileSystem.exists(erasureMarkerPath) else { return }
        let bytes = try StoreError.mapping { try FileSystem.read(erasureMarkerPath, limit: ErasedKeys.markerLimit) }
        let named = Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { SubjectID(String($0)) })
        let scan = try erasures(in: log)
        // Damage below: the writer refuses (its catch-up) and nothing is destroyed for it.
        guard scan.intact else { return }
        let erased = scan.erased.intersection(named)
        erasuresFinishedOnTheWay += try destroyHoldingLock(erased.sorted { $0.text < $1.text },
                                                        emails: erased.compactMap(\.account).flatMap { scan.emails[$0] ?? [] },
                                                        heldByLiveAccount: scan.accounts.holdsLiveAccount)
    }

    /// `ledger recover`'s sweep, under the writers' lock: the subjects whose erasure events the
    /// whole verified log holds but whose keys the key store still has (restored from a backup taken
    /// before the erasure, beside caches written after it, so no writer meets the events again) lose
    /// their keys, with the sign-in lock files of the emails those keys still open and the caches,
    /// as an erasure does. Returns them, sorted, with those of an erasure cut short (its marker left)
    /// apart; none (and nothing touched) when no such key is left.
    public func destroyKeysTheLogErased() throws -> DestroyedKeys {
        let lock = try StoreError.mapping { try lockForAppend() }
        defer { releaseWritersLock(lock) }
        return try destroyKeysTheLogErasedHoldingLock()
    }

    /// `destroyKeysTheLogErased` for a caller that holds the writers' lock.
    private func destroyKeysTheLogErasedHoldingLock() throws -> DestroyedKeys {
        let log = try StoreError.mapping { try logForAppend() }
        guard let keys = try dataKeys() else { return DestroyedKeys() }
        // What a writer meets first (an erasure past the caches: its keys destroyed on the way) is
        // reported with what the sweep finds; and a live account's email keeps its lock file.
        try catchUpAsWriter(log)
        defer { keysDestroyedOnTheWay = []; erasuresFinishedOnTheWay = [] }
        let scan = try erasures(in: log)
        guard scan.intact else { throw StoreError(.damaged, "the log is damaged: no key is destroyed because of it — run `ledger verify`") }
        let erased = scan.erased
        let live = try StoreError.mappingKeys { () throws(KeyStoreError) in
            var live: [SubjectID] = []
            for subject in erased where try keys.state(of: subject) == .live { live.append(subject) }
            return live
        }.sorted { $0.text < $1.text }
        if !live.isEmpty {
            try destroyHoldingLock(live, emails: live.compactMap(\.account).flatMap { scan.emails[$0] ?? [] },
                                   heldByLiveAccount: scan.accounts.holdsLiveAccount)
        }
        return DestroyedKeys(cutShort: erasuresFinishedOnTheWay, restored: keysDestroyedOnTheWay + live)
    }

    /// A writer's start (and its first catch-up after each erasure it folds): when the key store
    /// still holds a live key of one of the last erasures the writers' index records (a key store
    /// restored on its own from a backup taken before them, beside caches written after them, so
    /// no line the writer folds meets those events again) and the log holds that erasure's line
    /// where the index says (`ErasureLine`), `recover`'s sweep, whose keys destroyed `recover`
    /// reports; then the caches it dropped are caught up again. The index only says where to look:
    /// the sweep destroys what the log's own erasure events name. Under the writers' lock,
    /// never during an erasure under way (`erasure.pending`: `finishErasureLeftBehind`'s), at most
    /// `WritersIndex.Header.recentErasures` lookups of the key store.
    func finishErasuresTheIndexRecords(_ log: FileDescriptor) throws {
        guard let table = prefix.table, !prefix.lostTable, case let count = table.erasureCount, count > 0, count != erasuresLookedAt else { return }
        erasuresLookedAt = count  // first, so that the sweep's own catch-up does not look again
        guard !FileSystem.exists(erasureMarkerPath), FileSystem.exists(keyStorePath), let keys = try dataKeys() else { return }
        let recent = table.recentErasures
        let live = try StoreError.mappingKeys { () throws(KeyStoreError) in
            var live: [(erasure: RecordedErasure, offset: Int)] = []
            for entry in recent where try keys.state(of: entry.erasure.subject) == .live { live.append(entry) }
            return live
        }
        // Only an erasure the verified prefix holds where the record says (a forged record names a live subject).
        guard !live.isEmpty, live.contains(where: { $0.offset < prefix.verifiedSize && ErasureLine.holds($0.erasure, in: log, size: prefix.verifiedSize, at: $0.offset) })
        else { return }
        let destroyed = try destroyKeysTheLogErasedHoldingLock()
        erasuresFinishedOnTheWay += destroyed.cutShort
        keysDestroyedOnTheWay += destroyed.restored
        try syncIndexFile(log)
        try catchUp(log, repairing: true)
        prefix.table?.setCoverage(prefix.coverage, logDevice: logIdentity.dev, inode: logIdentity.ino)
    }

    /// What a start must do after a read met erasure events (the last at seq `lastErasureSeq`) when
    /// the key store still held a key one of them names, or the writers' index or its checkpoint was
    /// recorded before the last of them (files restored from a backup taken before the erasure):
    /// `destroyKeysTheLogErased` (the keys, the sign-in lock files of the emails they open, the
    /// caches), then, under the writers' lock, the index files still recorded before that erasure
    /// dropped. Returns the subjects whose keys it destroyed; nil when it did not look: a writer
    /// holds the lock, or an erasure is under way (`erasure.pending`: its own process, or the next
    /// writer when it was cut short, finishes it).
    public func finishErasuresARestoreBroughtBack(lastErasureSeq: Int, keysKept: Set<SubjectID>) throws -> [SubjectID]? {
        // A writer at work (it may be rebuilding the index the erasure dropped) is not waited for:
        // it, or the next command, meets what is left. Nor is an erasure between its event and
        // its keys' destruction, which an erasure leaves the lock between.
        guard !FileSystem.exists(erasureMarkerPath),
              let lock = try StoreError.mapping({ try lockForAppend(waiting: false) }) else { return nil }
        defer { releaseWritersLock(lock) }
        guard !FileSystem.exists(erasureMarkerPath) else { return nil }
        // What the read saw, asked again under the lock: a key still live, an index file still
        // recorded before the erasure (a writer may have finished the job meanwhile).
        let keys = try dataKeys()
        var live = false
        if let keys {
            live = try StoreError.mappingKeys { () throws(KeyStoreError) in
                for subject in keysKept where try keys.state(of: subject) == .live { return true }
                return false
            }
        }
        guard live || [indexCheckpointPath, indexPath].contains(where: { Self.recorded($0, before: lastErasureSeq) }) else { return [] }
        let destroyed = try destroyKeysTheLogErasedHoldingLock()
        let stale = [indexCheckpointPath, indexPath].filter { Self.recorded($0, before: lastErasureSeq) }
        if !stale.isEmpty {
            try StoreError.mapping {
                for path in stale where unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", path: path, code: errno) }
                try FileSystem.syncDirectory(directory)
            }
            prefix = VerifiedPrefix()  // the index this process mapped is gone: the next append rebuilds it
        }
        return destroyed.all
    }

    /// True when the file at `path` (the writers' index or its checkpoint) is an index that says it
    /// covers the log up to a line before `seq`: restored from before that line. One being built
    /// (covering nothing yet), one this process cannot read, or anything that is not an index is
    /// not (a writer replaces it).
    static func recorded(_ path: String, before seq: Int) -> Bool {
        guard let covered = WritersIndex.recordedSeq(atPath: path) else { return false }
        return covered > 0 && covered < seq
    }

    /// What an erasure's last steps need from the whole log, read under the writers' lock.
    struct ErasureScan {
        /// The subjects its erasure events name.
        var erased: Set<SubjectID> = []
        /// The emails each account held, read while its key still opens them: their sign-in lock
        /// files (named by the email's hash) go with the key.
        var emails: [UUIDBits: Set<String>] = [:]
        /// The account fold over it (which emails live accounts hold now: their locks stay).
        var accounts = AccountTable()
        /// False when it is damaged (a torn last line aside): nothing may be destroyed because of
        /// such a log, since a line before the damage may be a forgery whose hash was made anew.
        var intact = true
    }

    /// The `ErasureScan` of `log`. Its members are opened by a ring of its own over the key store,
    /// which knows only the erasures it meets: this process's ring may have noted an erased subject
    /// already (a read before the sweep), and would not open the emails whose lock files must go.
    func erasures(in log: FileDescriptor) throws -> ErasureScan {
        var scan = ErasureScan()
        var checker = ChainChecker(opener: KeyRing(keyStorePath: keyRing.path))
        try LogScanner.scanFacts(log, checker: &checker) { item in
            switch item {
            case .event(let event, _, _, _):
                Self.noteEmails(of: event.pointee.fact, in: &scan.emails, of: nil)
                if let subject = ViewEvent.erasedSubject(at: event) { scan.erased.insert(subject) }
                AccountFold.evolve(&scan.accounts, event.pointee)
                return true
            case .problem:
                scan.intact = false
                return false
            case .tornTail:
                return false
            }
        }
        return scan
    }

    /// Throws what is wrong with `events.keys` when it is there but cannot be opened (`LogSource.checkKeyStore`).
    public func checkKeyStore() throws { try LogSource.file(logPath).checkKeyStore() }

    /// The data version a writer writes in (see `dataVersion` in `+AppendFiles`).
    public var writesDataVersion: Int { dataVersion }
}
