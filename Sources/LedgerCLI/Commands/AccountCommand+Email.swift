import LedgerKit

// MARK: - AccountCommand: change the email

extension AccountCommand {
    /// change-email: the owner moves the account to a new email, proving the password.
    static let emailActions: [Action] = [
        Action(name: "change-email", takesAccount: false, options: ["email", "new-email", "password-stdin"], required: ["email", "new-email"]) { invocation, context in
            try changeEmail(invocation, context)
        },
    ]

    /// `ledger account change-email --email E --new-email N --password-stdin`: `EmailChanged`, under
    /// sign-up's uniqueness rule (the store's append condition decides a race for N: one wins).
    private static func changeEmail(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let email = invocation.required("email"), typed = invocation.required("new-email")
        let newEmail: String
        switch Ledger.Input.email(typed) {
        case .success(let email): newEmail = email
        case .failure(let error): throw CLIError.usage("--new-email: \(error.message)")
        }
        let password = try PasswordInput.read(invocation, context)
        guard let outcome = try proved(invocation, context, { try await $0.changeEmail(email: email, password: password, newEmail: newEmail) })
        else { return CLIError.Status.failure.rawValue }
        let previous = outcome.previousEmail ?? outcome.email ?? ""
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("status", .string("email-changed")), ("uid", .string(outcome.uid)), ("email", .string(newEmail)),
                ("previousEmail", .string(previous)), ("accountStatus", .string(outcome.status)),
                ("endedSessions", .array(outcome.endedSessions.map { .string($0) })),
            ])))
        } else {
            context.print("account \(outcome.uid) now has the email \(OneLine.escaped(newEmail)) (was \(OneLine.escaped(previous))); it is unverified until verified again")
        }
        return 0
    }
}
