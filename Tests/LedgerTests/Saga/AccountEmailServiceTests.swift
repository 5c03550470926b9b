import LedgerDomain
import LedgerKit
import Testing

// MARK: - AccountEmailServiceTests

/// `AccountService` in process: an email change a sign-in follows when the store keeps no index (the
/// folded sign-in record), a taken email refused as the decider's refusals are, and a deleted
/// account's image file removed after the append, or reported when it cannot be.
@Suite struct AccountEmailServiceTests {
    private static let password = "right password here"

    private static func registered(_ store: InMemoryEventStore, _ blobs: MemoryBlobStore, email: String, image: [UInt8]? = nil) throws -> String {
        try withTempDirectory { dir in
            let result = try RegistrationCoordinator(store: store, blobs: blobs, directory: dir, clock: FixedClock(step: 1),
                                                     random: SeededRandom(seed: UInt64(store.events.count + 1)), hasher: PasswordHasher(cost: 1),
                                                     failpoints: Failpoints())
                .register(RegistrationInput(email: email, userName: "Owner", password: password, image: image), idempotencyKey: nil)
            try #require(result.outcome == .completed)
            return try #require(result.uid)
        }
    }

    private static func services(_ store: InMemoryEventStore) -> (AccountService, SessionService) {
        (AccountService(store: store, signInLocks: SequentialSignInLocks(), clock: FixedClock(step: 1)),
         SessionService(store: store, signInLocks: SequentialSignInLocks(), clock: FixedClock(step: 1), random: SeededRandom(seed: 9),
                        hasher: PasswordHasher(cost: 1)))
    }

    @Test func aSignInWithoutAnIndexFollowsTheEmailChange() throws {
        let store = InMemoryEventStore(), blobs = MemoryBlobStore()
        let uid = try Self.registered(store, blobs, email: "before@example.com")
        let (accounts, sessions) = Self.services(store)
        let outcome = try accounts.runHoldingLock({ _ in .changeEmail(newEmail: "after@example.com") }, uid: uid)
        #expect(outcome.appended.map(\.event.type) == [.emailChanged])
        #expect(try sessions.login(email: "after@example.com", password: Self.password).uid == uid)
        #expect(throws: AuthError.self) { _ = try sessions.login(email: "before@example.com", password: Self.password) }
    }

    /// Without an index, a sign-in of an account that moved to its email takes its newest password,
    /// changed before or after the move, never the one it was created with.
    @Test(arguments: [false, true])
    func aSignInWithoutAnIndexTakesTheNewestPasswordOfAnAccountThatMoved(changedBeforeTheMove: Bool) throws {
        let store = InMemoryEventStore(), blobs = MemoryBlobStore()
        let uid = try Self.registered(store, blobs, email: "before@example.com")
        let (accounts, sessions) = Self.services(store)
        let newHash = try PasswordHasher(cost: 1).hash("the new password", random: SeededRandom(seed: 4))
        let steps: [AccountAction] = [.changeEmail(newEmail: "after@example.com"), .changePassword(passwordHash: newHash)]
        for step in changedBeforeTheMove ? steps.reversed() : steps { _ = try accounts.runHoldingLock({ _ in step }, uid: uid) }
        #expect(try sessions.login(email: "after@example.com", password: "the new password").uid == uid)
        #expect(throws: AuthError.self, "the password it was created with no longer signs in") {
            _ = try sessions.login(email: "after@example.com", password: Self.password)
        }
    }

    @Test func aTakenEmailIsTheDecidersKindOfRefusal() throws {
        let store = InMemoryEventStore(), blobs = MemoryBlobStore()
        let uid = try Self.registered(store, blobs, email: "one@example.com")
        _ = try Self.registered(store, blobs, email: "two@example.com")
        let before = store.events.count
        let refusal = try #require(throws: AccountRefusal.self) {
            try Self.services(store).0.runHoldingLock({ _ in .changeEmail(newEmail: "two@example.com") }, uid: uid)
        }
        #expect(refusal.code == .emailTaken && refusal.code.rawValue == "email-already-in-use")
        #expect(store.events.count == before)
    }

    @Test func aDeletedAccountsImageFileIsRemovedOrReported() throws {
        let store = InMemoryEventStore(), blobs = MemoryBlobStore()
        let uid = try Self.registered(store, blobs, email: "image@example.com", image: try readBytes(samplePNG))
        let name = try #require(blobs.names().first)
        let outcome = try Self.services(store).0.run(.delete(reason: .userRequest), account: uid)
        #expect(outcome.appended.map(\.event.type) == [.imageDeleted, .accountDeleted, .sessionEnded], "the account stream's part, then the session's")
        blobs.failRemoves = true
        #expect(AccountService.removeImage(deletedBy: outcome, from: blobs) == .left(name, problem: "injected remove failure"))
        #expect(try blobs.names() == [name], "left for `recover`: the log calls it deleted")
        blobs.failRemoves = false
        #expect(AccountService.removeImage(deletedBy: outcome, from: blobs) == .removed(name))
        #expect(try blobs.names().isEmpty)
        let other = try Self.services(store).0.run(.delete(reason: .operator), account: try Self.registered(store, blobs, email: "plain@example.com"))
        #expect(AccountService.removeImage(deletedBy: other, from: blobs) == .none)
    }

    /// Sign-in locks whose first taking lets `meanwhile` run first, as when another command wins the
    /// race for the lock an instant before; records the emails locked.
    private final class LateSignInLocks: SignInLocks {
        private let inner = SequentialSignInLocks()
        var meanwhile: (() throws -> Void)?
        private(set) var taken: [String] = []

        func acquire(email: String) throws -> any HeldSignInLock {
            if let run = meanwhile { meanwhile = nil; try run() }
            taken.append(email)
            return try inner.acquire(email: email)
        }
    }

    /// An account that moves to another email between being named and its email's lock being taken
    /// is decided under the new email's lock, the one its sign-ins now take (else a sign-in of the new
    /// email could start a session a disable running at once never sees).
    @Test func aCommandDecidesUnderTheLockOfTheEmailTheAccountMovedTo() throws {
        let store = InMemoryEventStore(), blobs = MemoryBlobStore()
        let uid = try Self.registered(store, blobs, email: "moving@example.com")
        let locks = LateSignInLocks()
        locks.meanwhile = { _ = try Self.services(store).0.runHoldingLock({ _ in .changeEmail(newEmail: "moved@example.com") }, uid: uid) }
        let outcome = try AccountService(store: store, signInLocks: locks, clock: FixedClock(step: 1))
            .run(.disable(reason: ""), account: "moving@example.com")
        #expect(outcome.uid == uid && outcome.status == .disabled)
        #expect(locks.taken == ["moving@example.com", "moved@example.com"], "decided holding the lock of the email it holds")
    }
}
