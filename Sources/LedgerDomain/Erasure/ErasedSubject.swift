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
