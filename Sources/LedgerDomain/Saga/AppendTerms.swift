// MARK: - AppendTerms

/// What the write of a decision's events must also do, decided by the saga's table and carried out
/// by the shell: the store's email check for events that claim an email (one live account per
/// email), and the first session that starts in the write completing a registration.
public struct AppendTerms: Equatable, Sendable {
    /// The events claim an email: the store refuses them when a live account holds it.
    public var uniqueEmail: Bool
    /// The account whose first session starts in the same write (all or nothing with it).
    public var firstSession: String?

    /// Terms from their parts (none by default).
    public init(uniqueEmail: Bool = false, firstSession: String? = nil) {
        self.uniqueEmail = uniqueEmail; self.firstSession = firstSession
    }

    /// These terms and `other`'s, for one write holding both decisions' events.
    public func merged(with other: AppendTerms) -> AppendTerms {
        AppendTerms(uniqueEmail: uniqueEmail || other.uniqueEmail, firstSession: other.firstSession ?? firstSession)
    }
}
