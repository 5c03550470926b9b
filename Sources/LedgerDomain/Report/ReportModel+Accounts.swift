// MARK: - The accounts' part of the report

extension ReportModel {
    /// One email's refused sign-ins (as `ledger audit`'s `signInFailures`).
    public struct SignInRow: Equatable, Sendable {
        /// The email tried (unmasked; the renderer masks it).
        public var email: String
        /// Refused sign-ins in total, whatever the reason.
        public var failures: Int
        /// True when the email is locked out at the report's as-of time.
        public var locked: Bool
    }

    /// The rows of `view` at `asOf`, in first-failure order.
    static func signInRows(_ view: SignInView, at asOf: Timestamp) -> [SignInRow] {
        view.rows.map { SignInRow(email: $0.email, failures: $0.failures, locked: view.lockedUntil($0, at: asOf) != nil) }
    }
}
