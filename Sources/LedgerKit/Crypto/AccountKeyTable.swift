import Glibc
import LedgerDomain
import Synchronization

// MARK: - AccountKeyTable

/// The account keys of a whole key store, read in one pass (`KeyStore.keyTable`) for a read that
/// opens the members of many accounts: each key inline in one buffer, found by its uid's bits in an
/// open-addressed table, so the scanner's threads look keys up without a lock, a dictionary or a
/// reference count. Built once and never grown; what changes afterwards is only each entry's state
/// (erased in this process: `KeyRing.forget`, `noteErased`) and whether members were opened with it,
/// both atomics, so that an opening and an erasure running at once never miss each other.
final class AccountKeyTable: @unchecked Sendable {
    /// An entry's state (0: an empty line). `ambiguous`: the store has two slots for the uid (a
    /// damaged store); the table does not say which one a lookup of the store finds, so it
    /// answers nothing and the ring asks the store itself.
    enum State: UInt8 { case live = 1, erased = 2, ambiguous = 3 }

    /// Bytes of a line: the uid's bits (16), the key (32, zeros when erased), the state and the
    /// opened mark (atomics), padding. One cache line: a lookup that finds its uid has its key.
    private static let line = 64
    private static let keyAt = 16, stateAt = 48, openedAt = 49

    /// Entries.
    private(set) var count = 0
    /// Lines minus one (a power of two minus one).
    private let mask: Int
    private let lines: UnsafeMutableRawPointer

    /// A table of the `entries` (an account's uid and its key, nil when erased); a uid that comes
    /// twice (a damaged store) is `ambiguous`.
    init(_ entries: [(uid: UUIDBits, key: UnsafeRawBufferPointer?)]) {
        var capacity = 16
        while capacity < entries.count + entries.count / 3 + 1 { capacity <<= 1 }
        mask = capacity - 1
        lines = .allocate(byteCount: capacity * Self.line, alignment: Self.line)
        memset(lines, 0, capacity * Self.line)
        for i in 0..<capacity {
            _ = (lines + i * Self.line + Self.stateAt).initializeMemory(as: Atomic<UInt8>.self, to: Atomic(0))
            _ = (lines + i * Self.line + Self.openedAt).initializeMemory(as: Atomic<Bool>.self, to: Atomic(false))
        }
        for entry in entries {
            var at = Self.home(entry.uid) & mask
            while state(at) != 0, uid(at) != entry.uid { at = (at + 1) & mask }
            if state(at) != 0 {
                stateOf(at).pointee.store(State.ambiguous.rawValue, ordering: .relaxed)
                continue
            }
            count += 1
            let line = lines + at * Self.line
            line.storeBytes(of: entry.uid.high, as: UInt64.self)
            (line + 8).storeBytes(of: entry.uid.low, as: UInt64.self)
            if let key = entry.key, key.count == AESGCM.keySize {
                memcpy(line + Self.keyAt, key.baseAddress!, AESGCM.keySize)
                stateOf(at).pointee.store(State.live.rawValue, ordering: .relaxed)
            } else {
                memset(line + Self.keyAt, 0, AESGCM.keySize)
                stateOf(at).pointee.store(State.erased.rawValue, ordering: .relaxed)
            }
        }
    }

    deinit {
        memset(lines, 0, (mask + 1) * Self.line)  // no key outlives the table in its memory
        lines.deallocate()
    }

    /// Where `uid` sits first: hashed with the process's random seed (`UUIDBits.seededHash`, as
    /// the views' indexes), so that uids forged to collide cannot make the table's probes long.
    @inline(__always)
    private static func home(_ uid: UUIDBits) -> Int { uid.seededHash }

    private func uid(_ at: Int) -> UUIDBits {
        let line = UnsafeRawPointer(lines + at * Self.line)
        return UUIDBits(high: line.load(as: UInt64.self), low: line.load(fromByteOffset: 8, as: UInt64.self))
    }

    private func stateOf(_ at: Int) -> UnsafeMutablePointer<Atomic<UInt8>> {
        (lines + at * Self.line + Self.stateAt).assumingMemoryBound(to: Atomic<UInt8>.self)
    }

    private func openedOf(_ at: Int) -> UnsafeMutablePointer<Atomic<Bool>> {
        (lines + at * Self.line + Self.openedAt).assumingMemoryBound(to: Atomic<Bool>.self)
    }

    /// A line's state, 0 when empty (only an entry's state changes once built: never empty again).
    private func state(_ at: Int) -> UInt8 { stateOf(at).pointee.load(ordering: .relaxed) }

    /// Asks for the cache line where a lookup of `uid` starts (`entry(of:)` soon after finds it
    /// there); reads nothing.
    func prefetch(_ uid: UUIDBits) { MemoryHint.prefetch(lines + (Self.home(uid) & mask) * Self.line) }

    /// The entry of `uid`, nil when the table has none (or cannot say: `ambiguous`).
    func entry(of uid: UUIDBits) -> Int? {
        var at = Self.home(uid) & mask
        while case let state = state(at), state != 0 {
            if self.uid(at) == uid { return state == State.ambiguous.rawValue ? nil : at }
            at = (at + 1) & mask
        }
        return nil
    }

    /// `body` of the key of `entry` when it is live, marked opened first; nil when it was erased.
    /// Marking before reading the state again, as `erase` changes the state before taking the
    /// mark, means an erasure that runs meanwhile either sees this opening or is seen by it. An
    /// entry already erased is never marked: an erasure reports each opening once.
    func open<T>(_ entry: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        let state = stateOf(entry)
        guard state.pointee.load(ordering: .acquiring) == State.live.rawValue else { return nil }
        let opened = openedOf(entry)
        if !opened.pointee.load(ordering: .relaxed) { opened.pointee.store(true, ordering: .sequentiallyConsistent) }
        guard state.pointee.load(ordering: .sequentiallyConsistent) == State.live.rawValue else { return nil }
        return body(UnsafeRawBufferPointer(start: lines + entry * Self.line + Self.keyAt, count: AESGCM.keySize))
    }

    /// Marks `entry` erased: `opened` is true when members were opened with its key since it was
    /// last asked (the mark is taken: a second erasure of the same entry reports nothing new), `wasLive`
    /// when the key was there until now (the store read held it).
    func erase(_ entry: Int) -> (opened: Bool, wasLive: Bool) {
        let before = stateOf(entry).pointee.exchange(State.erased.rawValue, ordering: .sequentiallyConsistent)
        return (openedOf(entry).pointee.exchange(false, ordering: .sequentiallyConsistent), before == State.live.rawValue)
    }
}
