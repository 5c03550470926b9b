import LedgerDomain

// MARK: - FileEventStore sign-in lookups

extension FileEventStore {
    /// What a sign-in needs about `email`, from the writers' index caught up with the log under the
    /// exclusive lock: its account's status and the line holding its password hash (its
    /// `AccountCreated` or last `PasswordChanged`, read at its offset, checked alone, linked to from
    /// the next line and still the line the index folded), and its recent wrong
    /// passwords. Nil — fold the log instead — when there is no index file, or the table and the line
    /// disagree. An absent log: an empty record. A broken link throws `.damaged` (see `checkLink`).
    public func signInRecord(email: String) throws -> SignInRecord? {
        let found = try withLogCaughtUpAsWriter { log -> SignInRecord? in
            guard let entry = prefix.signIn(email: email), !entry.accountSlotMissing else { return nil }
            // Times the log cannot hold (a damaged table) would overflow the lockout arithmetic: fold instead.
            guard entry.recentFailures.allSatisfy({ $0.millis >= 0 && $0 <= prefix.lastAt }) else { return nil }
            var record = SignInRecord(liveStatus: entry.liveStatus, recentFailures: entry.recentFailures)
            guard let account = entry.account else { return record }
            let end = prefix.verifiedSize
            guard account.line >= 0, account.line < end, let line = try? Self.line(in: log, at: account.line, end: end),
                  let event = Self.checkedEvent(line, opener: keyRing), let password = SignInRecord.Account(passwordLine: event.event, uid: account.uid.uuidString)
            else { return nil }
            try checkLink(to: event, next: account.line + line.count + 1, in: log, end: end)
            // The line must still be the one folded into the index: a line edited with its next line
            // re-chained passes the link check, not this one.
            guard Digest32(hex: event.envelope.hash)?.a == account.lineHash else {
                throw damaged(LogProblem(line: event.seq, kind: .brokenChain,
                                         message: "the line holding the password hash is not the line the index verified"))
            }
            record.account = password
            return record
        }
        guard let found else { return SignInRecord() }  // no log: no account, no failures
        return found
    }

    /// Throws `.damaged` unless the line at `next` (the one after `event`'s) continues the chain from
    /// `event` as `verify` checks it, or, when `event`'s line is the last one verified, unless it is
    /// the head the index covers. A line edited and given its own hash again still checks alone:
    /// only the next line's `prev` shows the edit. The index file is then marked untrusted, so the next
    /// writer rebuilds it from the log, meets the break and refuses too.
    func checkLink(to event: RecordedEvent, next: Int, in log: FileDescriptor, end: Int) throws {
        let head = Head(seq: event.seq, hash: event.envelope.hash)
        let problem: LogProblem
        if next >= end {
            guard head != prefix.checker.head else { return }
            problem = LogProblem(line: event.seq, kind: .brokenChain, message: "the last line is not the head the index verified")
        } else {
            var checker = ChainChecker(continuingAfter: head)
            checker.opener = keyRing
            let item = try Self.line(in: log, at: next, end: end).map { line in
                line.withUnsafeBufferPointer { LogScanner.decode($0, offset: next, terminated: true, checker: &checker) }
            }
            switch item {
            case .event: return
            case .problem(let found, _, _), .tornTail(let found, _, _): problem = found
            case nil: problem = LogProblem(line: event.seq + 1, kind: .brokenChain, message: "the line after it cannot be read")
            }
        }
        throw damaged(problem)
    }

    /// The error for damage a sign-in found, after marking the index untrusted and removing its
    /// checkpoint, which covers the damaged line too (so the next writer rebuilds the index from the
    /// whole log, and meets the damage too, or drops an edited index).
    private func damaged(_ problem: LogProblem) -> StoreError {
        prefix.table?.markUntrusted()
        try? FileSystem.remove(indexCheckpointPath)
        prefix = VerifiedPrefix()
        return StoreError(.damaged, "the log is damaged at \(problem) — run `ledger verify`; writers refuse until it is restored", problem: problem)
    }
}
