import Glibc
import LedgerDomain

// MARK: - PostgresAccountCheck

/// Compares the account-state tables with `AccountFold` run over the store's verified lines, up to
/// the seq the tables say they reflect, folded as `verify` reads them (no read of its own). Reads only.
final class PostgresAccountCheck {
    private let store: PostgresEventStore
    /// The seq the tables reflect; nil when there are none to compare (the next append rebuilds them).
    private let mark: Int?
    private var folded = AccountTable()
    private var reached = 0

    /// A check of `store`'s tables, nothing folded yet. Tables not made yet leave nothing to check;
    /// any other failure to read their mark is the store's error.
    init(_ store: PostgresEventStore) throws {
        self.store = store
        let state: PostgresResult?
        do {
            state = try store.connection().execute("SELECT seq FROM ledger_account_state")
        } catch let error as PostgresError where error.sqlState == "42P01" {
            state = nil
        } catch {
            throw store.storeError(error, during: "reading the account tables' mark")
        }
        mark = state.flatMap { $0.count == 1 ? $0.int(0, 0) : nil }.flatMap { $0 > 0 ? $0 : nil }
        // Room for what the log holds, whatever the (unchecked) mark says.
        folded.reserve(lines: min(mark ?? 0, (try? store.head().seq) ?? 0, 1 << 24))
    }

    /// Folds the next verified event of the log (from its first line on).
    func visit(_ event: UnsafePointer<ViewEvent>) {
        guard let mark, event.pointee.seq <= mark else { return }
        AccountFold.evolve(&folded, event.pointee)
        reached = event.pointee.seq
    }

    /// The problem when the tables disagree with the fold, nil when they agree or the log did not
    /// reach their line (they are then rebuilt by the next append).
    func problem() throws -> LogProblem? {
        guard let mark, reached == mark else { return nil }
        // The tables and their mark as one snapshot: appends after the mark was read move both on,
        // and tables of another line than the fold's are not compared.
        let read: (stored: AccountTable, unreadable: Int)?
        do {
            let connection = try store.connection()
            read = try connection.transaction {
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                // The tables locked first, in the order an append that rebuilds them truncates them:
                // read one by one, a read could hold one while that append holds the next (deadlock).
                try connection.execute("LOCK TABLE " + PostgresSchema.accountTables.joined(separator: ", ") + " IN ACCESS SHARE MODE")
                guard try connection.execute("SELECT seq FROM ledger_account_state").int(0, 0) == mark else { return nil }
                return try Self.storedAccounts(connection)
            }
        } catch {
            throw store.storeError(error, during: "reading the account tables")
        }
        guard let read else { return nil }
        let difference = read.unreadable > 0 ? "\(read.unreadable) of their rows cannot be read" : read.stored.difference(from: folded)
        guard let difference else { return nil }
        let tables = PostgresSchema.accountTables.joined(separator: ", ")
        return LogProblem(line: mark, kind: .cacheMismatch,
                          message: "the PostgreSQL account tables (\(tables)) disagree with the log up to this line: \(difference); drop them (the next append rebuilds them from the log)")
    }

    /// Every row of the account tables, as the fold's state, and how many rows could not be read.
    private static func storedAccounts(_ connection: PostgresConnection) throws -> (AccountTable, unreadable: Int) {
        var out = AccountTable()
        var unreadable = 0
        // A store of schema 2, not migrated yet (a check writes nothing), has the column under its first name.
        let old = try connection.execute("""
            SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
                           AND table_name = 'ledger_accounts' AND column_name = 'created_seq')
            """).string(0, 0) == "t"
        let accounts = try connection.execute("SELECT uid, status, email, \(old ? "created_seq" : "password_seq") FROM ledger_accounts")
        out.accounts.reserveCapacity(accounts.count)
        for row in 0..<accounts.count {
            guard let uid = accounts.string(row, 0).flatMap(UUIDBits.init(uuid:)),
                  let account = PostgresAccounts.account(accounts, row, status: 1) else { unreadable += 1; continue }
            out.accounts[uid] = AccountTable.Account(status: account.status, email: EmailBytes(account.email), passwordSeq: account.passwordSeq)
        }
        let emails = try connection.execute("SELECT email, last_uid FROM ledger_account_emails")
        out.emails.reserveCapacity(emails.count)
        for row in 0..<emails.count {
            guard let email = emails.string(row, 0), let uid = emails.string(row, 1).flatMap(UUIDBits.init(uuid:)) else { unreadable += 1; continue }
            out.emails[EmailBytes(email)] = uid
        }
        let failures = try connection.execute("SELECT email, times FROM ledger_signin_failures")
        for row in 0..<failures.count {
            guard let email = failures.string(row, 0) else { unreadable += 1; continue }
            let times = PostgresAccounts.times(failures.string(row, 1))
            if !times.isEmpty { out.failures[EmailBytes(email)] = times }
        }
        return (out, unreadable)
    }
}
