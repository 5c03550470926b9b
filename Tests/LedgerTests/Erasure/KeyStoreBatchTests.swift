import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - KeyStoreBatchTests

/// The keys of a group made at once (`KeyStore.createKeys`): each subject one key however often it
/// is named, new subjects whose windows meet in distinct slots, the keys `createKey` finds again
/// (after a reopen too), through a growth, and an erased subject refused on its own.
struct KeyStoreBatchTests {
    static func subject(_ n: Int) -> SubjectID { KeyStoreTests.subject(n) }

    /// How many slots of the file at `path` are live and name `subject` (nil: any subject).
    static func liveSlots(_ path: String, naming subject: SubjectID? = nil) throws -> Int {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var count = 0
        var at = KeyStoreLayout.headerSize
        while at + KeyStoreLayout.slotSize <= bytes.count {
            if case .slot(let slot) = KeySlot.decode(bytes[at..<(at + KeyStoreLayout.slotSize)]), slot.state == .live,
               subject == nil || slot.subject == subject {
                count += 1
            }
            at += KeyStoreLayout.slotSize
        }
        return count
    }

    @Test("700 new subjects, each named twice, in a table of 1,024: one key each, in its own slot, found again after a reopen")
    func eachSubjectGetsOneKeyInItsOwnSlot() throws {
        try withTempDirectory { dir in
            let store = try KeyStore(directory: dir)
            let subjects = (0..<700).map(Self.subject)
            let made = try store.createKeys(for: subjects + subjects.reversed(), random: SecureRandom())
            #expect(made.count == 700)
            let keys = try subjects.map { try #require(try made[$0]?.get()) }
            #expect(Set(keys).count == 700)
            #expect(try Self.liveSlots(store.path) == 700)
            let reopened = try KeyStore(directory: dir, writable: false)
            for (subject, key) in zip(subjects, keys) {
                #expect(try store.key(for: subject) == key && reopened.key(for: subject) == key)
                #expect(try store.createKey(for: subject, random: SecureRandom()) == key)
            }
            // Asked again, the same keys, and no slot more.
            let again = try store.createKeys(for: subjects, random: SecureRandom())
            #expect(try subjects.map { try again[$0]!.get() } == keys)
            #expect(try Self.liveSlots(store.path) == 700)
        }
    }

    @Test("3,000 new subjects at once grow the table on the way: every key is found again")
    func aGrowthOnTheWayKeepsEveryKey() throws {
        try withTempDirectory { dir in
            let store = try KeyStore(directory: dir)
            let subjects = (0..<3_000).map(Self.subject)
            let made = try store.createKeys(for: subjects, random: SecureRandom())
            let reopened = try KeyStore(directory: dir, writable: false)
            for subject in subjects {
                let key = try #require(try made[subject]?.get())
                #expect(try reopened.key(for: subject) == key)
            }
            #expect(try Self.liveSlots(store.path) == 3_000)
        }
    }

    @Test("an erased subject is refused on its own: the others get their keys")
    func anErasedSubjectIsRefusedAlone() throws {
        try withTempDirectory { dir in
            let store = try KeyStore(directory: dir)
            let erased = Self.subject(1), other = Self.subject(2), existing = Self.subject(3)
            try store.erase(subject: erased)
            let old = try store.createKey(for: existing, random: SecureRandom())
            let made = try store.createKeys(for: [erased, other, existing], random: SecureRandom())
            #expect(KeyStoreTests.code { try made[erased]!.get() } == .subjectErased)
            #expect(try made[existing]!.get() == old)
            #expect(try store.key(for: other) == made[other]!.get())
            #expect(try store.state(of: erased) == .erased)
        }
    }

    @Test("with syncing off the new keys wait for sync(), as createKey's do")
    func keysMadeWithSyncingOffWaitForSync() throws {
        try withTempDirectory { dir in
            let store = try KeyStore(directory: dir)
            store.syncsEachWrite = false
            _ = try store.createKeys(for: [Self.subject(1), Self.subject(2)], random: SecureRandom())
            #expect(store.hasUnsyncedKeys)
            try store.sync()
            #expect(!store.hasUnsyncedKeys)
            _ = try store.createKeys(for: [Self.subject(1)], random: SecureRandom())
            #expect(!store.hasUnsyncedKeys, "a key found is not a key made")
        }
    }
}
