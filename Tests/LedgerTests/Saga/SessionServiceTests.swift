import LedgerDomain
import LedgerKit
import Testing

// MARK: - SessionServiceTests

/// `SessionService.login` in process: the lockout follows the service's own policy.
struct SessionServiceTests {
    @Test func theServicesLockoutPolicyIsTheOneApplied() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore()
            let registered = try RegistrationCoordinator(store: store, blobs: MemoryBlobStore(), directory: dir, clock: FixedClock(step: 1),
                                                         random: SeededRandom(seed: 3), hasher: PasswordHasher(cost: 1), failpoints: Failpoints())
                .register(RegistrationInput(email: "lock@example.com", userName: "Lock", password: "right password here", image: nil),
                          idempotencyKey: nil)
            #expect(registered.outcome == .completed)
            let service = SessionService(store: store, signInLocks: SequentialSignInLocks(), clock: FixedClock(step: 1), random: SeededRandom(seed: 4), hasher: PasswordHasher(cost: 1))
            var policy = SignInPolicy()
            policy.maxFailures = 2
            service.policy = policy
            for _ in 0..<2 {
                #expect(throws: AuthError.self) { _ = try service.login(email: "lock@example.com", password: "wrong password") }
            }
            // Two wrong passwords lock under this policy (five would under the default one).
            #expect(throws: AuthError.self) { _ = try service.login(email: "lock@example.com", password: "right password here") }
            let reasons = store.events.compactMap { event -> SignInFailure? in
                if case .signInFailed(let failed) = event.event { failed.reason } else { nil }
            }
            #expect(reasons == [.wrongPassword, .wrongPassword, .locked])
        }
    }
}
