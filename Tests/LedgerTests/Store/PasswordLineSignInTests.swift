import LedgerDomain
import LedgerKit
import Testing

// MARK: - The password line a sign-in reads

/// After a `PasswordChanged`, the file store's index, the PostgreSQL tables and the fold (a store
/// without an index) all take the hash from the account's newest password line, not from its `AccountCreated`.
extension SignInIndexTests {
    @Test(arguments: [Backend.file, .postgres])
    func aPasswordChangeMovesTheHashEveryStoreReads(backend: Backend) throws {
        try withStores(backend, clock: FixedClock(step: 1)) { make in
            let store = try make(4)
            let uid = Fixtures.uuid(701), other = Fixtures.uuid(702), email = "moved@example.com"
            let registration: [LedgerEvent] = [
                .accountCreated(AccountCreated(uid: uid, email: email, passwordHash: "$y$j9T$first$h")),
                .profileWritten(ProfileWritten(uid: uid, email: email, userName: "M", profileImageName: nil, createdAt: FixedClock.start)),
            ]
            _ = try store.append(registration, to: Fixtures.stream(.registration, 40_000), expected: .noStream)
            let account = StreamCategory.account.stream(uid)
            func record() throws -> (stored: SignInRecord?, folded: SignInRecord) {
                let fold = try SessionService(store: FoldingStore(store), signInLocks: SequentialSignInLocks(), clock: FixedClock(),
                                              random: SecureRandom(), hasher: PasswordHasher(cost: 1)).signInRecord(email: email)
                return (try store.signInRecord(email: email), fold)
            }
            var expected = 0
            for (n, (changed, reason)) in [("$y$j9T$second$h", PasswordChangeReason.change), ("$y$j9T$third$h", .reset)].enumerated() {
                _ = try store.append([.passwordChanged(PasswordChanged(uid: uid, passwordHash: changed, reason: reason))], to: account,
                                     expected: expected == 0 ? .noStream : .exactly(expected))
                expected += 1
                // Another account's change in between: never this email's hash.
                _ = try store.append([.passwordChanged(PasswordChanged(uid: other, passwordHash: "$y$j9T$other\(n)$h", reason: .change))],
                                     to: StreamCategory.account.stream(other), expected: .any)
                let (stored, folded) = try record()
                #expect(folded.account == SignInRecord.Account(uid: uid, passwordHash: changed), "\(backend)")
                #expect(stored == folded, "\(backend): the store answers from its index, as the fold does")
            }
        }
    }
}
