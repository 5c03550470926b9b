import LedgerDomain

// MARK: - TokenMessage

/// The message that carries a verification or reset token to the account's email: with the
/// operator's link template for its kind, one link holding the token; without one, the token alone
/// on its line and the `ledger` command to give it to. Either way the token appears once.
public enum TokenMessage {
    /// The links to use, by kind (nil: the command form).
    public struct Links: Equatable, Sendable {
        /// `LEDGER_VERIFY_LINK`'s template.
        public var verify: LinkTemplate?
        /// `LEDGER_RESET_LINK`'s template.
        public var reset: LinkTemplate?

        /// Links from their templates.
        public init(verify: LinkTemplate? = nil, reset: LinkTemplate? = nil) { self.verify = verify; self.reset = reset }

        /// The templates of `LEDGER_VERIFY_LINK` and `LEDGER_RESET_LINK` in `environment` (unset or empty: none).
        public static func fromEnvironment(_ environment: [String: String]) throws(EnvironmentError) -> Links {
            func template(_ name: String) throws(EnvironmentError) -> LinkTemplate? {
                guard let text = environment[name], !text.isEmpty else { return nil }
                return try LinkTemplate(text, variable: name)
            }
            return Links(verify: try template("LEDGER_VERIFY_LINK"), reset: try template("LEDGER_RESET_LINK"))
        }
    }

    /// The message of `kind` carrying `token` (valid until `expires`, an RFC 3339 time, when known) to `to`, from `from`.
    public static func message(_ kind: AccountTokens.Kind, token: String, to: String, from: String, expires: String?,
                               links: Links) -> MailMessage {
        let until = expires.map { ", until \($0)" } ?? ""
        switch kind {
        case .verification:
            let action = links.verify.map { "To verify it, open this link (it works once\(until)):\n\n\($0.link(token: token))" } ?? """
                To verify it, run the command below and give it this token as the line of its standard input
                (the token works once\(until)):

                \(token)

                    ledger account verify-email --token-stdin
                """
            return MailMessage(to: to, from: from, subject: "Verify your email address", body: """
                Someone, hopefully you, asked to verify this email address for a ledger account.
                \(action)

                If you did not ask for this, ignore this message.
                """)
        case .reset:
            let action = links.reset.map { "To choose a new password, open this link (it works once\(until)):\n\n\($0.link(token: token))" } ?? """
                To choose a new password, run the command below and give it this token as the first line of its
                standard input and the new password as the second (the token works once\(until)):

                \(token)

                    ledger account reset-password --token-stdin
                """
            return MailMessage(to: to, from: from, subject: "Reset your password", body: """
                Someone, hopefully you, asked to reset the password of the ledger account of this email address.
                \(action)

                Every session of the account ends, and a lockout is lifted. If you did not ask for this,
                ignore this message: the password stays as it is.
                """)
        }
    }
}
