// MARK: - PersonalDataOpener

/// What the readers of a data version 2 line ask to turn an encrypted personal member back into its
/// text: the shell implements it over the key store (`KeyRing`); the domain only calls it. The
/// keyless opener (`SealedOpener`) is what reads without keys use (`verify_log.py`'s view of a log).
public protocol PersonalDataOpener: Sendable {
    /// The text of `member` (named `name`, of event `eventID` of type `type`), or why there is none.
    func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember
    /// `open(_:eventID:type:name:)` of a member read in place (`LineCodec.readInPlace`), its parts
    /// in buffers valid during the call.
    func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember
    /// Told that the log erases `subject` (a `PersonalDataErased` was read): from now on its members
    /// open as erased, whatever the key store says (a key store restored from a backup taken before
    /// the erasure brings nothing back). True when members of it were opened to text before: what
    /// was read of them must be read again.
    func noteErased(_ subject: SubjectID) -> Bool
    /// False when the reader never reads member `name` of `type`: the in-place reader
    /// (`LineCodec.readInPlace`) then checks its form and leaves it sealed, read as no value, without
    /// calling `open`. The full path opens every member whatever this says.
    func opens(_ name: String, of type: EventType) -> Bool
    /// A hint, never a decision: a member of account `uid` is about to be opened, so the opener may
    /// start fetching what finding its key reads (the in-place reader says it before decoding the
    /// member's Base64). Nothing by default.
    func prepareToOpen(account uid: UUIDBits)
}

extension PersonalDataOpener {
    /// An opener that never opens anything to text has nothing to read again.
    public func noteErased(_ subject: SubjectID) -> Bool { false }
    /// Every member is read.
    public func opens(_ name: String, of type: EventType) -> Bool { true }
    /// Nothing to prepare.
    public func prepareToOpen(account uid: UUIDBits) {}

    /// The member spelled out (`SealedMember.encrypted`) and opened as such.
    public func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
        guard let encrypted = member.encrypted else { return .unreadable("not an encrypted member") }  // checked by the reader: never
        return open(encrypted, eventID: eventID.uuidString, type: type, name: name)
    }
}

/// What opening one encrypted member gave.
public enum OpenedMember: Equatable, Sendable {
    /// The member's text.
    case text(String)
    /// Its subject's key was destroyed by an erasure: the member is gone for good.
    case erased
    /// Its subject has no key at all (data loss unless an erasure event names the subject: `verify`
    /// tells); readers show it as erased.
    case missingKey
    /// The key is there but does not open it (another key in its place: a damaged key store).
    case unreadable(String)
}

/// The opener of reads that hold no keys: every member stays sealed, shown as erased (its form is
/// still checked). Used for lines whose personal data nobody reads (the chain and schema checks).
public struct SealedOpener: PersonalDataOpener {
    /// The opener.
    public init() {}

    /// Always `.erased`.
    public func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember { .erased }

    /// Always `.erased`.
    public func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember { .erased }
}
