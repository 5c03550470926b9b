// MARK: - LogErasuresOpener

/// An opener that reads the subjects a log erases as erased, whatever the opener under it says:
/// what a fold of the whole log holds of them, from any line, once the log's erasure events have
/// won (a key store restored from a backup still has their keys). `verify` folds with it to check a
/// cache against the log: the cache was written by a read that started over when it met those
/// erasures.
public struct LogErasuresOpener: PersonalDataOpener {
    /// What opens the other subjects' members.
    public let base: any PersonalDataOpener
    /// The erased accounts, by their uid's bits (looked up without spelling a subject per member).
    private let accounts: Set<UUIDBits>
    /// The other erased subjects (address days).
    private let others: Set<SubjectID>

    /// `base`, with every subject in `erased` read as erased.
    public init(base: any PersonalDataOpener, erased: Set<SubjectID>) {
        self.base = base
        accounts = Set(erased.compactMap(\.accountBits))
        others = erased.filter { $0.accountBits == nil }
    }

    /// `.erased` for an erased subject, else `base`'s text of `member`.
    public func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        let erased = member.subject.accountBits.map(accounts.contains) ?? others.contains(member.subject)
        return erased ? .erased : base.open(member, eventID: eventID, type: type, name: name)
    }

    /// `.erased` for an erased subject, else `base`'s text of `member`.
    public func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
        let erased = member.account.map(accounts.contains) ?? (!others.isEmpty && others.contains(member.subject))
        return erased ? .erased : base.open(member, eventID: eventID, type: type, name: name)
    }

    /// `base`'s answer.
    public func noteErased(_ subject: SubjectID) -> Bool { base.noteErased(subject) }
    /// `base`'s hint.
    public func prepareToOpen(account uid: UUIDBits) { base.prepareToOpen(account: uid) }

    /// `base`'s answer.
    public func opens(_ name: String, of type: EventType) -> Bool { base.opens(name, of: type) }
}
