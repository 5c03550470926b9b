import LedgerDomain
import Synchronization

// MARK: - MissingKeys

/// `verify`'s key check: an opener that passes every member to the folder's key ring and notes the
/// subjects it finds without a key (the first event that needed each), and the accounts whose
/// erasure the log records. A subject without a key that no erasure event names lost its data:
/// `missing-key`.
final class MissingKeys: PersonalDataOpener {
    private let inner: any PersonalDataOpener
    private let noted = Mutex<[SubjectID: (event: String, why: String)]>([:])

    /// A watch over `inner`.
    init(_ inner: any PersonalDataOpener) { self.inner = inner }

    /// `inner`'s answer, noting a missing key.
    func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        let opened = inner.open(member, eventID: eventID, type: type, name: name)
        note(opened, subject: member.subject, eventID: eventID)
        return opened
    }

    /// `inner`'s answer for a member read in place, noting a missing key.
    func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
        let opened = inner.open(member, eventID: eventID, type: type, name: name)
        if case .text = opened { return opened }
        note(opened, subject: member.subject, eventID: eventID.uuidString)
        return opened
    }

    /// Notes `subject` when `opened` is not its text: the first event that needed its key, and why.
    private func note(_ opened: OpenedMember, subject: SubjectID, eventID: String) {
        let why: String? = switch opened {
        case .text: nil
        case .missingKey: "is not in the key store"
        case .unreadable(let reason): "does not open its members (\(reason): a damaged key store, or another folder's)"
        // Erased by the key store: lost unless an erasure event of the log names the subject.
        case .erased: "is erased in the key store"
        }
        if let why { noted.withLock { if $0[subject] == nil { $0[subject] = (eventID, why) } } }
    }

    /// The subjects whose members did not open, each with the first event that needed its key and why.
    var missing: [SubjectID: (event: String, why: String)] { noted.withLock { $0 } }

    /// The `missing-key` problems of the log `source`, whose intact lines were just read with this
    /// watch, given the accounts its erasure events name: each on the line of the first event that
    /// needs the key (found by a second read, in line order, only when a key is missing: the first
    /// read opens members on several threads at once, so the event it noted first for a subject
    /// need not be its first line). The second read goes to the log's end as it is then: a writer
    /// may have appended an erasure after the first read's last line, and destroyed its key before
    /// the first read asked for it; a subject an erasure event names, there too, lost nothing.
    func problems(_ source: LogSource, erased: Set<SubjectID>) throws -> [LogProblem] {
        let lost = missing.filter { subject, _ in !erased.contains(subject) }
        guard !lost.isEmpty else { return [] }
        let needs = FirstNeeds(Set(lost.keys), opening: inner)
        var firstLines: [SubjectID: Int] = [:]
        var erasedLater: Set<SubjectID> = []
        var checker = ChainChecker(opener: needs)
        try LogScanner.scan(try source.open(usingCheckpoint: false).bytes, checker: &checker) { item in
            guard case .event(let event, _, _) = item else { return false }
            for subject in needs.delivered(event.envelope.id) where firstLines[subject] == nil { firstLines[subject] = event.seq }
            if let subject = ViewEvent(event).fact.erasedSubject, lost[subject] != nil { erasedLater.insert(subject) }
            return true
        }
        let opensOthers = needs.openedSome
        return firstLines.filter { !erasedLater.contains($0.key) }.map { subject, line in
            // A key that opens some of its subject's members and not this one: this member changed.
            opensOthers.contains(subject)
                ? LogProblem(line: line, kind: .missingKey,
                             message: "a member of \(subject) on this line does not open with its key, which opens the subject's other members: its bytes were changed (and the line hashed and chained again); its personal data is lost")
                : LogProblem(line: line, kind: .missingKey,
                             message: "the key of \(subject) \(lost[subject]!.why) and no erasure event names it: its personal data is lost")
        }.sorted { ($0.line, $0.message) < ($1.line, $1.message) }
    }
}

/// The second read of `MissingKeys.problems`: opens, as members are opened (ahead of the lines'
/// delivery, on any thread), the members of the subjects whose key is lost with the first read's
/// opener, and notes the events with one that does not open, until the event is delivered in line
/// order: every event of a subject without a key, only the changed members' of one whose key opens
/// the others. Gives the checker nothing (every member reads as erased).
private final class FirstNeeds: PersonalDataOpener {
    private let lost: Set<SubjectID>
    private let inner: any PersonalDataOpener
    private let pending = Mutex<[String: [SubjectID]]>([:])
    private let opened = Mutex<Set<SubjectID>>([])

    init(_ lost: Set<SubjectID>, opening inner: any PersonalDataOpener) { self.lost = lost; self.inner = inner }

    func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        guard lost.contains(member.subject) else { return .erased }
        note(member.subject, eventID, inner.open(member, eventID: eventID, type: type, name: name))
        return .erased
    }

    func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
        let subject = member.subject
        guard lost.contains(subject) else { return .erased }
        note(subject, eventID.uuidString, inner.open(member, eventID: eventID, type: type, name: name))
        return .erased
    }

    private func note(_ subject: SubjectID, _ eventID: String, _ result: OpenedMember) {
        if case .text = result {
            opened.withLock { _ = $0.insert(subject) }
            return
        }
        pending.withLock { $0[eventID, default: []].append(subject) }
    }

    /// The lost subjects the event `id` (delivered now) has a member of that did not open; forgotten once asked.
    func delivered(_ id: String) -> [SubjectID] { pending.withLock { $0.removeValue(forKey: id) } ?? [] }

    /// The lost subjects of which some member opened.
    var openedSome: Set<SubjectID> { opened.withLock { $0 } }
}
