import LedgerDomain

// MARK: - LinkTemplate

/// The link an account message carries instead of a command: an operator's URL template holding
/// `{token}` exactly once (`LEDGER_VERIFY_LINK='https://app.example.com/verify?token={token}'`,
/// `LEDGER_RESET_LINK=…`), `https:` (or `http://localhost`, for development), printable ASCII
/// without spaces. The token (a uid, a dot and hex digits) needs no escaping in a URL.
public struct LinkTemplate: Equatable, Sendable {
    /// The template as given.
    public let text: String

    /// The template `text`, or `invalid` with the rule it breaks (`variable` names it in the message).
    public init(_ text: String, variable: String) throws(EnvironmentError) {
        let lower = text.lowercasedASCII
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://localhost/") || lower.hasPrefix("http://localhost:") else {
            throw EnvironmentError(variable, "must be an https: URL (http://localhost for development)", text)
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw EnvironmentError(variable, "must be printable ASCII without spaces", nil)
        }
        guard text.split(separator: "{token}", omittingEmptySubsequences: false).count == 2 else {
            throw EnvironmentError(variable, "must hold {token} exactly once (where the token goes)", text)
        }
        self.text = text
    }

    /// The link for `token`.
    public func link(token: String) -> String { text.replacing("{token}", with: token) }
}
