import Glibc
import LedgerDomain
import Synchronization

// MARK: - KeyRing

/// The opener of a data directory's encrypted personal members (`PersonalDataOpener`): each
/// subject's key is read from the key store once (`events.keys`, read-only) and kept in memory for
/// the life of the process; a key destroyed by this process is forgotten (`forget`). Safe to share
/// between the scanner's threads: the keys and the store sit behind one mutex.
public final class KeyRing: PersonalDataOpener {
    /// A subject's key, and whether a member was opened to text with it (set once, read by
    /// `noteErased`): an atomic flag, so that opening takes the ring's lock once, to find the key.
    final class LiveKey: Sendable {
        let bytes: [UInt8]
        let opened = Atomic<Bool>(false)
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    /// What the ring knows of a subject; an erased one remembers whether its members had been
    /// opened to text before (until `noteErased` reports it).
    private enum Entry { case key(LiveKey), erased(opened: Bool), absent }

    /// The subjects the ring knows: accounts by their uid's 128 bits (hashed and compared without
    /// touching the id's text: a replay looks one up per personal member), addresses by id.
    private struct Entries {
        var accounts: [UUIDBits: Entry] = [:]
        var addresses: [SubjectID: Entry] = [:]

        subscript(subject: SubjectID) -> Entry? {
            get { if let uid = subject.accountBits { accounts[uid] } else { addresses[subject] } }
            set { if let uid = subject.accountBits { accounts[uid] = newValue } else { addresses[subject] = newValue } }
        }
    }

    /// What the ring holds: the key store once opened (nil while the directory has none), the
    /// subjects it knows, and how many it looked up one by one.
    private struct State {
        var store: KeyStore?
        var entries = Entries()
        var lookups = 0
        var loaded = false
        /// True while `preload` reads the whole store on its own thread: lookups go on one by one
        /// meanwhile instead of loading it a second time under the lock.
        var preloading = false
    }

    /// After this many subjects looked up one by one (a `pread` of a page each), a read that meets
    /// many (replay, users) reads the whole key store once instead; a sign-in never gets there.
    public static let lookupsBeforeLoading = 32

    /// About how many lines a read must have ahead for `preload` to be worth a thread (a
    /// checkpoint's tail of a few thousand lines meets few subjects).
    static let linesWorthPreloading = 50_000

    private let state: Mutex<State>
    /// Every account key of the store, once `preload` read it whole: looked up without the lock.
    /// Published under the lock, after the erasures the ring had learnt were marked in it.
    private let table = AtomicLazyReference<AccountKeyTable>()
    /// `table`'s object once published, as bits: read on every member opened, without the retain
    /// and release of `table.load()` (`table` keeps it alive as long as the ring).
    private let tableBits = Atomic<UInt>(0)
    /// Bumped whenever a subject's key stops being usable in this process (`forget`, `noteErased`):
    /// the threads' last-key caches (`ThreadCache`) hold only while it has not moved.
    private let generation = Atomic<UInt64>(0)
    /// Where the key store is.
    public let path: String
    /// The subjects whose members did not open in this process (no key, or a member that fails to
    /// open under its key: data loss or changed bytes) and that no erasure the ring noted names.
    private let unopened = Mutex<Set<SubjectID>>([])

    /// The subjects an erasure of the log names whose key the key store still held when this
    /// process met the erasure (the store restored from a backup taken before it): a read destroys
    /// them afterwards (`LogSource.finishErasures`), as a start must. A key this process destroys
    /// itself (`forget`) leaves the set.
    private let keptAfterErasure = Mutex<Set<SubjectID>>([])

    /// The erased subjects whose key the key store still held when this process met their erasure.
    public var erasedSubjectsWithKeysKept: Set<SubjectID> { keptAfterErasure.withLock { $0 } }

    /// `subjects` were looked at under the writers' lock (`LogSource.finishErasures`): their keys
    /// are destroyed now, so they leave `erasedSubjectsWithKeysKept`.
    func noteLooked(_ subjects: Set<SubjectID>) { keptAfterErasure.withLock { $0.subtract(subjects) } }

    /// How many subjects' members did not open and were not erased (`verify` names them:
    /// `missing-key`); a read shows their members as erased.
    public var subjectsNotOpened: Int { unopened.withLock { $0.count } }

    /// `opened`, noting its subject when it did not open (the rare path: a lock only then).
    private func noting(_ opened: OpenedMember, _ subject: @autoclosure () -> SubjectID) -> OpenedMember {
        switch opened {
        case .missingKey, .unreadable:
            let subject = subject()
            unopened.withLock { _ = $0.insert(subject) }
        default: break
        }
        return opened
    }

