import Foundation
import LedgerDomain
@testable import LedgerKit
import Synchronization
import Testing

// MARK: - AccountKeyTableTests

/// The key table a ring reads a whole key store into (`KeyStore.keyTable`, `AccountKeyTable`): it
/// holds exactly the store's accounts with their keys and states, what `subjects()` says of every
/// slot; an opening and an erasure never miss each other; and a ring reading from it answers as a
/// ring looking keys up one by one, an erasure noted after an opening included.
@Suite struct AccountKeyTableTests {
    /// A store with `count` accounts (every seventh erased) and two address days.
    static func store(_ dir: String, count: Int) throws -> KeyStore {
        let store = try KeyStore(directory: dir)
        store.syncsEachWrite = false
        let random = SeededRandom(seed: 11)
        for n in 0..<count {
            let subject = SubjectID.account(Self.uid(n))
            _ = try store.createKey(for: subject, random: random)
            if n % 7 == 3 { try store.erase(subject: subject) }
        }
        for day in ["address-2026-11-29", "address-2026-11-30"] { _ = try store.createKey(for: SubjectID(day)!, random: random) }
        try store.erase(subject: SubjectID("address-2026-11-30")!)
        return store
    }

    static func uid(_ n: Int) -> UUIDBits {
        let random = SeededRandom(seed: UInt64(n) &+ 99)
        return UUIDBits(high: random.next() & 0xFFFF_FFFF_FFFF_0FFF | 0x4000, low: random.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000)
    }

    @Test(arguments: [0, 1, 500, 3000])
    func theTableHoldsWhatTheStoreSays(count: Int) throws {
        try withTempDirectory { dir in
            let store = try Self.store(dir, count: count)
            let (table, addresses) = try store.keyTable()
            let slots = try store.subjects()
            #expect(table.count == count)
            for (subject, key) in slots {
                guard let uid = subject.accountBits else { continue }
                let entry = try #require(table.entry(of: uid), "\(subject)")
                let found = table.open(entry) { Array($0) }
                #expect(found == key, "\(subject): the same key, or erased (nil) as the store says")
            }
            #expect(Dictionary(uniqueKeysWithValues: addresses.map { ($0.subject.text, $0.key) })
                == Dictionary(uniqueKeysWithValues: slots.filter { $0.subject.accountBits == nil }.map { ($0.subject.text, $0.key) }))
            for n in count..<(count + 200) { #expect(table.entry(of: Self.uid(n)) == nil, "never in the store") }
        }
    }

    @Test func aUidTheStoreHoldsTwiceIsLeftToTheStore() throws {
        let first = [UInt8](repeating: 1, count: 32), last = [UInt8](repeating: 2, count: 32)
        let uid = Self.uid(1)
        let table = first.withUnsafeBytes { a in last.withUnsafeBytes { b in AccountKeyTable([(uid, a), (Self.uid(2), nil), (uid, b)]) } }
        #expect(table.entry(of: uid) == nil, "which slot a lookup of the store finds is the store's to say")
        #expect(table.open(try #require(table.entry(of: Self.uid(2)))) { Array($0) } == nil)
    }

    @Test func anOpeningAndAnErasureSeeEachOther() throws {
        let key = [UInt8](repeating: 9, count: 32)
        let table = key.withUnsafeBytes { AccountKeyTable([(Self.uid(1), $0), (Self.uid(2), $0)]) }
        let opened = try #require(table.entry(of: Self.uid(1))), untouched = try #require(table.entry(of: Self.uid(2)))
        #expect(table.open(opened) { Array($0) } == key)
        #expect(table.erase(opened) == (opened: true, wasLive: true), "opened before: what it gave must be read again")
        #expect(table.open(opened) { Array($0) } == nil, "erased from now on")
        #expect(table.erase(untouched) == (opened: false, wasLive: true), "never opened, its key there until now")
        #expect(table.open(untouched) { Array($0) } == nil)
        // An erased entry is never marked by an attempt to open it: a read that starts over
        // because of an erasure is not told to start over again by the same erasure.
        #expect(table.open(opened) { Array($0) } == nil)
        #expect(table.erase(opened) == (opened: false, wasLive: false), "reported once; no key left")
    }

