import LedgerKit

// MARK: - AccountCommand: the owner's password

extension AccountCommand {
    /// change-password: the owner names the account by `--email` and proves it with the current password.
    static let passwordActions: [Action] = [
        Action(name: "change-password", takesAccount: false, options: ["email", "password-stdin"], required: ["email"]) { invocation, context in
            try changePassword(invocation, context)
        },
    ]

    /// Reads the current and the new password (standard input, a line each, or two no-echo prompts),
    /// checks the new one against the sign-up rule, hashes it, then — under the email's sign-in lock,
    /// once the current password is checked as `login` checks it — appends `PasswordChanged` and
    /// ends every active session in one append. A wrong current password, an unknown email, a locked
    /// or disabled account: `login`'s refusal (exit 1), counted as `login` counts it.
    private static func changePassword(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let email = invocation.required("email")
        let lines = "write the current password, then the new one, a line each"
        let current = try PasswordInput.read(invocation, context, prompt: "Current password: ", missing: "standard input is empty; \(lines)", moreLines: true)
        let new = try PasswordInput.read(invocation, context, prompt: "New password: ", missing: "standard input has one line; \(lines)")
        if let problem = Ledger.Input.passwordProblem(new) { throw CLIError.usage("the new password: \(problem)") }
        guard let outcome = try proved(invocation, context, { try await $0.changePassword(email: email, currentPassword: current, newPassword: new) })
        else { return CLIError.Status.failure.rawValue }
        report(outcome, status: "password-changed", done: "has a new password", invocation, context)
        return 0
    }
}
