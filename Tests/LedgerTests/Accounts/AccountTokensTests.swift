import LedgerDomain
import LedgerKit
import Testing

/// `AccountTokens`, the pure token rule, and the shape of `AccountToken`: the newest token of a kind
/// only, once, before it expires, for the email the account still holds.
@Suite struct AccountTokensTests {
    private let uid = Fixtures.uuid(61)
    private let email = "tokens@example.com"
    private let start = Timestamp(rfc3339: "2026-11-29T09:00:00.000Z")!
    private func hash(_ n: Int) -> String { SHA256.hex("token \(n)") }

    private func verification(_ n: Int, email: String? = nil, lifetime: Int64 = AccountTokens.Kind.verification.defaultLifetime) -> LedgerEvent {
        .emailVerificationRequested(EmailVerificationRequested(uid: uid, email: email ?? self.email, tokenHash: hash(n),
                                                               expiresAt: start.adding(milliseconds: lifetime)))
    }

    private func reset(_ n: Int) -> LedgerEvent {
        .passwordResetRequested(PasswordResetRequested(uid: uid, tokenHash: hash(n), expiresAt: start.adding(milliseconds: AccountTokens.Kind.reset.defaultLifetime)))
    }

    @Test func theNewestTokenOfAKindOnly() {
        let tokens = AccountTokens([verification(1), verification(2), reset(3), reset(4)])
        #expect(!tokens.redeemable(.verification, tokenHash: hash(1), accountEmail: email, at: start))
        #expect(tokens.redeemable(.verification, tokenHash: hash(2), accountEmail: email, at: start))
        #expect(!tokens.redeemable(.reset, tokenHash: hash(3), accountEmail: email, at: start))
        #expect(tokens.redeemable(.reset, tokenHash: hash(4), accountEmail: email, at: start))
        #expect(!tokens.redeemable(.reset, tokenHash: hash(2), accountEmail: email, at: start), "a verification token is no reset token")
        #expect(!AccountTokens().redeemable(.verification, tokenHash: hash(2), accountEmail: email, at: start))
    }

    @Test func aTokenIsUsedOnce() {
        var tokens = AccountTokens([verification(1), reset(2)])
        tokens.apply(.emailVerified(EmailVerified(uid: uid, email: email)))
        #expect(!tokens.redeemable(.verification, tokenHash: hash(1), accountEmail: email, at: start))
        #expect(tokens.redeemable(.reset, tokenHash: hash(2), accountEmail: email, at: start))
        tokens.apply(.passwordChanged(PasswordChanged(uid: uid, passwordHash: "$y$x", reason: .reset)))
        #expect(!tokens.redeemable(.reset, tokenHash: hash(2), accountEmail: email, at: start))
    }

    @Test func aTokenExpires() {
        let lifetime = AccountTokens.Kind.verification.defaultLifetime
        #expect(lifetime == 24 * 3600 * 1000 && AccountTokens.Kind.reset.defaultLifetime == 3600 * 1000)
        let tokens = AccountTokens([verification(1)])
        #expect(tokens.redeemable(.verification, tokenHash: hash(1), accountEmail: email, at: start.adding(milliseconds: lifetime - 1)))
        #expect(!tokens.redeemable(.verification, tokenHash: hash(1), accountEmail: email, at: start.adding(milliseconds: lifetime)))
    }

    @Test func anEmailChangeEndsTheVerificationAndTheReset() {
        var tokens = AccountTokens([verification(1), reset(2)])
        tokens.apply(.emailChanged(EmailChanged(uid: uid, email: "new@example.com", previousEmail: email)))
        #expect(!tokens.redeemable(.verification, tokenHash: hash(1), accountEmail: email, at: start))
        #expect(!tokens.redeemable(.verification, tokenHash: hash(1), accountEmail: "new@example.com", at: start))
        #expect(!tokens.redeemable(.reset, tokenHash: hash(2), accountEmail: "new@example.com", at: start))
        // A verification is for the email it was sent to.
        #expect(!AccountTokens([verification(3, email: "other@example.com")]).redeemable(.verification, tokenHash: hash(3), accountEmail: email, at: start))
    }

    @Test func aPasswordChangeEndsTheResetOnly() {
        var tokens = AccountTokens([verification(1), reset(2)])
        tokens.apply(.passwordChanged(PasswordChanged(uid: uid, passwordHash: "$y$x", reason: .change)))
        #expect(!tokens.redeemable(.reset, tokenHash: hash(2), accountEmail: email, at: start))
        #expect(tokens.redeemable(.verification, tokenHash: hash(1), accountEmail: email, at: start))
        tokens.apply(.accountDeleted(AccountDeleted(uid: uid, reason: .userRequest)))
        #expect(!tokens.redeemable(.verification, tokenHash: hash(1), accountEmail: email, at: start))
    }

    @Test func digestsCompareByEveryByte() {
        let tokens = AccountTokens([verification(1)])
        var near = Array(hash(1).utf8)
        near[near.count - 1] = near[near.count - 1] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(!tokens.redeemable(.verification, tokenHash: String(decoding: near, as: UTF8.self), accountEmail: email, at: start))
        #expect(!tokens.redeemable(.verification, tokenHash: String(hash(1).dropLast()), accountEmail: email, at: start))
        #expect(!tokens.redeemable(.verification, tokenHash: "", accountEmail: email, at: start))
        #expect(tokens.redeemable(.verification, tokenHash: hash(1), accountEmail: email, at: start))
    }

    @Test func aTokenNamesItsAccountAndHas256RandomBits() {
        let token = AccountToken(uid: uid, random: SeededRandom(seed: 7))
        let parts = token.value.split(separator: ".")
        #expect(parts.count == 2 && String(parts[0]) == uid && parts[1].count == 64)
        #expect(AccountToken.uid(of: token.value) == uid)
        #expect(token.hash == SHA256.hex(token.value) && token.hash.count == 64)
        #expect(AccountToken(uid: uid, random: SeededRandom(seed: 8)).value != token.value)
        for malformed in ["", uid, uid + ".", "." + String(parts[1]), token.value.uppercased(), token.value + "0",
                          String(token.value.dropLast()), uid + "." + String(repeating: "g", count: 64), token.value + ".x"] {
            #expect(AccountToken.uid(of: malformed) == nil, "\(malformed)")
        }
    }
}