    /// A read of a log whose key store the ring loads into its table (more subjects than it looks
    /// up one by one), with accounts erased late in the log: the read ends, the erased accounts read
    /// as erased and the others as before. (An erased entry marked as opened made such a read start
    /// over for ever.)
    @Test func aReadWithErasuresLateInTheLogEnds() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 5))
            let count = KeyRing.lookupsBeforeLoading * 2
            for n in 0..<count {
                _ = try store.append([Fixtures.event(.accountCreated, n)], to: Fixtures.stream(.registration, n), expected: .noStream)
            }
            let erased = [count - 1, count - 7, 3]
            for n in erased {
                let uid = Fixtures.uuid(1000 + n)
                _ = try store.append([.personalDataErased(PersonalDataErased(uid: uid, reason: .accountDeleted))],
                                     to: StreamCategory.account.stream(uid), expected: .any)
                try store.destroyKeys(of: [SubjectID.account(UUIDBits(uuid: uid)!)])
            }
            let done = DispatchSemaphore(value: 0)
            let result = Mutex<Result<LedgerViews, any Error>?>(nil)
            Thread.detachNewThread {
                let loaded = Result { try ViewLoader.load(path: dir + "/events.jsonl", asOf: nil, now: Timestamp(millis: 0)).views }
                result.withLock { $0 = loaded }
                done.signal()
            }
            guard done.wait(timeout: .now() + 60) == .success else {
                Issue.record("the read did not end within a minute")
                return
            }
            let views = try #require(result.withLock { $0 }).get()
            for n in 0..<count {
                let row = try #require(views.users.row(uid: Fixtures.uuid(1000 + n)))
                #expect(row.email == (erased.contains(n) ? "" : "user\(n)@example.com"), "account \(n)")
            }
        }
    }

    @Test func aStoreWithATornSlotGivesNoTable() throws {
        try withTempDirectory { dir in
            let store = try Self.store(dir, count: 40)
            let path = FileSystem.join(dir, KeyStore.fileName)
            var bytes = try readBytes(path)
            let slot = try #require(stride(from: 128, to: bytes.count, by: 128).first { bytes[$0] == 1 })
            bytes[slot + 80] ^= 0x04
            try writeBytes(bytes, to: path)
            #expect(throws: KeyStoreError.self) { try KeyStore(directory: dir).keyTable() }
            _ = store
        }
    }

    /// A ring whose table served a member is told the log erases that member's subject: it says
    /// the read must start over, and the member opens as erased from then on.
    @Test func aRingReadingFromItsTableAnswersAnErasureAsAPlainRing() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 5))
            for n in 0..<60 {
                _ = try store.append([Fixtures.event(.accountCreated, n)], to: Fixtures.stream(.registration, n), expected: .noStream)
            }
            let lines = splitLines(try readBytes(dir + "/events.jsonl")).map { Array($0.dropLast()) }
            func email(_ ring: KeyRing, _ n: Int) -> String? {
                lines[n].withUnsafeBufferPointer { buffer -> String? in
                    guard case .accountCreated(_, let email, _)? = LineCodec.readInPlace(buffer, opener: ring)?.event.fact else { return nil }
                    return email
                }
            }
            let ring = KeyRing(directory: dir)
            try #require(ring.preload()).join()
            let subject = { (n: Int) in SubjectID.account(UUIDBits(uuid: Fixtures.uuid(1000 + n))!) }
            #expect(email(ring, 4) == "user4@example.com")
            #expect(ring.noteErased(subject(4)), "opened from the table before")
            #expect(email(ring, 4) == "", "erased from now on")
            #expect(!ring.noteErased(subject(5)), "never opened")
            #expect(email(ring, 5) == "")
            ring.forget(subject(6))
            #expect(email(ring, 6) == "", "a key this process destroyed")
            #expect(email(ring, 7) == "user7@example.com", "the others as before")
        }
    }
}
