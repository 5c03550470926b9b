import LedgerDomain

// MARK: - Ledger, input checked before a secret is read

extension Ledger {
    /// What a client checks before it asks for a password, so a typing mistake is refused before
    /// the secret is read: the ledger's own rules (stated once in `LedgerDomain`), called from here.
    public enum Input {
        /// `typed` as the ledger stores an email (normalized), or why it is not an address.
        public static func email(_ typed: String) -> Result<String, LedgerError> {
            let normalized = EmailRule.normalized(typed)
            if let problem = EmailRule.problem(normalized) { return .failure(LedgerError(.invalidInput, problem)) }
            return .success(normalized)
        }

        /// Why `password` cannot be an account's password (sign-up's rule), or nil.
        public static func passwordProblem(_ password: String) -> String? {
            RegistrationValidator.passwordProblem(password)?.message
        }

        /// The password a line of input spells: its bytes as text, or (not UTF-8) a text every
        /// password check and rule refuses.
        public static func password(fromLine bytes: [UInt8]) -> String { PasswordRule.text(fromBytes: bytes) }

        /// The largest profile image `register` takes unless told otherwise, in bytes.
        public static let defaultMaxImageBytes = ImageInspector.defaultMaxBytes
    }
}
