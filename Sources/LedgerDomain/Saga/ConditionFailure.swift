// MARK: - ConditionFailure

/// Why an append condition refused a batch, as the saga reads it; the raw value is the stable
/// reason printed and recorded (`Failed.reason`, `StoreError.reason`).
public enum ConditionFailure: String, Equatable, Sendable {
    /// An `AccountCreated` whose email has a live account, or repeats an email of the same batch.
    case emailTaken = "email-already-in-use"
    /// Another process holds the registration's lock.
    case registrationRunning = "in-progress"
}
