import LedgerDomain
import Synchronization

// MARK: - WriterFoldOpener

/// The opener of a writer's fold of the log (`FileEventStore.catchUp`): its key ring's answers,
/// with every subject whose member had no key, or a key that does not open it, noted. A reader may
/// show such a member as erased; a writer must not decide on it (an account whose email reads as
/// erased would leave its email free for a second live account), so the fold that met one is
/// refused as damage unless the log erases the subject (`lost(erasing:)`).
final class WriterFoldOpener: PersonalDataOpener {
    /// The key ring that opens the members.
    let base: KeyRing
    private let missing = Mutex<Set<SubjectID>>([])

    /// The opener of a fold over `base`.
    init(_ base: KeyRing) { self.base = base }

    /// `base`'s text of `member`, a key missing or not opening it noted.
    func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        noted(base.open(member, eventID: eventID, type: type, name: name), member.subject)
    }

    /// `base`'s text of `member` read in place, a key missing or not opening it noted.
    func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
        let opened = base.open(member, eventID: eventID, type: type, name: name)
        switch opened {
        case .text, .erased: return opened
        case .missingKey, .unreadable: return noted(opened, member.subject)
        }
    }

    /// `base`'s answer.
    func noteErased(_ subject: SubjectID) -> Bool { base.noteErased(subject) }

    /// `base`'s answer.
    func opens(_ name: String, of type: EventType) -> Bool { base.opens(name, of: type) }

    /// `base`'s hint.
    func prepareToOpen(account uid: UUIDBits) { base.prepareToOpen(account: uid) }

    /// The subjects whose members the fold could not open, but for those the log erases (`erasing`).
    func lost(erasing erased: Set<SubjectID>) -> Set<SubjectID> { missing.withLock { $0.subtracting(erased) } }

    private func noted(_ opened: OpenedMember, _ subject: @autoclosure () -> SubjectID) -> OpenedMember {
        switch opened {
        case .text, .erased: break
        case .missingKey, .unreadable: let subject = subject(); missing.withLock { _ = $0.insert(subject) }
        }
        return opened
    }
}
