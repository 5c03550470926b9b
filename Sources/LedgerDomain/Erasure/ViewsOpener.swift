// MARK: - ViewsOpener

/// The opener of a fold of some views: `base` opens the members, and the in-place reader leaves
/// sealed the personal members none of the views folded reads (`LedgerViews.Selection.readers`),
/// so a read decrypts only what it folds (`users` no refused sign-in's email, no read a password hash).
public struct ViewsOpener: PersonalDataOpener {
    /// What opens the members read.
    public let base: any PersonalDataOpener
    /// The views folded.
    public let selection: LedgerViews.Selection

    /// The opener of a fold of `selection` over `base`.
    public init(base: any PersonalDataOpener, selection: LedgerViews.Selection) { self.base = base; self.selection = selection }

    /// `base`'s text of `member`.
    public func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        base.open(member, eventID: eventID, type: type, name: name)
    }

    /// `base`'s text of `member`.
    public func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
        base.open(member, eventID: eventID, type: type, name: name)
    }

    /// `base`'s answer.
    public func noteErased(_ subject: SubjectID) -> Bool { base.noteErased(subject) }
    /// `base`'s hint.
    public func prepareToOpen(account uid: UUIDBits) { base.prepareToOpen(account: uid) }

    /// True when a view of `selection` reads the member.
    public func opens(_ name: String, of type: EventType) -> Bool { selection.reads(name, of: type) }
}
