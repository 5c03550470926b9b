import LedgerDomain

// MARK: - Store capabilities

// What the fast paths ask of a store beyond `EventStore`'s few operations. Each store answers them
// natively: the file store from the writers' index and its checkpoint, PostgreSQL from its tables,
// a store with neither by reading its events.

/// A store that knows each stream's version without reading the stream.
public protocol StreamVersions: EventStore {
    /// The number of events in `stream` (0 when it has none): what `append` checks an expected
    /// version against. The file store answers as a writer does before an append (it may take the
    /// writers' lock, create the lock and index files, and repair a torn tail); an absent log has no streams.
    func streamVersion(_ stream: String) throws -> Int
}

/// A store that reads one stream where its index says the stream's lines are.
public protocol IndexedStreamReads: EventStore {
    /// Every event of `stream`, in order: the same events as `readStream`. The file store reads them
    /// at the offsets the writers' index gives (trusting the lines it covers, as an append does)
    /// instead of verifying the whole log.
    func readIndexedStream(_ stream: String) throws -> [RecordedEvent]
}

/// A store that answers what a sign-in needs from an index of its own.
public protocol SignInRecords: EventStore {
    /// What a sign-in needs to know about `email` (lowercase), answered without reading the log;
    /// nil when the store has no index to answer from (the caller then folds the log).
    func signInRecord(email: String) throws -> SignInRecord?
}

/// A store that folds the views over its events.
public protocol ViewScans: EventStore {
    /// Reads every event, as `read(from: 1)` does: `visit` gets each event as the views fold it (with
    /// its line's hash), and the events `wanted` picks are returned whole, in order. Lets a store
    /// read most lines without building them whole.
    func scanViews(wanted: (ViewEvent) -> Bool, visit: (ViewEvent, Digest32) -> Void) throws -> [RecordedEvent]
    /// Every view, folded up to the head: from the store's checkpoint and the lines after it when it
    /// keeps one and `usingCheckpoint`, else from every event.
    func currentViews(now: Timestamp, usingCheckpoint: Bool) throws -> LedgerViews
    /// True when `currentViews` with `usingCheckpoint` may rest on a checkpoint's word rather than
    /// on every event (what a destructive decision must not trust alone).
    var viewsMayComeFromACheckpoint: Bool { get }
}

/// A store whose log can be left with a torn last line.
public protocol TailRepair: EventStore {
    /// Repairs a torn last line, if any, under the writers' lock; true when it did. Damage before
    /// the last line throws `.damaged` and is left untouched.
    func repairTail() throws -> Bool
}

/// A store whose appends a power cut can leave cut short (the `power-loss` failpoint's drill).
public protocol PowerLossDrill: EventStore {
    /// Appends `parts` as `append` does, but writes and syncs only the batch's first `lines` lines,
    /// as that append's write would have them, then throws: what a power cut during the write's sync
    /// can leave. For drills only: the process is killed right after.
    func appendCutByPowerLoss(_ parts: [StreamAppend], condition: AppendCondition?, keepingLines lines: Int) throws
}

/// A store with every capability the ledger's commands use.
public typealias LedgerStore = StreamVersions & IndexedStreamReads & SignInRecords & ViewScans & TailRepair & PersonalDataKeys

// MARK: - Erasure

/// A store's data keys: whether it writes personal members encrypted (data version 2, so they can
/// be erased), and the destruction of a subject's key once its erasure event is durable.
public protocol PersonalDataKeys: EventStore {
    /// 2 when the store writes personal members encrypted under their subject's key; 1 for a data
    /// version 1 log (its personal data can be erased only after `ledger migrate`).
    var dataVersion: Int { get }
    /// `dataVersion`, with what keeps it from being read thrown instead of taken for version 1.
    func checkedDataVersion() throws -> Int
    /// Destroys the keys of `subjects`, whose erasure events are durable in the log, and drops every
    /// cache that may hold their data (the readers and writers rebuild them). Each step is durable
    /// before this returns; destroying a key twice changes nothing. A store notes an erasure under
    /// its append lock, with the append that holds its event, so that a crash before this call is
    /// finished by the next writer (the file store's `erasure.pending`; PostgreSQL does it all in
    /// the append's transaction).
    func destroyKeys(of subjects: [SubjectID]) throws
    /// `ledger recover`'s sweep: destroys every key still live whose subject an erasure event of the
    /// whole verified log names (an erasure a crash cut short, or a key store restored from a backup
    /// taken before the erasure), as `destroyKeys` does; returns those subjects, none when there is
    /// no such key.
    func destroyKeysTheLogErased() throws -> DestroyedKeys
    /// Throws what is wrong with the key store when it is there but cannot be opened (a link, a
    /// FIFO, a file that is not one): said as such, not as keys lost.
    func checkKeyStore() throws
}

extension PersonalDataKeys {
    /// A store without keys writes version 1.
    public var dataVersion: Int { 1 }
    /// `dataVersion`: a store that cannot fail to read it.
    public func checkedDataVersion() throws -> Int { dataVersion }
    /// A store without keys has none to destroy: refused.
    public func destroyKeys(of subjects: [SubjectID]) throws {
        guard subjects.isEmpty else { throw StoreError(.invalidBatch, "this store keeps no data keys: its personal data cannot be erased") }
    }
    /// A store whose keys are not in a file of its own has nothing to check.
    public func checkKeyStore() throws {}
    /// A store without keys has none left live.
    public func destroyKeysTheLogErased() throws -> DestroyedKeys { DestroyedKeys() }
}

/// The keys `destroyKeysTheLogErased` destroyed, by why each was still live.
public struct DestroyedKeys: Equatable, Sendable {
    /// Subjects whose erasure a crash cut short (its event durable, its key not yet destroyed), finished now.
    public var cutShort: [SubjectID]
    /// Subjects whose key came back with a key store restored from a backup taken before the erasure.
    public var restored: [SubjectID]

    /// Both lists, each sorted; a subject in both is said once, as cut short.
    public init(cutShort: [SubjectID] = [], restored: [SubjectID] = []) {
        let finished = Set(cutShort)
        self.cutShort = finished.sorted { $0.text < $1.text }
        self.restored = Set(restored).subtracting(finished).sorted { $0.text < $1.text }
    }

    /// Every subject whose key was destroyed, sorted.
    public var all: [SubjectID] { (cutShort + restored).sorted { $0.text < $1.text } }
    /// True when no key was destroyed.
    public var isEmpty: Bool { cutShort.isEmpty && restored.isEmpty }
}

// MARK: - Reading every event

extension EventStore {
    /// `scanViews` for a store without an in-place reader: every event built whole through `read`, then converted.
    public func scanViewsReadingEveryEvent(wanted: (ViewEvent) -> Bool, visit: (ViewEvent, Digest32) -> Void) throws -> [RecordedEvent] {
        var picked: [RecordedEvent] = []
        try read(from: 1) { event in
            let view = ViewEvent(event)
            visit(view, Digest32(hex: event.envelope.hash) ?? .zero)
            if wanted(view) { picked.append(event) }
            return true
        }
        return picked
    }
}

extension ViewScans {
    /// `currentViews` for a store that keeps no checkpoint: every view folded through `scanViews`.
    public func viewsFoldedFromEveryEvent() throws -> LedgerViews {
        var views = LedgerViews()
        _ = try scanViews(wanted: { _ in false }, visit: { views.apply($0, hash: $1) })
        return views
    }
}
