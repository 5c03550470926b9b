import LedgerDomain

// MARK: - FileEventStore sign-in lookups

extension FileEventStore {
    /// What a sign-in needs about `email`, from the writers' index lined up with the log under the
    /// exclusive lock: its account's status and `AccountCreated` line (read at its offset and checked
    /// alone, for the password hash), and its recent wrong passwords. Nil — fold the log instead —
    /// when there is no index file, or the table and the line disagree. An absent log: an empty record.
    public func signInRecord(email: String) throws -> SignInRecord? {
        let found = try withLinedUpLog { log -> SignInRecord? in
            guard let entry = index.signIn(email: email), !entry.accountSlotMissing else { return nil }
            // Times the log cannot hold (a damaged table) would overflow the lockout arithmetic: fold instead.
            guard entry.recentFailures.allSatisfy({ $0.millis >= 0 && $0 <= index.lastAt }) else { return nil }
            var record = SignInRecord(recentFailures: entry.recentFailures)
            guard let account = entry.account else { return record }
            guard account.status.maySignIn else { return record }
            let end = index.verifiedSize
            guard account.line >= 0, account.line < end, let line = try? Self.line(in: log, at: account.line, end: end),
                  let event = Self.checkedEvent(line), case .accountCreated(let created) = event.event,
                  StoreIndexFile.key(created.uid) == account.uid, created.email == email else { return nil }
            record.account = SignInRecord.Account(uid: created.uid, passwordHash: created.passwordHash)
            return record
        }
        guard let found else { return SignInRecord() }  // no log: no account, no failures
        return found
    }
}
