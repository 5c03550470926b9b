import LedgerDomain

// MARK: - PostgresEventStore sign-in lookups

/// What a sign-in needs, read in one statement (one snapshot) of primary-key lookups: the
/// account-state row and the head, the email's row, its last account's row, the line holding that
/// account's password hash (its `AccountCreated` or last `PasswordChanged`: `password_seq`) and the
/// line after it, and the email's failures. `AccountFold` decides
/// from those rows which account may sign in. The password hash is taken only from a line whose
/// own hash holds and which the next line's `prev` links to (or which is the head); a line that
/// does not link is damage, refused.
extension PostgresEventStore {
    /// What a sign-in needs about `email`; nil — fold the log instead — when the account-state
    /// tables disagree with the log or stay behind it. Tables behind the head (lines inserted
    /// without them) are brought up to it first, under the append lock.
    public func signInRecord(email: String) throws -> SignInRecord? {
        do {
            for attempt in 0..<2 {
                let connection = try connection()
                switch try Self.signInRead(email: email, connection, opener: keyRing) {
                case .answer(let record): return record
                case .fold: return nil
                case .behind: if attempt == 0 { try catchUpAccounts() }
                case .oldSchema: if attempt == 0 { try Self.migrate(connection) }
                }
            }
            return nil  // still behind: something keeps inserting lines without the tables
        } catch let error as StoreError {
            throw error
        } catch {
            throw storeError(error, during: "a sign-in lookup")
        }
    }

    /// What one read of the tables gives.
    private enum SignInRead {
        case answer(SignInRecord)
        case fold
        case behind
        /// A store of schema 2 (`isOldPasswordSeqColumn`): migrated, then read again.
        case oldSchema
    }

    private static func signInRead(email: String, _ connection: PostgresConnection, opener: any PersonalDataOpener) throws -> SignInRead {
        let result: PostgresResult
        do {
            result = try connection.execute("""
                WITH ac AS (SELECT status, email, password_seq FROM ledger_accounts
                            WHERE uid = (SELECT last_uid FROM ledger_account_emails WHERE email = $1))
                SELECT (SELECT seq FROM ledger_account_state), (SELECT hash FROM ledger_account_state),
                       (SELECT line FROM ledger_events ORDER BY seq DESC LIMIT 1),
                       (SELECT last_uid FROM ledger_account_emails WHERE email = $1),
                       ac.status, ac.email, ac.password_seq,
                       (SELECT times FROM ledger_signin_failures WHERE email = $1),
                       (SELECT line FROM ledger_events WHERE seq = ac.password_seq),
                       (SELECT line FROM ledger_events WHERE seq = ac.password_seq + 1)
                FROM (SELECT 1) AS one LEFT JOIN ac ON true
                """, [email])
        } catch where isMissingTable(error) {
            guard try lacksAccountTables(connection) else { throw error }
            return .behind
        } catch where isOldPasswordSeqColumn(error) {
            return .oldSchema
        }
        // The tables answer only when they reflect exactly the head this snapshot sees.
        var head = Head.empty, lastAt = Timestamp(millis: 0)
        if !result.isNull(0, 2) {
            let envelope = try result.bytes(0, 2) { line in try decodeEnvelope(line) }
            head = Head(seq: envelope.seq, hash: envelope.hash)
            lastAt = envelope.at
        }
        guard result.int(0, 0) == head.seq, head.seq == 0 || result.string(0, 1) == head.hash else { return .behind }

        let accounts = PostgresAccounts(connection: connection)
        let lastAccount = result.string(0, 3).flatMap(UUIDBits.init(uuid:))
        let account = PostgresAccounts.account(result, 0, status: 4)
        if !result.isNull(0, 3) && (lastAccount == nil || account == nil) { return .fold }  // a row missing or unreadable
        let failures = PostgresAccounts.times(result.string(0, 7))
        // Times the log cannot hold (a damaged row) would overflow the lockout arithmetic: fold instead.
        guard failures.allSatisfy({ $0.millis >= 0 && $0 <= lastAt }) else { return .fold }
        accounts.remember(email: email, lastAccount: lastAccount, account: account, failures: failures)

        var record = SignInRecord(liveStatus: AccountFold.liveStatus(of: accounts.emailKey(email), in: accounts),
                                  recentFailures: accounts.recentFailures(of: email))
        guard let uid = AccountFold.signInAccount(of: accounts.emailKey(email), in: accounts), let account else {
            try accounts.check()
            return .answer(record)
        }
        guard !result.isNull(0, 8) else { return .fold }
        let line = try result.bytes(0, 8) { try verifyAlone($0, opener: opener) }
        guard line.seq == account.passwordSeq,
              let password = SignInRecord.Account(passwordLine: line.event, uid: uid.uuidString) else { return .fold }
        try checkLink(of: line, next: result.isNull(0, 9) ? nil : try result.bytes(0, 9) { try verifyAlone($0, opener: opener) }, head: head)
        record.account = password
        return .answer(record)
    }

    /// Throws `StoreError(.damaged)` unless `next`, the line after `line`, links to it (its `prev`
    /// is `line`'s hash), or `line` is the head.
    static func checkLink(of line: RecordedEvent, next: RecordedEvent?, head: Head) throws {
        if let next, next.seq == line.seq + 1, next.envelope.prev == line.envelope.hash { return }
        if next == nil, line.seq == head.seq, line.envelope.hash == head.hash { return }
        let problem = LogProblem(line: line.seq + 1, kind: .brokenChain,
                                 message: "line \(line.seq + 1) does not link to line \(line.seq), the line holding an account's password hash")
        throw StoreError(.damaged, "the PostgreSQL log is damaged: line \(line.seq + 1) does not link to line \(line.seq), "
                         + "the line holding the password hash; refusing to sign in with it — export the log and run `ledger verify`",
                         problem: problem)
    }
}
