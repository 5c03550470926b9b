import LedgerDomain
import Testing

/// Which events settle an account command's pending password check (`CheckedPasswordOutcome`): only
/// what a checked password appends, a deletion's `ImageDeleted` passed over; anything else anyone
/// may cause (a reset requested, an operator's deletion, a reset redeemed) settles nothing.
@Suite struct CheckedPasswordOutcomeTests {
    let uid = "9bf9a51f-f644-5e6e-819e-db7c11fcae94"

    @Test func onlyWhatACheckedPasswordAppendsSettlesACheck() {
        let changed = LedgerEvent.passwordChanged(PasswordChanged(uid: uid, passwordHash: "$nfc$y$j9T$s$h", reason: .change))
        let reset = LedgerEvent.passwordChanged(PasswordChanged(uid: uid, passwordHash: "$nfc$y$j9T$s$h", reason: .reset))
        let ownerDeleted = LedgerEvent.accountDeleted(AccountDeleted(uid: uid, reason: .userRequest))
        let operatorDeleted = LedgerEvent.accountDeleted(AccountDeleted(uid: uid, reason: .operator))
        let imageGone = LedgerEvent.imageDeleted(ImageDeleted(uid: uid, imageName: "05c4796f-c6d0-5b0f-80c6-01aa5f708738", reason: .accountDeleted))
        #expect(CheckedPasswordOutcome.startsWithOutcome([changed]))
        #expect(CheckedPasswordOutcome.startsWithOutcome([imageGone, ownerDeleted]))
        #expect(!CheckedPasswordOutcome.startsWithOutcome([reset, changed]), "the next event decides, not a later one")
        #expect(!CheckedPasswordOutcome.startsWithOutcome([imageGone, operatorDeleted]))
        #expect(!CheckedPasswordOutcome.startsWithOutcome([imageGone]))
        #expect(!CheckedPasswordOutcome.startsWithOutcome([]))
    }
}
