import LedgerDomain

// MARK: - EmailIndex

/// The append condition that keeps emails unique among live accounts: under the store's lock it
/// folds every event up to the head through `AccountFold` (or asks the store's own copy of that
/// fold's state), then refuses an `AccountCreated` whose email has a live account.
public final class EmailIndex: AppendCondition {
    /// The last seq folded.
    public private(set) var position = 0
    private var accounts = AccountTable()

    /// An empty index (it catches up on the first append).
    public init() {}

    /// Folds one event.
    public func observe(_ event: RecordedEvent) {
        position = event.seq
        AccountFold.evolve(&accounts, ViewEvent(event), policy: SignInPolicy())
    }

    /// Refuses an `AccountCreated` for a live email with reason `email-already-in-use`.
    public func check(_ events: [LedgerEvent], stream: String) throws {
        try refuse(events) { AccountFold.liveAccount(of: $0, in: accounts) != nil }
    }

    /// A store with an index of live emails answers directly.
    public var answersFromStoreLookups: Bool { true }

    /// Like `check(_:stream:)`, asking the store's index.
    public func check(_ events: [LedgerEvent], stream: String, lookups: any StoreLookups) throws {
        try refuse(events) { try lookups.isLive(email: $0) }
    }

    /// Refuses an `AccountCreated` whose email is live, or was created by an earlier event of the same batch.
    private func refuse(_ events: [LedgerEvent], isLive: (String) throws -> Bool) throws {
        var created = Set<String>()
        for case .accountCreated(let e) in events {
            guard try !isLive(e.email), created.insert(e.email).inserted else {
                throw StoreError("the email \(e.email) is already in use", condition: .emailTaken)
            }
        }
    }
}
