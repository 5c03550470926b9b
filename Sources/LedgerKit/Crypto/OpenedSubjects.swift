import LedgerDomain
import Synchronization

// MARK: - OpenedSubjects

/// An opener that notes the subjects whose members `base` opened to text: a fold that later meets
/// an erasure of one of them (a key restored from a backup taken before the erasure opened it)
/// folded the erased data, and must fold again with the log's erasures winning
/// (`LogErasuresOpener`). Safe to share between the scanner's threads.
final class OpenedSubjects: PersonalDataOpener {
    private let base: any PersonalDataOpener
    private let opened = Mutex<Set<SubjectID>>([])

    /// A watch over `base`.
    init(_ base: any PersonalDataOpener) { self.base = base }

    /// `base`'s answer, noting the subject when it is text.
    func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        let answer = base.open(member, eventID: eventID, type: type, name: name)
        if case .text = answer { opened.withLock { _ = $0.insert(member.subject) } }
        return answer
    }

    /// `base`'s answer for a member read in place, noting the subject when it is text.
    func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
        let answer = base.open(member, eventID: eventID, type: type, name: name)
        if case .text = answer { opened.withLock { _ = $0.insert(member.subject) } }
        return answer
    }

    /// True when a member of `subject` was opened to text.
    func wasOpened(_ subject: SubjectID) -> Bool { opened.withLock { $0.contains(subject) } }

    /// `base`'s answer.
    func noteErased(_ subject: SubjectID) -> Bool { base.noteErased(subject) || wasOpened(subject) }

    /// `base`'s answer.
    func opens(_ name: String, of type: EventType) -> Bool { base.opens(name, of: type) }

    /// `base`'s hint.
    func prepareToOpen(account uid: UUIDBits) { base.prepareToOpen(account: uid) }
}
