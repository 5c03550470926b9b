import LedgerDomain

// MARK: - PostgresAccounts

/// `AccountFoldState` over the account-state tables of `PostgresSchema`, inside one transaction (or
/// one read): rows are loaded on first use — `apply` loads every row a batch of events reads in one
/// or two queries — and kept in memory, the fold changes the copies, and `flush` upserts the changed rows in
/// one statement. `AccountFold` alone decides what the rows mean.
///
/// The fold's reads cannot throw: a failed load answers "nothing" and is kept in `error`, which
/// `check()` (called by `apply`, `flush` and the append's `.uniqueEmails` check) rethrows before anything is used.
final class PostgresAccounts: AccountFoldState {
    /// One row of `ledger_accounts`.
    struct Account: Equatable {
        /// Its status.
        var status: AccountStatus
        /// The email it holds (was last created with, or changed to).
        var email: String
        /// The seq of the line holding its password hash: its `AccountCreated` or last `PasswordChanged`
        /// (the column `password_seq`).
        var passwordSeq: Int
    }

    private let connection: PostgresConnection
    /// Rows loaded or written; a nil value is a row known to be absent.
    private var accounts: [UUIDBits: Account?] = [:]
    private var emails: [String: UUIDBits?] = [:]
    private var failures: [String: [Timestamp]] = [:]
    private var changedAccounts = Set<UUIDBits>(), changedEmails = Set<String>(), changedFailures = Set<String>()
    /// The first load that failed.
    private(set) var error: (any Error)?

    /// Rows read and written through `connection`.
    init(connection: PostgresConnection) { self.connection = connection }

    // MARK: - AccountFoldState

    func emailKey(_ email: String) -> String { email }

    func account(_ uid: UUIDBits) -> AccountFacts<String>? {
        row(uid).map { AccountFacts(status: $0.status, email: $0.email) }
    }

    func lastAccount(of email: String) -> UUIDBits? {
        if let cached = emails[email] { return cached }
        load(emails: [email], uids: [])
        return emails[email] ?? nil
    }

    func recordCreation(of uid: UUIDBits, email: String, status: AccountStatus, by event: ViewEvent) {
        accounts[uid] = Account(status: status, email: email, passwordSeq: event.seq)
        emails[email] = uid
        changedAccounts.insert(uid)
        changedEmails.insert(email)
    }

    func setStatus(_ status: AccountStatus, of uid: UUIDBits) {
        guard var account = row(uid) else { return }
        account.status = status
        accounts[uid] = account
        changedAccounts.insert(uid)
    }

    func recordPassword(of uid: UUIDBits, by event: ViewEvent) {
        guard var account = row(uid) else { return }
        account.passwordSeq = event.seq
        accounts[uid] = account
        changedAccounts.insert(uid)
    }

    func recordEmailChange(of uid: UUIDBits, to email: String, by event: ViewEvent) {
        guard var account = row(uid) else { return }
        account.email = email
        accounts[uid] = account
        emails[email] = uid
        changedAccounts.insert(uid)
        changedEmails.insert(email)
    }

    func mayHaveFailures(_ email: String) -> Bool { !recentFailures(of: email).isEmpty }

    func recentFailures(of email: String) -> [Timestamp] {
        if let cached = failures[email] { return cached }
        load(emails: [email], uids: [])
        return failures[email] ?? []
    }

    func appendFailure(of email: String, at time: Timestamp, by event: ViewEvent) {
        var times = recentFailures(of: email)
        times.append(time)
        if times.count > SignInRecord.keptFailures { times.removeFirst(times.count - SignInRecord.keptFailures) }
        failures[email] = times
        changedFailures.insert(email)
    }

    func clearFailures(of email: String) {
        failures[email] = []
        changedFailures.insert(email)
    }

    // MARK: - Rows

    /// The row of account `uid`, loaded when not known yet.
    func row(_ uid: UUIDBits) -> Account? {
        if let cached = accounts[uid] { return cached }
        load(emails: [], uids: [uid])
        return accounts[uid] ?? nil
    }

    /// Rethrows the first failed load.
    func check() throws {
        if let error { throw error }
    }

    /// Folds `events` (in seq order) through `AccountFold.evolve`, having loaded (in one query per
    /// kind of key) the rows they read that are not known yet.
    func apply(_ events: [ViewEvent]) throws {
        let wanted = Self.keys(events.map(\.fact))
        load(emails: wanted.emails, uids: wanted.uids)
        var state = self
        for event in events { AccountFold.evolve(&state, event) }
        try check()
    }

