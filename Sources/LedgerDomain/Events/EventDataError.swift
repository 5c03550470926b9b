// MARK: - EventDataError

/// A `data` payload that does not match its type's schema.
public struct EventDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The offending member.
    public let member: String
    /// What is wrong with it.
    public let problem: String
    /// A one-line description.
    public var description: String { "data.\(member) \(problem)" }
}
