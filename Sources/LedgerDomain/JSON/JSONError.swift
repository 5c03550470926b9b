// MARK: - JSONError

/// Why a byte sequence is not one strict JSON value.
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Byte offset of the problem.
    public let offset: Int
    /// What is wrong there.
    public let reason: String
    /// A one-line description.
    public var description: String { "\(reason) at byte \(offset + 1)" }
}