    /// The emails and accounts that folding `facts` (in order) reads: an account created earlier
    /// among them needs no row of the table.
    static func keys(_ facts: [ViewEvent.Fact]) -> (emails: [String], uids: [UUIDBits]) {
        var emails: [String] = [], uids: [UUIDBits] = [], created = Set<UUIDBits>()
        for fact in facts {
            let keys = AccountFold.keys(of: fact)
            if let email = keys.email { emails.append(email) }
            guard let uid = keys.account else { continue }
            if keys.creates { created.insert(uid) } else if !created.contains(uid) { uids.append(uid) }
        }
        return (emails, uids)
    }

    /// Keeps what a read found, for rows nothing loaded or wrote yet.
    func remember(email: String, lastAccount: UUIDBits?, account: Account?, failures times: [Timestamp]) {
        if emails[email] == nil { emails[email] = .some(lastAccount) }
        if let lastAccount, accounts[lastAccount] == nil { accounts[lastAccount] = .some(account) }
        if failures[email] == nil { failures[email] = times }
    }

    /// Forgets every row (after a flush, to bound memory; or when the tables were emptied).
    func forget() {
        accounts = [:]; emails = [:]; failures = [:]
        changedAccounts = []; changedEmails = []; changedFailures = []
    }

    /// A query of `loadQueries`: the rows of some emails, or of some accounts.
    struct LoadQuery {
        /// True for an email query, false for an account query.
        let byEmail: Bool
        /// The statement.
        let statement: PostgresConnection.Statement
    }

    /// The queries (one per kind of key, none when all are known) that load the rows not known yet
    /// of `emails` (an email's last account with its row, and its failures) and of `uids` (an
    /// account with the failures of its email); `absorb` keeps what they return.
    func loadQueries(emails wantedEmails: [String], uids wantedUIDs: [UUIDBits]) -> [LoadQuery] {
        let emailKeys = Array(Set(wantedEmails.filter { emails[$0] == nil || failures[$0] == nil }))
        let uidKeys = Array(Set(wantedUIDs.filter { accounts[$0] == nil }))
        var queries: [LoadQuery] = []
        if !emailKeys.isEmpty {
            queries.append(LoadQuery(byEmail: true, statement: .init("""
                SELECT q.k, em.last_uid, ac.status, ac.email, ac.password_seq, f.times
                FROM unnest($1::text[]) AS q(k)
                LEFT JOIN ledger_account_emails em ON em.email = q.k
                LEFT JOIN ledger_accounts ac ON ac.uid = em.last_uid
                LEFT JOIN ledger_signin_failures f ON f.email = q.k
                """, [Self.textArray(emailKeys)])))
        }
        if !uidKeys.isEmpty {
            queries.append(LoadQuery(byEmail: false, statement: .init("""
                SELECT q.k, ac.status, ac.email, ac.password_seq, f.times
                FROM unnest($1::uuid[]) AS q(k)
                LEFT JOIN ledger_accounts ac ON ac.uid = q.k
                LEFT JOIN ledger_signin_failures f ON f.email = ac.email
                """, [Self.textArray(uidKeys.map(\.uuidString))])))
        }
        return queries
    }

    /// Keeps the rows `query` returned, for keys nothing loaded or wrote yet; a row it cannot read
    /// is kept in `error`.
    func absorb(_ query: LoadQuery, _ result: PostgresResult) {
        do { try remember(query, result) } catch { if self.error == nil { self.error = error } }
    }

    private func remember(_ query: LoadQuery, _ result: PostgresResult) throws {
        for row in 0..<result.count {
            if query.byEmail {
                remember(email: result.string(row, 0) ?? "", lastAccount: result.string(row, 1).flatMap(UUIDBits.init(uuid:)),
                         account: try Self.loadedAccount(result, row, status: 2), failures: Self.times(result.string(row, 5)))
                continue
            }
            guard let uid = result.string(row, 0).flatMap(UUIDBits.init(uuid:)) else { continue }
            let account = try Self.loadedAccount(result, row, status: 1)
            if accounts[uid] == nil { accounts[uid] = .some(account) }
            if let account, failures[account.email] == nil { failures[account.email] = Self.times(result.string(row, 4)) }
        }
    }

