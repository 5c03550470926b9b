import LedgerKit

// MARK: - AccountCommand: delete

extension AccountCommand {
    /// delete: by an operator, or by the owner proving the password (`--password-stdin`).
    static let deleteActions: [Action] = [
        Action(name: "delete", takesAccount: true, options: ["password-stdin", "keep-personal-data"]) { invocation, context in
            try delete(invocation, context)
        },
        Action(name: "erase", takesAccount: true, options: []) { invocation, context in
            let account = invocation.positionals[1]
            let outcome = try context.withLedger(invocation) { try await $0.erase(account: account) }
            report(outcome, status: "erased", done: "erased: its personal data is forgotten", endsSessions: false, invocation, context)
            return 0
        },
    ]

    /// `ledger account delete UID|EMAIL [--password-stdin]`: `ImageDeleted` (when it has a profile
    /// image), `SessionEnded` per active session and `AccountDeleted`, one append; then the image's
    /// file is removed. Reason `user-request` when the password was given (and right), else `operator`.
    private static func delete(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let key = invocation.positionals[1]
        let outcome: Ledger.AccountChange
        let reason: AccountDeletedReason
        let keep = invocation.flag("keep-personal-data")
        if invocation.flag("password-stdin") {
            reason = .userRequest
            let password = try PasswordInput.read(invocation, context)
            guard let checked = try proved(invocation, context, { try await $0.delete(account: key, password: password, keepPersonalData: keep) })
            else { return CLIError.Status.failure.rawValue }
            outcome = checked
        } else {
            reason = .operator
            outcome = try context.withLedger(invocation) { try await $0.delete(account: key, keepPersonalData: keep) }
        }
        let erased = outcome.erased
        let personalData = erased ? "erased" : keep ? "kept" : "not-encrypted"
        context.recorded.note("account \(outcome.uid) deleted (\(reason.rawValue)), \(outcome.endedSessions.count) sessions ended, personal data \(personalData)")
        let removal = outcome.imageRemoval
        if case .left(let name, let problem) = removal {
            context.complain("account \(outcome.uid) is deleted, but its image file \(name) could not be removed (\(problem)); `ledger recover` removes it")
        }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("status", .string("deleted")), ("uid", .string(outcome.uid)), ("email", outcome.emailJSON),
                ("reason", .string(reason.rawValue)), ("imageDeleted", .bool(removal.fileGone)), ("personalData", .string(personalData)),
                ("endedSessions", .array(outcome.endedSessions.map { .string($0) })),
            ])))
        } else {
            let named = outcome.email.map { " (\(OneLine.escaped($0)))" } ?? ""
            context.print("account \(outcome.uid)\(named) deleted (\(reason.rawValue)); its email is free to register again")
            switch personalData {
            case "erased": context.print("its personal data is erased: its emails, username and password hashes can no longer be read")
            case "kept": context.print("its personal data is kept (--keep-personal-data); `ledger account erase \(outcome.uid)` erases it")
            default: context.print("its personal data is not erased: the log is data version 1 (`ledger migrate` to a version 2 folder first)")
            }
            if case .removed(let name) = removal { context.print("profile image \(name) removed") }
            context.print("\(outcome.endedSessions.count) session\(outcome.endedSessions.count == 1 ? "" : "s") ended")
        }
        return 0
    }
}

extension Ledger.AccountChange {
    /// The email as JSON: null once it is erased.
    var emailJSON: JSONValue { email.map(JSONValue.string) ?? .null }
    /// The email for a line of text: `[erased]` once it is erased.
    var emailText: String { email.map(OneLine.escaped) ?? "[erased]" }
}

extension AccountService.ImageRemoval {
    /// True when the command deleted an image and its file is gone.
    var fileGone: Bool { if case .removed = self { true } else { false } }
}
