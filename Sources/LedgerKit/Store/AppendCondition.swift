import LedgerDomain

// MARK: - AppendCondition

/// What an append must hold besides its parts' expected versions: checked under the store's append
/// lock, against every event up to the head, once per part; a refusal appends nothing.
public enum AppendCondition {
    /// No event may claim an email (`LedgerEvent.claimedEmail`: an `AccountCreated`, an `EmailChanged`)
    /// that a live account holds, or that an earlier event of the batch claimed: refused with
    /// `conditionFailed`, reason `email-already-in-use`. Each store
    /// decides it from the account fold's state it keeps itself (`AccountFold.liveAccount` over the
    /// writers' index, the PostgreSQL account tables, or a folded `AccountTable`).
    case uniqueEmails
    /// A check the caller folds itself: the store feeds it every event it has not seen, then asks it.
    case folded(any FoldedCondition)

    /// The folded check, when this is one (the store feeds it events).
    var folded: (any FoldedCondition)? {
        if case .folded(let condition) = self { condition } else { nil }
    }

    /// Checks one part; `isLive` is the store's answer, from its own fold state, to whether a live
    /// account holds an email (as of the log before the batch). Emails are compared across one part
    /// only: a batch claims emails in one part at most (`StreamAppend.validate` refuses more).
    func check(_ part: StreamAppend, isLive: (String) throws -> Bool) throws {
        switch self {
        case .folded(let condition):
            try condition.check(part.events, stream: part.stream)
        case .uniqueEmails:
            var claimed = Set<String>()
            for email in part.events.lazy.compactMap(\.claimedEmail) {
                guard try !isLive(email), claimed.insert(email).inserted else {
                    throw StoreError("the email \(email) is already in use", condition: .emailTaken)
                }
            }
        }
    }
}

// MARK: - FoldedCondition

/// A check evaluated atomically with an append that folds the events itself: the store feeds it the
/// events it has not seen yet, under the append lock, then asks `check`.
public protocol FoldedCondition: AnyObject {
    /// The last `seq` this condition has observed.
    var position: Int { get }
    /// Folds one more event (seq = position + 1).
    func observe(_ event: RecordedEvent)
    /// Throws `StoreError(.conditionFailed, …, reason:)` when `events` must not be appended.
    func check(_ events: [LedgerEvent], stream: String) throws
}

// MARK: - The fold's answer

extension AccountFoldState {
    /// True when a live account holds `email`: `AccountFold.liveAccount` over this state.
    func holdsLiveAccount(email: String) -> Bool { AccountFold.liveAccount(of: emailKey(email), in: self) != nil }
}