    /// Loads the rows not known yet of `emails` and `uids` (`loadQueries`); a failure is kept in `error`.
    private func load(emails wantedEmails: [String], uids wantedUIDs: [UUIDBits]) {
        guard error == nil else { return }
        do {
            for query in loadQueries(emails: wantedEmails, uids: wantedUIDs) {
                absorb(query, try connection.execute(query.statement.sql, query.statement.parameters))
            }
        } catch {
            self.error = error
        }
    }

    // MARK: - Flush

    /// Upserts the changed rows and, with `head`, records that the state reflects the log through
    /// it; with `notify`, the last statement also sends it on `PostgresSchema.channel`. One
    /// statement unless a catch-up changed thousands of rows.
    func flush(through head: Head?, notify: String? = nil) throws {
        for statement in try flushStatements(through: head, notify: notify) {
            try connection.execute(statement.sql, statement.parameters)
        }
    }

    /// The statements of `flush`, for the caller to run in its transaction (which rolls back, and
    /// this state is dropped, when they fail): the rows count as written from here on.
    func flushStatements(through head: Head?, notify: String? = nil) throws -> [PostgresConnection.Statement] {
        try check()
        var statements: [PostgresConnection.Statement] = []
        typealias Clause = (rows: [[String?]], casts: [String], sql: (_ values: String) -> String)
        var clauses: [Clause] = []
        let accountRows: [[String?]] = changedAccounts.compactMap { uid in
            (accounts[uid] ?? nil).map { [uid.uuidString, $0.status.rawValue, $0.email, String($0.passwordSeq)] }
        }
        clauses.append((accountRows, ["::uuid", "", "", "::bigint"], {
            "INSERT INTO ledger_accounts (uid, status, email, password_seq) VALUES \($0) ON CONFLICT (uid) DO UPDATE "
                + "SET status = excluded.status, email = excluded.email, password_seq = excluded.password_seq"
        }))
        let emailRows: [[String?]] = changedEmails.compactMap { email in (emails[email] ?? nil).map { [email, $0.uuidString] } }
        clauses.append((emailRows, ["", "::uuid"], {
            "INSERT INTO ledger_account_emails (email, last_uid) VALUES \($0) ON CONFLICT (email) DO UPDATE SET last_uid = excluded.last_uid"
        }))
        let failureRows: [[String?]] = changedFailures.map { email in [email, Self.bigintArray(failures[email] ?? [])] }
        clauses.append((failureRows, ["", "::bigint[]"], {
            "INSERT INTO ledger_signin_failures (email, times) VALUES \($0) ON CONFLICT (email) DO UPDATE SET times = excluded.times"
        }))
        if let head {
            clauses.append(([[String(head.seq), head.hash]], ["::bigint", ""], {
                "INSERT INTO ledger_account_state (seq, hash) VALUES \($0) ON CONFLICT (one) DO UPDATE "
                    + "SET seq = excluded.seq, hash = excluded.hash"
            }))
        }
        // The clauses, 1000 rows at most each, as data-modifying CTEs of statements of ~30000 parameters at most.
        var ctes: [String] = [], values: [String?] = []
        func send(last: Bool) {
            var select = "SELECT 1"
            if last, let notify {
                select = "SELECT pg_notify($\(values.count + 1), $\(values.count + 2))"
                values += [PostgresSchema.channel, notify]
            }
            guard !ctes.isEmpty || select != "SELECT 1" else { return }
            statements.append(.init((ctes.isEmpty ? "" : "WITH " + ctes.joined(separator: ", ") + " ") + select, values))
            ctes = []; values = []
        }
        for clause in clauses {
            var start = 0
            while start < clause.rows.count {
                let page = clause.rows[start..<min(clause.rows.count, start + 1000)]
                if values.count + page.count * clause.casts.count > 30_000 { send(last: false) }
                var tuples: [String] = []
                for row in page {
                    tuples.append("(" + clause.casts.enumerated().map { "$\(values.count + $0 + 1)\($1)" }.joined(separator: ", ") + ")")
                    values += row
                }
                ctes.append("c\(ctes.count) AS (\(clause.sql(tuples.joined(separator: ", "))))")
                start += page.count
            }
        }
        send(last: true)
        changedAccounts = []; changedEmails = []; changedFailures = []
        return statements
    }
}
