// MARK: - ClaimedEmail

extension LedgerEvent {
    /// The email this event takes for an account, nil when it takes none: an `AccountCreated`'s and
    /// an `EmailChanged`'s new one. Sign-up uniqueness (`AppendCondition.uniqueEmails`) refuses an
    /// append whose claimed email a live account holds, or an earlier event of the append claimed.
    public var claimedEmail: String? {
        switch self {
        case .accountCreated(let created): created.email
        case .emailChanged(let changed): changed.email
        default: nil
        }
    }
}
