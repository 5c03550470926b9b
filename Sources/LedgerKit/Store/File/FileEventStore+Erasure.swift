import Glibc
import LedgerDomain

// MARK: - FileEventStore: erasure

extension FileEventStore {
    /// The marker an erasure leaves while it runs (`erasure.pending`: the subjects, one per line):
    /// written before its event is appended, removed once every key it names is destroyed and every
    /// cache dropped, so a writer that finds it (the erasure was cut short) finishes the job.
    public var erasureMarkerPath: String { FileSystem.join(directory, "erasure.pending") }

    /// The files beside the log that may hold personal data in clear or as unkeyed hashes: the
    /// writers' index, its durable checkpoint and the views' checkpoint. Only caches: rebuilt from
    /// the log, where an erased subject's members read as erased.
    var personalCaches: [String] { [indexPath, indexCheckpointPath, Checkpoint.path(forLog: logPath)] }

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
        defer { lock.unlock() }
        let log = try StoreError.mapping { try logForAppend() }
        let uids = Set(subjects.compactMap(\.account))
        var emails: [UUIDBits: Set<String>] = [:]
        if !uids.isEmpty {
            var checker = ChainChecker(opener: keyRing)
            try LogScanner.scanFacts(log, checker: &checker) { item in
                if case .event(let event, _, _, _) = item { Self.noteEmails(of: event.pointee.fact, in: &emails, of: uids) }
                return true
            }
        }
        try destroyHoldingLock(subjects, emails: uids.flatMap { emails[$0] ?? [] })
    }

    /// Adds to `emails` the email `fact` says one of `uids` holds or held.
    static func noteEmails(of fact: ViewEvent.Fact, in emails: inout [UUIDBits: Set<String>], of uids: Set<UUIDBits>?) {
        switch fact {
        case .accountCreated(let uid, let email, _) where uids?.contains(uid) ?? true: emails[uid, default: []].insert(email)
        case .emailChanged(let uid, let email, let previous) where uids?.contains(uid) ?? true: emails[uid, default: []].formUnion([email, previous])
        default: break
        }
    }

    /// `destroyKeys` for a writer that holds the lock; `emails` are the erased accounts' (their lock files go).
    func destroyHoldingLock(_ subjects: [SubjectID], emails: [String] = []) throws {
        // A version 1 log has no keys: nothing of it is encrypted, so there is none to destroy.
        if !subjects.isEmpty, let keys = try dataKeys() {
            for subject in subjects {
                do { try keys.erase(subject: subject) } catch {
                    throw StoreError(.io, "the key of \(subject) could not be destroyed: \(error.message); run `ledger recover`")
                }
                keyRing.forget(subject)
            }
        }
        for email in emails where !email.isEmpty { unlink(FileSignInLocks.path(directory: directory, email: email)) }
        try StoreError.mapping {
            var removed = !emails.isEmpty
            if removed { try? FileSystem.syncDirectory(FileSystem.join(directory, "locks")) }
            for path in personalCaches where FileSystem.exists(path) {
                if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", path: path, code: errno) }
                removed = true
            }
            prefix = VerifiedPrefix()  // the index this process mapped is gone: the next append rebuilds it
            if FileSystem.exists(erasureMarkerPath) {
                if unlink(erasureMarkerPath) != 0 && errno != ENOENT { throw SystemError("unlink", path: erasureMarkerPath, code: errno) }
                removed = true
            }
            if removed { try FileSystem.syncDirectory(directory) }
        }
    }

    /// Under the writers' lock, before anything else: an erasure cut short (its marker left) is
    /// finished. The keys of the subjects whose `PersonalDataErased` the verified log holds are
    /// destroyed (the event is there: the erasure happened); the others' are kept (their event
    /// never became durable), and the caches are dropped in both cases.
    func finishErasureLeftBehind(_ log: FileDescriptor) throws {
        guard FileSystem.exists(erasureMarkerPath) else { return }
        let bytes = try StoreError.mapping { try FileSystem.read(erasureMarkerPath, limit: 1 << 20) }
        let named = Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { SubjectID(String($0)) })
        var erased: Set<SubjectID> = []
        // The emails each account held, read while its key still opens them: their sign-in lock
        // files (named by the email's hash; one left by the killed command) go with the key.
        var emails: [UUIDBits: Set<String>] = [:]
        var checker = ChainChecker(opener: keyRing)
        try LogScanner.scanFacts(log, checker: &checker) { item in
            guard case .event(let event, _, _, _) = item else { return true }
            Self.noteEmails(of: event.pointee.fact, in: &emails, of: nil)
            if let subject = event.pointee.fact.erasedSubject, named.contains(subject) { erased.insert(subject) }
            return true
        }
        try destroyHoldingLock(erased.sorted { $0.text < $1.text }, emails: erased.compactMap(\.account).flatMap { emails[$0] ?? [] })
    }

    /// `ledger recover`'s sweep, under the writers' lock: the subjects whose erasure events the
    /// whole verified log holds but whose keys the key store still has (restored from a backup taken
    /// before the erasure, beside caches written after it, so no writer meets the events again) lose
    /// their keys, with the sign-in lock files of the emails those keys still open and the caches,
    /// as an erasure does. Returns them, sorted; none (and nothing touched) when no such key is left.
    public func destroyKeysTheLogErased() throws -> [SubjectID] {
        let lock = try StoreError.mapping { try lockForAppend() }
        defer { lock.unlock() }
        let log = try StoreError.mapping { try logForAppend() }
        guard let keys = try dataKeys() else { return [] }
        var erased: Set<SubjectID> = []
        var emails: [UUIDBits: Set<String>] = [:]
        var checker = ChainChecker(opener: keyRing)
        try LogScanner.scanFacts(log, checker: &checker) { item in
            // Only the intact prefix counts: nothing is destroyed for a line past damage.
            guard case .event(let event, _, _, _) = item else { return false }
            Self.noteEmails(of: event.pointee.fact, in: &emails, of: nil)
            if let subject = event.pointee.fact.erasedSubject { erased.insert(subject) }
            return true
        }
        let live = try StoreError.mappingKeys { () throws(KeyStoreError) in
            var live: [SubjectID] = []
            for subject in erased where try keys.state(of: subject) == .live { live.append(subject) }
            return live
        }.sorted { $0.text < $1.text }
        guard !live.isEmpty else { return [] }
        try destroyHoldingLock(live, emails: live.compactMap(\.account).flatMap { emails[$0] ?? [] })
        return live
    }

    /// The data version a writer writes in (see `dataVersion` in `+AppendFiles`).
    public var writesDataVersion: Int { dataVersion }
}
