import LedgerDomain
import Testing

/// Which emails an event claims: the one rule `AppendCondition.uniqueEmails` and
/// `StreamAppend.validate` ask.
@Suite struct ClaimedEmailTests {
    @Test func anAccountCreationAndAnEmailChangeClaimTheirEmail() {
        #expect(Fixtures.event(.accountCreated, 1).claimedEmail == "user1@example.com")
        #expect(Fixtures.event(.emailChanged, 1).claimedEmail == "moved1@example.org", "the new email, not the previous one")
    }

    @Test func noOtherEventClaimsAnEmail() {
        for type in EventType.allCases where type != .accountCreated && type != .emailChanged {
            #expect(Fixtures.event(type, 1).claimedEmail == nil, "\(type)")
        }
    }
}
