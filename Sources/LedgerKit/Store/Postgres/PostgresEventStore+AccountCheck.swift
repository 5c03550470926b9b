import Glibc
import LedgerDomain

// MARK: - PostgresEventStore: the account tables checked against the log

extension PostgresEventStore {
    /// Compares the account-state tables with `AccountFold` run over the log at `path` (a verified
    /// copy of this store's lines), up to the seq the tables say they reflect: the problem when they
    /// disagree, nil when they agree or hold nothing to compare (absent tables are rebuilt from the
    /// log by the next append). Reads only.
    public func accountTablesProblem(foldingLogAt path: String) throws -> LogProblem? {
        let connection = try connection()
        let mark: Int
        do {
            let state = try connection.execute("SELECT seq FROM ledger_account_state")
            guard state.count == 1, let seq = state.int(0, 0), seq > 0 else { return nil }
            mark = seq
        } catch {
            return nil  // no tables yet: nothing to compare
        }
        var folded = AccountTable()
        var checker = ChainChecker()
        checker.deferIDChecks(lines: min(mark, 1 << 22))  // the copy was verified: only fold it
        var reached = 0
        try LogScanner.scanFacts(try FileDescriptor(path: path, flags: O_RDONLY), checker: &checker) { item in
            guard case .event(let at, _, _, _) = item, at.pointee.seq <= mark else { return false }
            AccountFold.evolve(&folded, at.pointee, policy: SignInPolicy())
            reached = at.pointee.seq
            return reached < mark
        }
        guard reached == mark else { return nil }  // the tables name a line the copy lacks: they are rebuilt
        let stored = try Self.storedAccounts(connection)
        guard let difference = stored.difference(from: folded) else { return nil }
        let tables = PostgresSchema.accountTables.joined(separator: ", ")
        return LogProblem(line: mark, kind: .cacheMismatch,
                          message: "the PostgreSQL account tables (\(tables)) disagree with the log up to this line: \(difference); drop them (the next append rebuilds them from the log)")
    }

    /// Every row of the account tables, as the fold's state.
    private static func storedAccounts(_ connection: PostgresConnection) throws -> AccountTable {
        var out = AccountTable()
        let accounts = try connection.execute("SELECT uid, status, email, created_seq FROM ledger_accounts")
        for row in 0..<accounts.count {
            guard let uid = accounts.string(row, 0).flatMap(UUIDBits.init(uuid:)),
                  let account = PostgresAccounts.account(accounts, row, status: 1) else { continue }
            out.accounts[uid] = AccountTable.Account(status: account.status, email: account.email, created: account.created)
        }
        let emails = try connection.execute("SELECT email, last_uid FROM ledger_account_emails")
        for row in 0..<emails.count {
            guard let email = emails.string(row, 0), let uid = emails.string(row, 1).flatMap(UUIDBits.init(uuid:)) else { continue }
            out.emails[email] = uid
        }
        let failures = try connection.execute("SELECT email, times FROM ledger_signin_failures")
        for row in 0..<failures.count {
            guard let email = failures.string(row, 0) else { continue }
            let times = PostgresAccounts.times(failures.string(row, 1))
            if !times.isEmpty { out.failures[email] = times }
        }
        return out
    }
}