    /// The ring of data directory `directory`; its key store is opened read-only, on first use.
    public convenience init(directory: String) { self.init(keyStorePath: FileSystem.join(directory, KeyStore.fileName)) }

    /// The ring over the key store file at `keyStorePath` (a copy: `export --keys`).
    public init(keyStorePath: String) {
        path = keyStorePath
        state = Mutex(State())
    }

    /// The text of `member`, opened with its subject's key.
    public func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        noting(opening(member, eventID: eventID, type: type, name: name), member.subject)
    }

    private func opening(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        // The members of one line, and a registration's lines, share a subject: this thread's last
        // key serves them without the lock.
        let cache = ThreadCache.current
        let generation = generation.load(ordering: .acquiring)
        let account = member.subject.accountBits
        if cache.ring === self, cache.generation == generation, let key = cache.key,
           account.map({ $0 == cache.account }) ?? (cache.address == member.subject) {
            return Self.open(member, eventID: eventID, type: type, name: name, key: key)
        }
        if let account, let table = table.load(), let entry = table.entry(of: account) {
            return table.open(entry) { key in
                Self.opened { () throws(MemberCipherError) in try MemberCipher.decrypt(member, eventID: eventID, type: type, member: name, key: key) }
            } ?? .erased
        }
        return use(entry(for: member.subject, account: account), cache: cache, generation: generation, account: account,
                   address: account == nil ? member.subject : nil) { key in
            Self.open(member, eventID: eventID, type: type, name: name, key: key)
        }
    }

