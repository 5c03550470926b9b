// MARK: - ErasedSubject

extension ViewEvent.Fact {
    /// The subject whose key an erasure event destroyed (`PersonalDataErased`: the account's;
    /// `AddressDataErased`: one day's addresses); nil for every other event.
    public var erasedSubject: SubjectID? {
        switch self {
        case .personalDataErased(let uid, _): .account(uid)
        case .addressDataErased(let subject): subject
        default: nil
        }
    }
}

extension LedgerEvent {
    /// The subject an erasure event destroys the key of; nil for every other event.
    public var erasedSubject: SubjectID? { ViewEvent.Fact(self).erasedSubject }
}

extension ViewEvent {
    /// `fact.erasedSubject` of the event at `event`, read where it lies: the replay asks it of
    /// every line, and a copy of the fact retained its strings.
    @inline(__always)
    public static func erasedSubject(at event: UnsafePointer<ViewEvent>) -> SubjectID? {
        switch event.pointee.fact {
        case .personalDataErased(let uid, _): .account(uid)
        case .addressDataErased(let subject): subject
        default: nil
        }
    }
}
