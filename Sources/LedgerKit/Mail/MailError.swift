// MARK: - MailError

/// Why a message to a user could not be sent; `code` is stable, `message` is for people.
public struct MailError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// `LEDGER_MAILER` is not set.
        case notConfigured = "mailer-not-configured"
        /// A header would hold a line break, or `LEDGER_MAIL_FROM` is no address.
        case invalidMessage = "invalid-message"
        /// The mailer could not be started, exited non-zero or was killed.
        case failed = "mailer-failed"
    }

    /// The code.
    public let code: Code
    /// One-line message.
    public let message: String

    /// An error from its parts.
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }

    /// The message.
    public var description: String { message }
}
