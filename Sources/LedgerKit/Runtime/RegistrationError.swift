import LedgerDomain

// MARK: - RegistrationError

/// Why a registration was refused before anything was appended; `code` is stable, `message` is for people.
public struct RegistrationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// The idempotency key was first used with another email, username, image or password.
        case idempotencyKeyReused = "idempotency-key-reused"
    }

    /// The code (also the `reason` printed with `--json`).
    public let code: Code
    /// The registration the key maps to.
    public let registration: String
    /// One-line message.
    public let message: String

    /// An error from its parts.
    public init(_ code: Code, registration: String, _ message: String) {
        self.code = code; self.registration = registration; self.message = message
    }

    /// A repeat of registration `registration` that asked for something else (`difference`).
    public static func keyReused(registration: String, _ difference: RegistrationRepeat.Difference) -> RegistrationError {
        let what = difference == .validation ? "an input that validates differently" : "another \(difference.rawValue)"
        return RegistrationError(.idempotencyKeyReused, registration: registration,
                                 "the idempotency key was first used for registration \(registration) with \(what): nothing was appended; use a new key for a new registration")
    }

    /// The message.
    public var description: String { message }
}
