import LedgerDomain
import LedgerKit
import Testing

// The account's life after sign-up through the library, on both stores: the same rules and the same
// refusal codes as the command line's `ledger account …`, the tokens handed to the app.

@Suite struct LedgerLifecycleTests {
    private let password = "correct horse battery"

    @Test(arguments: LibraryStore.allCases)
    func disableEndsSessionsAndRefusesSignInUntilEnabled(_ store: LibraryStore) async throws {
        let place = try store.place("library-disable")
        defer { place.remove() }
        let ledger = try await Ledger.open(place.configuration)
        let account = try await ledger.register(email: "dora@example.com", password: password, userName: "Dora")
        let session = try await ledger.signIn(email: "dora@example.com", password: password)
        let disabled = try await ledger.disable(account: "dora@example.com", reason: "chargeback")
        #expect(disabled.uid == account.uid && disabled.status == "disabled")
        #expect(Set(disabled.endedSessions) == Set([account.sessionId, session.sessionId].compactMap { $0 }))
        await #expect { _ = try await ledger.signIn(email: "dora@example.com", password: self.password) } throws: {
            ($0 as? LedgerError)?.code == .signInRefused
        }
        await #expect { _ = try await ledger.disable(account: account.uid) } throws: { ($0 as? LedgerError)?.code == .alreadyDisabled }
        #expect(try await ledger.enable(account: account.uid).status == "active")
        _ = try await ledger.signIn(email: "dora@example.com", password: password)
        await #expect { _ = try await ledger.enable(account: account.uid) } throws: { ($0 as? LedgerError)?.code == .notDisabled }
        await #expect { _ = try await ledger.disable(account: "nobody@example.com") } throws: { ($0 as? LedgerError)?.code == .noSuchAccount }
        await ledger.close()
        #expect(try place.verify().status == 0)
    }

    @Test(arguments: LibraryStore.allCases)
    func tokensGoToTheAppAndWorkOnce(_ store: LibraryStore) async throws {
        let place = try store.place("library-tokens")
        defer { place.remove() }
        let ledger = try await Ledger.open(place.configuration)
        let account = try await ledger.register(email: "tess@example.com", password: password, userName: "Tess")
        #expect(try await ledger.requestVerification(email: "stranger@example.com") == nil)
        let verification = try #require(try await ledger.requestVerification(email: "Tess@Example.com"))
        #expect(verification.uid == account.uid && verification.email == "tess@example.com")
        #expect(try await ledger.verifyEmail(token: verification.token).uid == account.uid)
        await #expect { _ = try await ledger.verifyEmail(token: verification.token) } throws: { ($0 as? LedgerError)?.code == .tokenRefused }
        #expect(try await ledger.users().first { $0.uid == account.uid }?.emailVerified == true)

        let reset = try #require(try await ledger.requestPasswordReset(email: "tess@example.com"))
        await #expect { _ = try await ledger.resetPassword(token: reset.token, newPassword: "") } throws: { ($0 as? LedgerError)?.code == .invalidInput }
        let changed = try await ledger.resetPassword(token: reset.token, newPassword: "a new long passphrase")
        #expect(changed.endedSessions == [account.sessionId].compactMap { $0 })
        await #expect { _ = try await ledger.resetPassword(token: reset.token, newPassword: "another passphrase") } throws: {
            ($0 as? LedgerError)?.code == .tokenRefused
        }
        await #expect(throws: LedgerError.self) { _ = try await ledger.signIn(email: "tess@example.com", password: self.password) }
        _ = try await ledger.signIn(email: "tess@example.com", password: "a new long passphrase")
        await ledger.close()
        // The tokens were never stored in clear.
        let lines = try place.events().map { "\($0.event)" }.joined()
        #expect(!lines.contains(verification.token) && !lines.contains(reset.token))
        #expect(try place.verify().status == 0)
    }

    @Test(arguments: LibraryStore.allCases)
    func deleteErasesAndFreesTheEmail(_ store: LibraryStore) async throws {
        let place = try store.place("library-delete")
        defer { place.remove() }
        let ledger = try await Ledger.open(place.configuration)
        let kept = try await ledger.register(email: "kept@example.com", password: password, userName: "Kept")
        let gone = try await ledger.register(email: "gone@example.com", password: password, userName: "Gone")
        await #expect { _ = try await ledger.erase(account: gone.uid) } throws: { ($0 as? LedgerError)?.code == .accountLive }
        let held = try await ledger.delete(account: kept.uid, keepPersonalData: true)
        #expect(held.status == "deleted")
        let deleted = try await ledger.delete(account: gone.uid)
        #expect(deleted.status == "deleted" && deleted.endedSessions == [gone.sessionId].compactMap { $0 })
        await #expect { _ = try await ledger.delete(account: gone.uid) } throws: { ($0 as? LedgerError)?.code == .accountDeleted }
        let users = try await ledger.users()
        #expect(users.first { $0.uid == gone.uid }?.email == nil)
        #expect(users.first { $0.uid == kept.uid }?.email == "kept@example.com")
        #expect(try await ledger.erase(account: kept.uid).uid == kept.uid)
        #expect(try await ledger.users().first { $0.uid == kept.uid }?.email == nil)
        // The email is free: a new account takes it.
        _ = try await ledger.register(email: "gone@example.com", password: password, userName: "Again")
        await ledger.close()
        #expect(try place.verify().status == 0)
    }

    /// The owner's commands prove the password as a sign-in does: a wrong one is `signInRefused` and
    /// counted (the sixth attempt finds the account locked, the right password included), an unknown
    /// account gets the same answer as a wrong password, and a right one changes the password, the
    /// email (not to one a live account holds), then deletes the account.
    @Test(arguments: LibraryStore.allCases)
    func theOwnersCommandsProveThePasswordAsSignInDoes(_ store: LibraryStore) async throws {
        let place = try store.place("library-owner")
        defer { place.remove() }
        let ledger = try await Ledger.open(place.configuration)
        let owner = try await ledger.register(email: "owen@example.com", password: password, userName: "Owen")
        _ = try await ledger.register(email: "taken@example.com", password: password, userName: "Taken")
        func code(_ body: () async throws -> Void) async -> LedgerError.Code? {
            do { try await body(); return nil } catch { return (error as? LedgerError)?.code }
        }
        #expect(await code { _ = try await ledger.changePassword(email: "owen@example.com", currentPassword: self.password, newPassword: "") } == .invalidInput)
        #expect(await code { _ = try await ledger.changePassword(email: "owen@example.com", currentPassword: "wrong guess", newPassword: "new passphrase 1") } == .signInRefused)
        #expect(await code { _ = try await ledger.delete(account: "nobody@example.com", password: self.password) } == .signInRefused)
        let changed = try await ledger.changePassword(email: "owen@example.com", currentPassword: password, newPassword: "new passphrase 1")
        #expect(changed.uid == owner.uid && changed.endedSessions == [owner.sessionId].compactMap { $0 })
        #expect(await code { _ = try await ledger.changeEmail(email: "owen@example.com", password: "new passphrase 1", newEmail: "Taken@Example.com") } == .emailTaken)
        #expect(await code { _ = try await ledger.changeEmail(email: "owen@example.com", password: "new passphrase 1", newEmail: "not an email") } == .invalidInput)
        let moved = try await ledger.changeEmail(email: "owen@example.com", password: "new passphrase 1", newEmail: "Owen.New@Example.com")
        #expect(moved.uid == owner.uid)
        #expect(try await ledger.users().first { $0.uid == owner.uid }?.email == "owen.new@example.com")
        // The old email names no account now: deleting by it is refused as a wrong password is.
        #expect(await code { _ = try await ledger.delete(account: "owen@example.com", password: "new passphrase 1") } == .signInRefused)
        let deleted = try await ledger.delete(account: "owen.new@example.com", password: "new passphrase 1")
        #expect(deleted.uid == owner.uid && deleted.status == "deleted")
        #expect(try await ledger.users().first { $0.uid == owner.uid }?.email == nil, "erased with the deletion")
        // Wrong passwords for taken@ are counted as sign-ins count them: the lockout follows.
        for _ in 0..<5 {
            #expect(await code { _ = try await ledger.changePassword(email: "taken@example.com", currentPassword: "wrong", newPassword: "new passphrase 2") } == .signInRefused)
        }
        #expect(await code { _ = try await ledger.signIn(email: "taken@example.com", password: self.password) } == .signInRefused, "locked")
        await ledger.close()
        let failures = try place.events().compactMap { event -> String? in
            if case .signInFailed(let failed) = event.event { failed.reason.rawValue } else { nil }
        }
        #expect(failures.filter { $0 == "wrong-password" }.count == 6)
        #expect(failures.filter { $0 == "locked" }.count == 1)
        #expect(try place.verify().status == 0)
    }
}