    /// The text of `member`, read in place, opened with its subject's key: an account's key is found
    /// by its uid's bits, without spelling its id.
    public func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
        noting(opening(member, eventID: eventID, type: type, name: name), member.subject)
    }

    /// Asks for the key table's line of `uid` once the table is published (a hint: nothing else).
    public func prepareToOpen(account uid: UUIDBits) {
        let bits = tableBits.load(ordering: .acquiring)
        guard bits != 0 else { return }
        Unmanaged<AccountKeyTable>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef { $0.prefetch(uid) }
    }

    private func opening(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
        // Once the store was read whole, an account's key is found there first: without the lock,
        // the thread's cache or a reference count (an erasure marks the table's entry itself; a key
        // made since, or an entry the table cannot answer for, is looked up below).
        if let account = member.account, case let bits = tableBits.load(ordering: .acquiring), bits != 0,
           let opened = Unmanaged<AccountKeyTable>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef({ table -> OpenedMember? in
               guard let entry = table.entry(of: account) else { return nil }
               return table.open(entry) { key in
                   Self.opened { () throws(MemberCipherError) in try MemberCipher.decrypt(member, eventID: eventID, type: type, member: name, key: key) }
               } ?? .erased
           }) {
            return opened
        }
        let cache = ThreadCache.current
        let generation = generation.load(ordering: .acquiring)
        let sameSubject: Bool
        if let account = member.account { sameSubject = cache.account == account } else { sameSubject = cache.holdsAddress(member.subjectBytes) }
        if sameSubject, cache.ring === self, cache.generation == generation, let key = cache.key {
            return Self.open(member, eventID: eventID, type: type, name: name, key: key)
        }
        let known = member.account.flatMap { uid in state.withLock { $0.entries.accounts[uid] } }
        let subject = known == nil ? member.subject : nil
        return use(known.map { .success($0) } ?? entry(for: subject!, account: member.account), cache: cache, generation: generation,
                   account: member.account, address: member.account == nil ? subject : nil) { key in
            Self.open(member, eventID: eventID, type: type, name: name, key: key)
        }
    }

    /// What `entry` gives: `body` of the key (kept as this thread's last), or why there is none.
    private func use(_ entry: Result<Entry, KeyStoreError>, cache: ThreadCache, generation: UInt64, account: UUIDBits?, address: SubjectID?,
                     _ body: (LiveKey) -> OpenedMember) -> OpenedMember {
        switch entry {
        case .success(.key(let key)):
            cache.ring = self; cache.generation = generation; cache.account = account; cache.address = address; cache.key = key
            return body(key)
        case .success(.erased): return .erased
        case .success(.absent): return .missingKey
        case .failure(let error): return .unreadable(error.message)
        }
    }

    /// What the ring knows of `subject` (`account`: its uid, for an account), looked up in the key
    /// store when it knows nothing yet.
    private func entry(for subject: SubjectID, account: UUIDBits?) -> Result<Entry, KeyStoreError> {
        state.withLock { state -> Result<Entry, KeyStoreError> in
            let known: Entry? = if let account { state.entries.accounts[account] } else { state.entries.addresses[subject] }
            if let known { return .success(known) }
            do throws(KeyStoreError) {
                if state.store == nil {
                    guard access(path, F_OK) == 0 else { return .success(.absent) }
                    state.store = try KeyStore(path: path, writable: false)
                }
                if !state.loaded, !state.preloading, state.lookups >= Self.lookupsBeforeLoading {
                    // The whole store once (what the ring learnt meanwhile, e.g. an erasure, stays);
                    // a subject still missing is looked up alone below (a key made since).
                    state.loaded = true
                    if let (accounts, addresses) = try? state.store!.keyTable() {
                        publish(accounts, addresses: addresses, into: &state)
                        if let known = state.entries[subject] { return .success(known) }
                        if let account, let entry = accounts.entry(of: account) {
                            // This call's key as the ring's other keys, where `noteErased` finds it.
                            let known: Entry = accounts.open(entry) { .key(LiveKey(Array($0))) } ?? .erased(opened: false)
                            state.entries[subject] = known
                            return .success(known)
                        }
                    }
                }
                state.lookups += 1
                let entry: Entry = switch try state.store!.state(of: subject) {
                case .live: try state.store!.key(for: subject).map { .key(LiveKey($0)) } ?? .erased(opened: false)
                case .erased: .erased(opened: false)
                case .absent: .absent
                }
                state.entries[subject] = entry
                return .success(entry)
            } catch {
                return .failure(error)
            }
        }
    }

    /// The entries of every subject of a whole key store (`KeyStore.subjects`).
    private static func entries(of all: [(subject: SubjectID, key: [UInt8]?)]) -> Entries {
        var entries = Entries()
        entries.accounts.reserveCapacity(all.count)
        for (subject, key) in all {
            let entry: Entry = key.map { .key(LiveKey($0)) } ?? .erased(opened: false)
            if let uid = subject.accountBits { entries.accounts[uid] = entry } else { entries.addresses[subject] = entry }
        }
        return entries
    }

    /// Makes `loaded` (a whole store's entries) what `state` knows, keeping what it learnt before
    /// (an erasure noted, a key looked up since the store was read): O(what it knew before).
    private static func adopt(_ loaded: Entries, into state: inout State) {
        var merged = loaded
        for (uid, entry) in state.entries.accounts { merged.accounts[uid] = entry }
        for (subject, entry) in state.entries.addresses { merged.addresses[subject] = entry }
        state.entries = merged
        state.loaded = true
    }

    /// `member` opened with `key`, marked opened first: a `noteErased` that runs while it opens
    /// reports it, so what it gave is read again.
    private static func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String, key: LiveKey) -> OpenedMember {
        if !key.opened.load(ordering: .relaxed) { key.opened.store(true, ordering: .sequentiallyConsistent) }
        return opened { () throws(MemberCipherError) in try MemberCipher.decrypt(member, eventID: eventID, type: type, member: name, key: key.bytes) }
    }

    /// `open(_:eventID:type:name:key:)` of a member read in place.
    private static func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String, key: LiveKey) -> OpenedMember {
        if !key.opened.load(ordering: .relaxed) { key.opened.store(true, ordering: .sequentiallyConsistent) }
        return opened { () throws(MemberCipherError) in try MemberCipher.decrypt(member, eventID: eventID, type: type, member: name, key: key.bytes) }
    }

    /// The text `decrypt` gives, or why it gives none.
    private static func opened(_ decrypt: () throws(MemberCipherError) -> String) -> OpenedMember {
        do throws(MemberCipherError) {
            return .text(try decrypt())
        } catch {
            return .unreadable(error.description)
        }
    }

    // MARK: - Preloading

    /// Starts reading the whole key store on a thread of its own, for a read about to open the
    /// members of many subjects (a replay from the first line): the lines' first members are opened
    /// meanwhile with keys looked up one by one, and no thread waits on the ring's lock while the
    /// store is read. Nil when there is nothing to read (no key store, or read already); the caller
    /// joins the thread before it returns, so none outlives its read.
    func preload() -> JoinableThread? {
        let path = path
        let start = state.withLock { state -> Bool in
            guard !state.loaded, !state.preloading, access(path, F_OK) == 0 else { return false }
            state.preloading = true
            return true
        }
        guard start else { return nil }
        return JoinableThread { [self] in
            // A store of its own: the ring's (behind the lock) serves the lookups meanwhile.
            let loaded = try? KeyStore(path: path, writable: false).keyTable()
            state.withLock { state in
                state.preloading = false
                guard let (accounts, addresses) = loaded, !state.loaded else { return }
                publish(accounts, addresses: addresses, into: &state)
            }
        }
    }

    /// Makes a whole store's keys what the ring reads from now on (under the lock): the accounts'
    /// table, published once what the ring learnt meanwhile is marked in it (an erasure noted
    /// before it existed stays), and the addresses' entries.
    private func publish(_ accounts: AccountKeyTable, addresses: [(subject: SubjectID, key: [UInt8]?)], into state: inout State) {
        for (uid, entry) in state.entries.accounts {
            if case .erased = entry, let erased = accounts.entry(of: uid) { _ = accounts.erase(erased) }
        }
        Self.adopt(Self.entries(of: addresses), into: &state)
        let published = table.storeIfNil(accounts)
        tableBits.store(UInt(bitPattern: Unmanaged.passUnretained(published).toOpaque()), ordering: .releasing)
    }

    /// True when the key store exists (a data version 2 folder).
    public var hasKeyStore: Bool { access(path, F_OK) == 0 }

    /// Forgets what the ring read of `subject`: its key was destroyed (by this process).
    public func forget(_ subject: SubjectID) {
        state.withLock { state in
            let opened = tableErase(subject)?.opened ?? false
            state.entries[subject] = .erased(opened: Self.opened(state.entries[subject]) || opened)
        }
        keptAfterErasure.withLock { _ = $0.remove(subject) }
        generation.add(1, ordering: .sequentiallyConsistent)
    }

    /// Marks `subject` erased in the key table, when it is there (nil otherwise): whether members
    /// were opened with its key from the table, and whether the key was live there. Called under
    /// the lock, as the table is published.
    private func tableErase(_ subject: SubjectID) -> (opened: Bool, wasLive: Bool)? {
        guard let uid = subject.accountBits, let table = table.load(), let entry = table.entry(of: uid) else { return nil }
        return table.erase(entry)
    }

    /// The log erases `subject`: its members open as erased from now on, whatever the key store
    /// holds; true when some were opened to text before (see `PersonalDataOpener.noteErased`). A
    /// key the store still holds for it is noted (`erasedSubjectsWithKeysKept`).
    public func noteErased(_ subject: SubjectID) -> Bool {
        unopened.withLock { _ = $0.remove(subject) }
        let (opened, kept) = state.withLock { state -> (Bool, Bool) in
            let entry = state.entries[subject]
            state.entries[subject] = .erased(opened: false)
            let fromTable = tableErase(subject)
            generation.add(1, ordering: .sequentiallyConsistent)
            // A key the ring holds, or the table read from the store, answers; otherwise the store
            // is asked (what the ring learnt may be older than the file: a store restored since this
            // process destroyed the key). One `pread` per erasure event of an address, at most.
            let kept: Bool = if case .key? = entry { true } else if let fromTable { fromTable.wasLive } else { storeHoldsLiveKey(of: subject, &state) }
            return (Self.opened(entry) || fromTable?.opened == true, kept)
        }
        if kept { keptAfterErasure.withLock { _ = $0.insert(subject) } }
        return opened
    }

    /// True when the key store holds a live key of `subject` (one `pread`; the store opened
    /// read-only when it was not yet), whatever the ring knows: nothing is noted.
    func storeHoldsLiveKey(of subject: SubjectID) -> Bool { state.withLock { storeHoldsLiveKey(of: subject, &$0) } }

    /// True when the key store holds a live key of `subject` (one `pread`; the store opened
    /// read-only when it was not yet). Called under the lock, for an erasure event only.
    private func storeHoldsLiveKey(of subject: SubjectID, _ state: inout State) -> Bool {
        if state.store == nil {
            guard access(path, F_OK) == 0, let store = try? KeyStore(path: path, writable: false) else { return false }
            state.store = store
        }
        return (try? state.store?.state(of: subject)) == .live
    }

    /// True when members of the subject of `entry` were opened to text and not reported since.
    private static func opened(_ entry: Entry?) -> Bool {
        switch entry {
        case .key(let key)?: key.opened.load(ordering: .relaxed)
        case .erased(let opened)?: opened
        case .absent?, nil: false
        }
    }
}
