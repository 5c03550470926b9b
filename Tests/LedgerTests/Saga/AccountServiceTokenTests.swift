import LedgerDomain
import LedgerKit
import Testing

/// `AccountService.issue` and `redeem` in process, on a clock the test moves: a token works until
/// it expires, and not at or after its expiry.
struct AccountServiceTokenTests {
    private static func registered(_ clock: FixedClock) throws -> (InMemoryEventStore, AccountService) {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(clock: clock)
            let result = try RegistrationCoordinator(store: store, blobs: MemoryBlobStore(), directory: dir, clock: clock,
                                                     random: SeededRandom(seed: 5), hasher: PasswordHasher(cost: 1), failpoints: Failpoints())
                .register(RegistrationInput(email: "expiry@example.com", userName: "Expiry", password: "right password here", image: nil),
                          idempotencyKey: nil)
            #expect(result.outcome == .completed)
            return (store, AccountService(store: store, signInLocks: SequentialSignInLocks(), clock: clock))
        }
    }

    @Test func aTokenExpiresAfterItsLifetime() throws {
        for kind in AccountTokens.Kind.allCases {
            let clock = FixedClock()
            let (_, service) = try Self.registered(clock)
            let action: AccountAction = kind == .verification ? .verifyEmail : .resetPassword(passwordHash: "$y$j9T$x$y")
            let late = try #require(try service.issue(kind, email: "EXPIRY@example.com", random: SeededRandom(seed: 6)))
            clock.instant = clock.instant.adding(milliseconds: kind.defaultLifetime)
            #expect(throws: AccountRefusal(code: .tokenRefused, message: AccountService.tokenRefusal)) {
                _ = try service.redeem(kind, token: late.token.value, action)
            }
            let timely = try #require(try service.issue(kind, email: "expiry@example.com", random: SeededRandom(seed: 7)))
            clock.instant = clock.instant.adding(milliseconds: kind.defaultLifetime - 1)
            #expect(try service.redeem(kind, token: timely.token.value, action).appended.first?.event.type == (kind == .verification ? .emailVerified : .passwordChanged))
        }
    }

    @Test func noAccountNoTokenAndNothingAppended() throws {
        let (store, service) = try Self.registered(FixedClock())
        let count = store.events.count
        #expect(try service.issue(.reset, email: "nobody@example.com", random: SeededRandom(seed: 8)) == nil)
        let uid = try #require(store.events.compactMap { if case .accountCreated(let c) = $0.event { c.uid } else { nil } }.first)
        #expect(try service.issue(.reset, email: uid, random: SeededRandom(seed: 8)) == nil, "a uid is no email")
        #expect(store.events.count == count)
    }

    /// A request's email is normalized as sign-up and sign-in normalize it (spaces and tabs around it
    /// trimmed, ASCII lowercased): the account gets its token.
    @Test func aRequestsEmailIsNormalizedAsSignInNormalizesIt() throws {
        let (_, service) = try Self.registered(FixedClock())
        for kind in AccountTokens.Kind.allCases {
            let issued = try service.issue(kind, email: " \tExpiry@Example.COM ", random: SeededRandom(seed: 9))
            #expect(issued?.outcome.email == "expiry@example.com", "\(kind)")
        }
    }
}
