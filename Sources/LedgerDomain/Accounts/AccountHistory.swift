// MARK: - AccountHistory

/// Which events of a log are about one account, read in log order: its registration's stream (from
/// its `AccountCreated`), its own `account-<uid>` stream, the streams of the sessions it started, and
/// the refused sign-ins of its email while it is the account last created with or moved to that email.
public struct AccountHistory {
    /// The account.
    public let uid: UUIDBits
    private var registration: UUIDBits?
    private var email: String?
    private var ownsEmail = false
    private var sessions: Set<UUIDBits> = []

    /// The history of `uid`, before the first event.
    public init(uid: UUIDBits) { self.uid = uid }

    /// True when `event` (the next in log order) is about the account.
    public mutating func includes(_ event: ViewEvent) -> Bool {
        switch (event.category, event.fact) {
        case (.registration, .accountCreated(let created, let createdEmail, _)):
            if created == uid {
                (registration, email, ownsEmail) = (event.stream, createdEmail, true)
                return true
            }
            if createdEmail == email, !ErasedText.isErased(createdEmail) { ownsEmail = false }  // the email's failures are the new account's now
            return event.stream == registration
        case (.registration, _):
            return event.stream == registration
        case (.session, .sessionStarted(let session, let owner, _)):
            guard owner == uid else { return sessions.contains(event.stream) }
            sessions.insert(session)
            return true
        case (.session, _):
            return sessions.contains(event.stream)
        case (.account, .emailChanged(_, let newEmail, _)):
            if event.stream == uid {
                (email, ownsEmail) = (newEmail, true)
                return true
            }
            if newEmail == email, !ErasedText.isErased(newEmail) { ownsEmail = false }  // the email's failures are the other account's now
            return false
        case (.account, _):
            return event.stream == uid
        case (.signin, .signInFailed(let tried, _)):
            // An erased email reads empty: it names no one, so it matches no refused sign-in.
            return ownsEmail && tried == email && !ErasedText.isErased(tried)
        case (.signin, _), (.migration, _):
            return false
        }
    }
}
