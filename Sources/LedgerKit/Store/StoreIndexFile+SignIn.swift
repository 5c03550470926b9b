import LedgerDomain

// MARK: - StoreIndexFile: what a sign-in reads

/// The slots a sign-in reads instead of folding the users and sign-in views from the whole log.
/// They follow `UserView` and `SignInView` event for event:
/// - `account`, by uid: +4 the status (`AccountStatus`), +24 the offset of the line of its last
///   `AccountCreated`, +40 the seq of the last event applied;
/// - `failures`, by email: +4 the consecutive wrong passwords since a session of the account with
///   that email last started, +24 and +32 the times of the last two, +40 the seq;
/// - `olderFailures`, by email: +24, +32 and +40 the times of the three before them.
///
/// The two failure slots change together under the header's untrusted mark (see `apply`), so the
/// second needs no seq of its own.
extension StoreIndexFile {
    /// Wrong-password times kept per email; a lockout policy that counts more folds the log instead.
    static let keptFailures = 5

    /// An account's status in its slot.
    enum AccountStatus: UInt32 {
        case pending = 0, active = 1, deleted = 2
    }

    /// What the table says about one email.
    struct SignInEntry: Equatable {
        /// The account an email belongs to: the last created with it, when not deleted since.
        struct Account: Equatable {
            /// Its uid's key.
            var uid: UUIDBits
            /// Its status (nil when the slot holds an unknown value).
            var status: AccountStatus?
            /// Where the line of its `AccountCreated` starts.
            var line: Int
        }

        /// The email's account, if it has one.
        var account: Account?
        /// True when the email slot names a live account that has no account slot (a damaged table), or
        /// an account created again with another email since (the fold may then find an older account).
        var accountSlotMissing = false
        /// The times of its consecutive wrong passwords, oldest first, `keptFailures` at most.
        var recentFailures: [Timestamp] = []
    }

    // MARK: - Applying

    /// Folds the parts of `event` a sign-in reads (called by `apply` after the stream and email slots);
    /// false when a slot could not be had (a damaged table).
    func applySignIn(_ event: RecordedEvent, offset: Int, seq: Int64) -> Bool {
        switch event.event {
        case .accountCreated(let created):
            guard let slot = find(.account, Self.key(created.uid), inserting: true) else { return false }
            guard load(Int64.self, at: slot + 40) < seq else { return true }
            store(AccountStatus.pending.rawValue, at: slot + 4)
            store(Int64(offset), at: slot + 24)
            store(seq, at: slot + 40)
        case .profileWritten(let written):
            setStatus(of: written.uid, seq: seq) { $0 == .deleted ? .deleted : .active }
        case .accountDeleted(let deleted):
            setStatus(of: deleted.uid, seq: seq) { _ in .deleted }
        case .signInFailed(let failed) where failed.reason == .wrongPassword:
            let email = Self.emailKey(failed.email)
            guard let slot = find(.failures, email, inserting: true), let older = find(.olderFailures, email, inserting: true) else {
                return false
            }
            guard load(Int64.self, at: slot + 40) < seq else { return true }
            // Shift the five times by one, newest in front.
            store(load(Int64.self, at: older + 32), at: older + 40)
            store(load(Int64.self, at: older + 24), at: older + 32)
            store(load(Int64.self, at: slot + 32), at: older + 24)
            store(load(Int64.self, at: slot + 24), at: slot + 32)
            store(event.at.millis, at: slot + 24)
            let count = load(UInt32.self, at: slot + 4)
            store(count == .max ? count : count + 1, at: slot + 4)
            store(seq, at: slot + 40)
        case .sessionStarted(let started):
            // A session start clears the failures of the email its account was last created with.
            guard let uidSlot = find(.uid, Self.key(started.uid), inserting: false),
                  let slot = find(.failures, loadKey(at: uidSlot + 24), inserting: false),
                  load(Int64.self, at: slot + 40) < seq else { return true }
            store(UInt32(0), at: slot + 4)
            store(seq, at: slot + 40)
        default:
            break
        }
        return true
    }

    /// Changes the status of the account `uid`, when it has a slot.
    private func setStatus(of uid: String, seq: Int64, _ change: (AccountStatus?) -> AccountStatus) {
        guard let slot = find(.account, Self.key(uid), inserting: false), load(Int64.self, at: slot + 40) < seq else { return }
        store(change(AccountStatus(rawValue: load(UInt32.self, at: slot + 4))).rawValue, at: slot + 4)
        store(seq, at: slot + 40)
    }

    // MARK: - Reading

    /// What the table says about `email` for a sign-in.
    func signIn(email: String) -> SignInEntry {
        let key = Self.emailKey(email)
        var entry = SignInEntry()
        if let emailSlot = find(.email, key, inserting: false) {
            let uid = loadKey(at: emailSlot + 24), live = load(UInt32.self, at: emailSlot + 4) == 1
            if let uidSlot = find(.uid, uid, inserting: false), loadKey(at: uidSlot + 24) != key {
                // The email's last account was created again with another email since (deleted
                // before or not): only the fold can say which older account, if any, it finds.
                entry.accountSlotMissing = true
            } else if !live {
                // Deleted: no account.
            } else if let slot = find(.account, uid, inserting: false) {
                entry.account = SignInEntry.Account(uid: uid, status: AccountStatus(rawValue: load(UInt32.self, at: slot + 4)),
                                                    line: Int(load(Int64.self, at: slot + 24)))
            } else {
                entry.accountSlotMissing = true
            }
        }
        if let slot = find(.failures, key, inserting: false), let older = find(.olderFailures, key, inserting: false) {
            let count = Int(load(UInt32.self, at: slot + 4))
            let newestFirst = [slot + 24, slot + 32, older + 24, older + 32, older + 40].prefix(min(count, Self.keptFailures))
            entry.recentFailures = newestFirst.reversed().map { Timestamp(millis: load(Int64.self, at: $0)) }
        }
        return entry
    }
}
