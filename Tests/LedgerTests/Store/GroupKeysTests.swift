import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - GroupKeysTests

/// The keys of a group commit's lines, made at once by the group's writer (`KeyStore.createKeys`):
/// a new subject that two batches of one group name gets one key; a key store that refuses one
/// subject's key fails the whole group and acknowledges none of it; a group writes the same events,
/// readable the same way, as the batches appended one by one.
struct GroupKeysTests {
    private static let hash = "$y$j9T$abcdefghijklmnop$" + String(repeating: "A", count: 43)

    /// A registration's `AccountCreated` for `uid` and `email`, under `.uniqueEmails`.
    private static func created(_ n: Int, uid: String, email: String) -> GroupedAppend {
        GroupedAppend([StreamAppend([.accountCreated(AccountCreated(uid: uid, email: email, passwordHash: hash))],
                                    to: Fixtures.stream(.registration, n), expected: .noStream)], condition: .uniqueEmails)
    }

    /// An operator's `AccountDisabled` of `uid`, in the account's own stream.
    private static func disabled(uid: String, reason: String) -> GroupedAppend {
        GroupedAppend([StreamAppend([.accountDisabled(AccountDisabled(uid: uid, reason: reason))],
                                    to: StreamCategory.account.stream(uid), expected: .noStream)], condition: nil)
    }

    /// A stranger's refused sign-in (its address sealed under the day's key).
    private static func strangerSignIn(_ n: Int, email: String) -> GroupedAppend {
        GroupedAppend([StreamAppend([.signInFailed(SignInFailed(email: email, reason: .unknownEmail))],
                                    to: Fixtures.stream(.signin, n), expected: .noStream)], condition: nil)
    }

    /// The size of the file at `path`.
    private static func size(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test("two batches of one group that name one new subject: one key, and both lines open with it")
    func twoBatchesNamingOneNewSubjectGetOneKey() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir)
            let uid = Fixtures.uuid(41)
            let outcomes = store.appendGroup([Self.created(1, uid: uid, email: "new@example.com"),
                                              Self.disabled(uid: uid, reason: "a reason only the key opens"),
                                              Self.strangerSignIn(2, email: "one@example.com"),
                                              Self.strangerSignIn(3, email: "two@example.com")])
            #expect(outcomes.allSatisfy { (try? $0.get()) != nil }, "\(outcomes)")
            let account = SubjectID.account(try #require(UUIDBits(uuid: uid)))
            #expect(try KeyStoreBatchTests.liveSlots(store.keyStorePath, naming: account) == 1)
            #expect(try KeyStoreBatchTests.liveSlots(store.keyStorePath) == 2, "the account's key and the day's")
            let read = try FileEventStore(directory: dir).readAll()
            #expect(read.count == 4)
            #expect(read[0].event == .accountCreated(AccountCreated(uid: uid, email: "new@example.com", passwordHash: Self.hash)))
            #expect(read[1].event == .accountDisabled(AccountDisabled(uid: uid, reason: "a reason only the key opens")))
            #expect(read[3].event == .signInFailed(SignInFailed(email: "two@example.com", reason: .unknownEmail)))
            #expect(!read.contains { JSONWriter.string(.object($0.envelope.data)).contains("@example.com") }, "nothing personal in clear")
            #expect(try ledger("verify", "--data", dir).status == 0)
        }
    }

    @Test("a key store that refuses one subject's key fails the whole group: nothing written, nothing acknowledged, later appends go on")
    func aKeyStoreRefusalFailsTheWholeGroup() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir)
            _ = try store.appendGroup([Self.created(1, uid: Fixtures.uuid(1), email: "first@example.com")])[0].get()
            // The slot where the next account's key would go is torn: its key cannot be made.
            let torn = Fixtures.uuid(2)
            let home = KeyStoreLayout.home(of: .account(try #require(UUIDBits(uuid: torn))), capacity: KeyStoreLayout.initialCapacity)
            #expect(home != KeyStoreLayout.home(of: .account(UUIDBits(uuid: Fixtures.uuid(1))!), capacity: KeyStoreLayout.initialCapacity))
            let file = try FileHandle(forUpdating: URL(fileURLWithPath: store.keyStorePath))
            try file.seek(toOffset: UInt64(KeyStoreLayout.offset(ofSlot: home)))
            file.write(Data(repeating: 0xA5, count: KeyStoreLayout.slotSize))
            try file.close()
            let size = try Self.size(store.logPath)
            let outcomes = store.appendGroup([Self.created(3, uid: Fixtures.uuid(3), email: "third@example.com"),
                                              Self.created(2, uid: torn, email: "second@example.com"),
                                              Self.strangerSignIn(4, email: "stranger@example.com")])
            #expect(outcomes.count == 3)
            for outcome in outcomes {
                #expect(throws: StoreError.self) { try outcome.get() }
            }
            #expect("\(outcomes[0])".contains("key store"), "\(outcomes[0])")
            #expect(try Self.size(store.logPath) == size)
            #expect(try FileEventStore(directory: dir).readAll().count == 1)
            // Not poisoned: a group without the torn subject is written.
            let later = store.appendGroup([Self.created(5, uid: Fixtures.uuid(5), email: "fifth@example.com")])
            #expect((try? later[0].get())?.first?.envelope.seq == 2, "\(later)")
        }
    }

    @Test("a group writes the events the same batches appended one by one write: same order, streams, marks and opened data")
    func aGroupWritesWhatTheSerialPathWrites() throws {
        try withTempDirectory { dir in
            func batches() -> [GroupedAppend] {
                [Self.created(1, uid: Fixtures.uuid(1), email: "a@example.com"),
                 Self.disabled(uid: Fixtures.uuid(1), reason: "same subject, other batch"),
                 GroupedAppend([StreamAppend([.accountCreated(AccountCreated(uid: Fixtures.uuid(2), email: "b@example.com", passwordHash: Self.hash)),
                                              .profileWritten(ProfileWritten(uid: Fixtures.uuid(2), email: "b@example.com", userName: "Bee",
                                                                             profileImageName: nil, createdAt: Timestamp(millis: 0)))],
                                             to: Fixtures.stream(.registration, 2), expected: .noStream)], condition: .uniqueEmails),
                 Self.strangerSignIn(3, email: "c@example.com"),
                 Self.strangerSignIn(4, email: "d@example.com")]
            }
            let grouped = FileEventStore(directory: "\(dir)/grouped")
            #expect(grouped.appendGroup(batches()).allSatisfy { (try? $0.get()) != nil })
            let serial = FileEventStore(directory: "\(dir)/serial")
            for batch in batches() { _ = try serial.append(batch.parts, condition: batch.condition) }
            let a = try FileEventStore(directory: "\(dir)/grouped").readAll(), b = try FileEventStore(directory: "\(dir)/serial").readAll()
            #expect(a.count == 6 && a.map(\.event) == b.map(\.event))
            #expect(a.map(\.envelope.seq) == b.map(\.envelope.seq) && a.map(\.envelope.stream) == b.map(\.envelope.stream))
            #expect(a.map(\.envelope.batch) == b.map(\.envelope.batch) && a.map(\.envelope.v) == b.map(\.envelope.v))
            #expect(try KeyStoreBatchTests.liveSlots(grouped.keyStorePath) == KeyStoreBatchTests.liveSlots(serial.keyStorePath))
            #expect(try ledger("verify", "--data", "\(dir)/grouped").status == 0)
        }
    }
}
