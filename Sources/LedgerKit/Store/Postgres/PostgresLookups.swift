import LedgerDomain

// MARK: - PostgresLookups

/// `StoreLookups` answered inside an append's transaction (under the append lock) by the account
/// fold over the account-state tables, which the append has brought up to the head: a `register`
/// process reads a couple of rows by primary key instead of every event.
final class PostgresLookups: StoreLookups {
    private let accounts: PostgresAccounts

    init(accounts: PostgresAccounts) { self.accounts = accounts }

    /// True when a live account holds `email` (`AccountFold.liveAccount`).
    func isLive(email: String) throws -> Bool {
        let live = AccountFold.liveAccount(of: accounts.emailKey(email), in: accounts) != nil
        try accounts.check()
        return live
    }
}
