import Foundation
import LedgerKit
import Testing

// One person's whole life through the built `ledger`, on the file store and on PostgreSQL: sign up,
// verify the email, sign in, change the password, be locked out and reset it, change the email and
// verify it, be disabled and enabled, sign out everywhere, delete the account, and sign up again.
// After every step the views, `user --history` and `audit` say what happened and `verify` passes;
// at the end no password and no token is anywhere but where it belongs.

@Suite struct WholeLifeCLITests {
    private static let passwords = ["first life password", "second life password", "third life password"]
    private static let wrong = "a wrong password entirely"

    /// What `audit --json` says: account changes' `change` values and revoked sessions' reasons, in log order.
    private static func audit(_ store: inout MailedStore) throws -> (changes: [String], revoked: [String]) {
        let audit = try store.call(["audit", "--json"])
        #expect(audit.status == 0, "no anomaly: \(audit)")
        let object = try parseObject(audit.stdout)
        let changes = (object["accountChanges"] as? [[String: Any]] ?? []).compactMap { $0["change"] as? String }
        let revoked = (object["sessionsRevoked"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        return (changes, revoked)
    }

    /// The types of `uid`'s history, in log order.
    private static func history(_ store: inout MailedStore, _ uid: String) throws -> [String] {
        let result = try store.call(["user", uid, "--history", "--json"])
        #expect(result.status == 0, "\(result)")
        return try result.stdout.split(separator: "\n").compactMap { (try parseJSON(String($0)) as? [String: Any])?["type"] as? String }
    }

    /// The users view's row of `uid`.
    private static func user(_ store: inout MailedStore, _ uid: String) throws -> [String: Any] {
        let rows = try parseJSON(try store.call(["users", "--json"]).stdout) as? [[String: Any]] ?? []
        return try #require(rows.first { $0["uid"] as? String == uid })
    }

    private static func login(_ store: inout MailedStore, _ email: String, _ password: String) throws -> ProcessResult {
        try store.call(["login", "--email", email, "--password-stdin", "--json"], password + "\n")
    }

    /// Logs in and returns the new session's id.
    private static func session(_ store: inout MailedStore, _ email: String, _ password: String) throws -> String {
        let result = try login(&store, email, password)
        try #require(result.status == 0, "\(result)")
        return try #require(try parseObject(result.stdout)["sessionId"] as? String)
    }

    private static func verified(_ store: inout MailedStore) throws {
        let verify = try store.call(["verify"])
        #expect(verify.status == 0, "\(verify)")
    }

    /// Requests a verification of `email` and redeems its token.
    private static func verifyEmail(_ store: inout MailedStore, _ email: String) throws -> String {
        #expect(try store.call(["account", "send-verification", "--email", email, "--json"]).status == 0)
        let token = try store.mailbox.lastToken()
        let redeemed = try store.call(["account", "verify-email", "--token-stdin", "--json"], token + "\n")
        #expect(redeemed.status == 0, "\(redeemed)")
        return token
    }

    static func wholeLife(_ store: inout MailedStore) throws {
        let first = uniqueEmail("life"), second = uniqueEmail("moved")
        let (p1, p2, p3) = (passwords[0], passwords[1], passwords[2])
        var tokens: [String] = []

        // Sign up, with a profile image.
        let registered = try store.call(LedgerDir.registerArguments(email: first, username: "Life", image: samplePNG), p1 + "\n")
        try #require(registered.status == 0, "\(registered)")
        let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
        let image = try #require(try user(&store, uid)["profileImageName"] as? String)
        let imageFile = store.dir.path + "/profile_image/" + image
        #expect(FileManager.default.fileExists(atPath: imageFile))
        #expect(try user(&store, uid)["emailVerified"] as? Bool == false)
        try verified(&store)

        // Verify the email.
        tokens.append(try verifyEmail(&store, first))
        #expect(try user(&store, uid)["emailVerified"] as? Bool == true)
        #expect(try history(&store, uid).suffix(2) == ["EmailVerificationRequested", "EmailVerified"])
        #expect(try audit(&store).changes == ["verification-requested", "email-verified"])
        try verified(&store)

        // Sign in, then change the password: the session ends, only the new password signs in.
        let s1 = try session(&store, first, p1)
        let changed = try store.call(["account", "change-password", "--email", first, "--password-stdin", "--json"], "\(p1)\n\(p2)\n")
        #expect(changed.status == 0, "\(changed)")
        #expect((try parseObject(changed.stdout)["endedSessions"] as? [String])?.contains(s1) == true, "the sign-up's session and s1 end")
        #expect(try login(&store, first, p1).status == 1)
        let s2 = try session(&store, first, p2)
        #expect(try history(&store, uid).suffix(5) == ["PasswordChanged", "SessionEnded", "SessionEnded", "SignInFailed", "SessionStarted"])
        #expect(try audit(&store).revoked == ["password-changed", "password-changed"], "the sign-up's session and s1")
        try verified(&store)

        // Locked out by wrong passwords; a reset ends the lockout and the session.
        for _ in 0..<5 { _ = try login(&store, first, wrong) }
        #expect(try login(&store, first, p2).status == 1, "locked out")
        #expect(try store.call(["account", "request-reset", "--email", first, "--json"]).status == 0)
        let reset = try store.mailbox.lastToken()
        tokens.append(reset)
        let redeemed = try store.call(["account", "reset-password", "--token-stdin", "--json"], "\(reset)\n\(p3)\n")
        #expect(redeemed.status == 0, "\(redeemed)")
        #expect(try parseObject(redeemed.stdout)["endedSessions"] as? [String] == [s2])
        _ = try session(&store, first, p3)
        #expect(try store.call(["account", "reset-password", "--token-stdin"], "\(reset)\n\(p1)\n").status == 1, "a token is accepted once")
        #expect(try audit(&store).changes.suffix(2) == ["reset-requested", "password-reset"])
        try verified(&store)

        // Change the email: unverified until verified again; the old email is free.
        let moved = try store.call(["account", "change-email", "--email", first, "--new-email", second, "--password-stdin", "--json"], p3 + "\n")
        #expect(moved.status == 0, "\(moved)")
        #expect(try user(&store, uid)["email"] as? String == second)
        #expect(try user(&store, uid)["emailVerified"] as? Bool == false)
        #expect(try login(&store, first, p3).status == 1 && login(&store, second, p3).status == 0)
        tokens.append(try verifyEmail(&store, second))
        #expect(try user(&store, uid)["emailVerified"] as? Bool == true)
        #expect(try audit(&store).changes.suffix(3) == ["email-changed", "verification-requested", "email-verified"])
        try verified(&store)

        // Disabled and enabled by an operator.
        #expect(try store.call(["account", "disable", uid, "--reason", "a review"]).status == 0)
        #expect(try user(&store, uid)["status"] as? String == "disabled")
        #expect(try login(&store, second, p3).status == 1)
        #expect(try store.call(["account", "enable", uid]).status == 0)
        #expect(try user(&store, uid)["status"] as? String == "active")
        let s4 = try session(&store, second, p3)
        #expect(try audit(&store).changes.suffix(2) == ["disabled", "enabled"])
        try verified(&store)

        // Signed out everywhere.
        let out = try store.call(["account", "sign-out-everywhere", second, "--json"])
        #expect(try parseObject(out.stdout)["endedSessions"] as? [String] == [s4])
        #expect(try audit(&store).revoked.last == "revoked")
        try verified(&store)

        // Deleted by its owner: image gone, sessions ended, email free.
        let s5 = try session(&store, second, p3)
        let deleted = try store.call(["account", "delete", uid, "--password-stdin", "--json"], p3 + "\n")
        #expect(deleted.status == 0, "\(deleted)")
        let outcome = try parseObject(deleted.stdout)
        #expect(outcome["reason"] as? String == "user-request" && outcome["imageDeleted"] as? Bool == true)
        #expect(outcome["endedSessions"] as? [String] == [s5])
        // Its personal data is erased with it (data version 2, on both stores).
        #expect(outcome["personalData"] as? String == "erased" && outcome["email"] is NSNull, "\(deleted)")
        #expect(try user(&store, uid)["erased"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: imageFile))
        #expect(try user(&store, uid)["status"] as? String == "deleted")
        let images = try parseJSON(try store.call(["images", "--json"]).stdout) as? [[String: Any]] ?? []
        #expect(images.first { $0["imageName"] as? String == image }?["status"] as? String == "deleted")
        // One append: the account's stream first (ImageDeleted, AccountDeleted, the erasure), then each session's end.
        #expect(try history(&store, uid).suffix(4) == ["ImageDeleted", "AccountDeleted", "PersonalDataErased", "SessionEnded"])
        let afterDeletion = try audit(&store)
        #expect(afterDeletion.changes.suffix(2) == ["deleted", "personal-data-erased"] && afterDeletion.revoked.last == "account-deleted")
        #expect(try login(&store, second, p3).status == 1)
        let refusedAfter = try store.run.events().last { $0["type"] as? String == "SignInFailed" }?["data"] as? [String: Any]
        #expect(refusedAfter?["email"] as? String == second && refusedAfter?["reason"] as? String == "unknown-email", "the log holds the refusal")
        try verified(&store)

        // Signed up again with the same email: a new account.
        let again = try store.call(LedgerDir.registerArguments(email: second, username: "Life again"), p1 + "\n")
        #expect(again.status == 0, "\(again)")
        #expect(try parseObject(again.stdout)["uid"] as? String != uid)
        try verified(&store)

        // The whole history, in log order, across its registration, account, session and sign-in streams.
        let types = try history(&store, uid)
        // It ends with the deletion and its erasure: the refused sign-in of its email after it is not
        // linked to it any more, since the account's emails are erased.
        #expect(types.first == "AccountCreated" && types.suffix(3) == ["AccountDeleted", "PersonalDataErased", "SessionEnded"], "\(types)")
        #expect(types.filter { $0 == "PasswordChanged" }.count == 2 && types.filter { $0 == "EmailVerified" }.count == 2)
        // Its refused sign-ins were tied to it by its email, which is erased: they are no longer
        // linked to the account (an erased email names no one), though the log keeps them.
        #expect(types.filter { $0 == "SignInFailed" }.count == 0, "\(types)")
        // The canary: no password and no token anywhere but the mailbox.
        try store.expectNowhereButTheMailbox(tokens)
        let files = store.dir.allFiles().map { String(decoding: (try? readBytes($0)) ?? [], as: UTF8.self) } + [try store.run.log()]
            + strings(in: try store.run.events())
        for secret in passwords + [wrong] {
            #expect(!files.contains { $0.contains(secret) }, "a file holds a password")
            #expect(!store.outputs.contains { $0.stdout.contains(secret) || $0.stderr.contains(secret) }, "an output holds a password")
        }
    }

    @Test func aWholeLifeOnBothStores() throws {
        try MailedStore.onBothStores { store in try Self.wholeLife(&store) }
    }
}
