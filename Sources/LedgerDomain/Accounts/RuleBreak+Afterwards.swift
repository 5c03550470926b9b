// MARK: - Rule breaks found afterwards

extension LedgerViews {
    /// The account rules the log breaks that no single line shows as it is folded, found in the
    /// folded views: what a cache could hide by omission from a fast command (`ledger audit`).
    /// - `token-redeemed-twice`: in an account's changes, in log order, a reset (`password-reset`)
    ///   with no reset requested since the last reset, password change, email change or deletion; or an
    ///   email verification with no verification requested since the last one, email change or deletion
    ///   (`AccountTokens` allows one redemption of the newest token of each kind).
    /// - `session-active-after-disable`: a session active at `now` whose account is disabled or
    ///   deleted (at the seq of the account's last disable or deletion, 0 when it has none).
    /// Cost: one pass over the account changes and one over the sessions.
    public func ruleBreaksAfterwards(at now: Timestamp) -> [RuleBreak] {
        var out: [RuleBreak] = []
        var unusedReset: Set<UUIDBits> = [], unusedVerification: Set<UUIDBits> = []
        var lastEnd: [UUIDBits: Int] = [:]
        for change in accountChanges.changes {
            let uid = change.uid
            switch change.change {
            case .resetRequested: unusedReset.insert(uid)
            case .verificationRequested: unusedVerification.insert(uid)
            case .passwordReset:
                if unusedReset.remove(uid) == nil { out.append(RuleBreak(kind: .tokenRedeemedTwice, seq: change.seq, uid: uid)) }
            case .emailVerified:
                if unusedVerification.remove(uid) == nil { out.append(RuleBreak(kind: .tokenRedeemedTwice, seq: change.seq, uid: uid)) }
            case .passwordChanged: unusedReset.remove(uid)
            case .emailChanged: unusedReset.remove(uid); unusedVerification.remove(uid)
            case .deleted:
                unusedReset.remove(uid); unusedVerification.remove(uid)
                lastEnd[uid] = change.seq
            case .disabled: lastEnd[uid] = change.seq
            case .enabled, .personalDataErased, .personalDataKept: break
            }
        }
        sessions.forEachStatus(at: now) { uid, session in
            guard session == .active, let status = users.status(of: uid), status == .disabled || status == .deleted else { return }
            out.append(RuleBreak(kind: .sessionActiveAfterDisable, seq: lastEnd[uid] ?? 0, uid: uid))
        }
        return out.sorted { $0.seq < $1.seq }
    }
}
