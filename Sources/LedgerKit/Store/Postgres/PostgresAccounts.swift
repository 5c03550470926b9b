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
        /// (the column `created_seq`).
        var created: Int
    }

    /// Wrong-password times kept per email: what a `SignInRecord` carries.
    static let keptFailures = SignInRecord.keptFailures

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
        accounts[uid] = Account(status: status, email: email, created: event.seq)
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
        account.created = event.seq
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
        if times.count > Self.keptFailures { times.removeFirst(times.count - Self.keptFailures) }
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
        // An account created earlier in `events` needs no row of the table.
        var wantedEmails: [String] = [], wantedUIDs: [UUIDBits] = [], created = Set<UUIDBits>()
        for event in events {
            let keys = AccountFold.keys(of: event)
            if let email = keys.email { wantedEmails.append(email) }
            guard let uid = keys.account else { continue }
            if keys.creates { created.insert(uid) } else if !created.contains(uid) { wantedUIDs.append(uid) }
        }
        load(emails: wantedEmails, uids: wantedUIDs)
        var state = self
        for event in events { AccountFold.evolve(&state, event, policy: SignInPolicy()) }
        try check()
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

    /// Loads the rows not known yet of `emails` (an email's last account with its row, and its
    /// failures: one query) and of `uids` (an account with the failures of its email: one query).
    private func load(emails wantedEmails: [String], uids wantedUIDs: [UUIDBits]) {
        guard error == nil else { return }
        let emailKeys = Array(Set(wantedEmails.filter { emails[$0] == nil || failures[$0] == nil }))
        let uidKeys = Array(Set(wantedUIDs.filter { accounts[$0] == nil }))
        guard !emailKeys.isEmpty || !uidKeys.isEmpty else { return }
        do {
            if !emailKeys.isEmpty {
                let result = try connection.execute("""
                    SELECT q.k, em.last_uid, ac.status, ac.email, ac.created_seq, f.times
                    FROM unnest($1::text[]) AS q(k)
                    LEFT JOIN ledger_account_emails em ON em.email = q.k
                    LEFT JOIN ledger_accounts ac ON ac.uid = em.last_uid
                    LEFT JOIN ledger_signin_failures f ON f.email = q.k
                    """, [Self.textArray(emailKeys)])
                for row in 0..<result.count {
                    remember(email: result.string(row, 0) ?? "", lastAccount: result.string(row, 1).flatMap(UUIDBits.init(uuid:)),
                             account: try Self.loadedAccount(result, row, status: 2), failures: Self.times(result.string(row, 5)))
                }
            }
            if !uidKeys.isEmpty {
                let result = try connection.execute("""
                    SELECT q.k, ac.status, ac.email, ac.created_seq, f.times
                    FROM unnest($1::uuid[]) AS q(k)
                    LEFT JOIN ledger_accounts ac ON ac.uid = q.k
                    LEFT JOIN ledger_signin_failures f ON f.email = ac.email
                    """, [Self.textArray(uidKeys.map(\.uuidString))])
                for row in 0..<result.count {
                    guard let uid = result.string(row, 0).flatMap(UUIDBits.init(uuid:)) else { continue }
                    let account = try Self.loadedAccount(result, row, status: 1)
                    if accounts[uid] == nil { accounts[uid] = .some(account) }
                    if let account, failures[account.email] == nil { failures[account.email] = Self.times(result.string(row, 4)) }
                }
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
        try check()
        typealias Clause = (rows: [[String?]], casts: [String], sql: (_ values: String) -> String)
        var clauses: [Clause] = []
        let accountRows: [[String?]] = changedAccounts.compactMap { uid in
            (accounts[uid] ?? nil).map { [uid.uuidString, $0.status.rawValue, $0.email, String($0.created)] }
        }
        clauses.append((accountRows, ["::uuid", "", "", "::bigint"], {
            "INSERT INTO ledger_accounts (uid, status, email, created_seq) VALUES \($0) ON CONFLICT (uid) DO UPDATE "
                + "SET status = excluded.status, email = excluded.email, created_seq = excluded.created_seq"
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
        func send(last: Bool) throws {
            var select = "SELECT 1"
            if last, let notify {
                select = "SELECT pg_notify($\(values.count + 1), $\(values.count + 2))"
                values += [PostgresSchema.channel, notify]
            }
            guard !ctes.isEmpty || select != "SELECT 1" else { return }
            try connection.execute((ctes.isEmpty ? "" : "WITH " + ctes.joined(separator: ", ") + " ") + select, values)
            ctes = []; values = []
        }
        for clause in clauses {
            var start = 0
            while start < clause.rows.count {
                let page = clause.rows[start..<min(clause.rows.count, start + 1000)]
                if values.count + page.count * clause.casts.count > 30_000 { try send(last: false) }
                var tuples: [String] = []
                for row in page {
                    tuples.append("(" + clause.casts.enumerated().map { "$\(values.count + $0 + 1)\($1)" }.joined(separator: ", ") + ")")
                    values += row
                }
                ctes.append("c\(ctes.count) AS (\(clause.sql(tuples.joined(separator: ", "))))")
                start += page.count
            }
        }
        try send(last: true)
        changedAccounts = []; changedEmails = []; changedFailures = []
    }

    // MARK: - Text forms

    /// The account read at `status` (then email, created seq) of `row`, nil when absent or unreadable.
    static func account(_ result: PostgresResult, _ row: Int, status column: Int) -> Account? {
        guard let status = result.string(row, column).flatMap(AccountStatus.init(rawValue:)),
              let email = result.string(row, column + 1), let created = result.int(row, column + 2) else { return nil }
        return Account(status: status, email: email, created: created)
    }

    /// The account of a row the fold is about to decide on: nil when absent, and an error when
    /// present but unreadable (e.g. a status this build does not know), so that an append refuses
    /// rather than read an account that holds its email as none.
    static func loadedAccount(_ result: PostgresResult, _ row: Int, status column: Int) throws -> Account? {
        guard !result.isNull(row, column) else { return nil }
        guard let account = account(result, row, status: column) else {
            throw StoreError(.damaged, "the PostgreSQL account tables hold a row this build cannot read (ledger_accounts.status \(result.string(row, column) ?? "")); run `ledger verify --store URL`")
        }
        return account
    }

    /// The times of a `bigint[]` in text form (`{1,2}`), oldest first; nil text: none.
    static func times(_ text: String?) -> [Timestamp] {
        guard let text else { return [] }
        return text.dropFirst().dropLast().split(separator: ",").compactMap { Int64($0).map { Timestamp(millis: $0) } }
    }

    /// A `text[]` literal of `items`, each quoted.
    static func textArray(_ items: [String]) -> String {
        let quoted = items.map { item in
            var out = "\""
            for character in item {
                if character == "\\" || character == "\"" { out.append("\\") }
                out.append(character)
            }
            return out + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }

    /// A `bigint[]` literal of the times' milliseconds.
    static func bigintArray(_ times: [Timestamp]) -> String {
        "{" + times.map { String($0.millis) }.joined(separator: ",") + "}"
    }
}
