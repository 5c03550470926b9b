// MARK: - The personal members each view reads

extension LedgerViews.Selection {
    /// The views whose fold reads personal member `member` of an event of `type` (through
    /// `ViewEvent.Fact`); a read that folds none of them may leave that member sealed. The table
    /// follows the folds, and `ViewsOpenerTests` checks it: folding random histories with only these
    /// members opened gives the same views as with every member opened.
    /// - A password hash and a profile's email are in no fact: no view keeps them.
    /// - A refused sign-in's email counts only in the sign-in view: the account fold keeps failures
    ///   (and the rule a locked account breaks) only while that view is folded (`LedgerViews`'
    ///   `mayHaveFailures` and `appendFailure`).
    /// - A `Failed` event is kept only by the registrations view.
    /// Every other personal member is read by every view that folds accounts.
    public static func readers(of member: String, in type: EventType) -> LedgerViews.Selection {
        switch type {
        case .accountCreated where member == "passwordHash": []
        case .profileWritten where member == "email", .passwordChanged: []
        case .signInFailed: .signIns
        case .failed: .registrations
        default: .all
        }
    }

    /// True when folding these views reads personal member `member` of `type` (`readers`).
    public func reads(_ member: String, of type: EventType) -> Bool { !isDisjoint(with: Self.readers(of: member, in: type)) }
}
