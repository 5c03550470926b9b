import LedgerDomain
import LedgerKit

// MARK: - AccountCommand: delete

extension AccountCommand {
    /// delete: by an operator, or by the owner proving the password (`--password-stdin`).
    static let deleteActions: [Action] = [
        Action(name: "delete", takesAccount: true, options: ["password-stdin"]) { invocation, context in
            try delete(invocation, context)
        },
    ]

    /// `ledger account delete UID|EMAIL [--password-stdin]`: `ImageDeleted` (when it has a profile
    /// image), `SessionEnded` per active session and `AccountDeleted`, one append; then the image's
    /// file is removed. Reason `user-request` when the password was given (and right), else `operator`.
    private static func delete(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let key = invocation.positionals[1]
        let outcome: AccountService.Outcome
        let reason: AccountDeletedReason
        if invocation.flag("password-stdin") {
            reason = .userRequest
            let password = try PasswordInput.read(invocation, context)
            // No enumeration: a key that names no account is checked as login checks an unknown email
            // (the same hashing work, `SignInFailed` unknown-email in the log, the same refusal).
            // The uid "" matches no account, so even an account made meanwhile is refused.
            let named: (email: String, uid: String)
            do {
                let row = try service(invocation, context).account(named: key)
                named = (row.email, row.uid)
            } catch let error as AuthError where error.code == .noAccount {
                named = (key, "")
            }
            guard let checked = try withPassword(email: named.email, password: password, uid: named.uid, invocation, context,
                                                 decide: { _ in .delete(reason: reason) })
            else { return CLIError.Status.failure.rawValue }
            outcome = checked
        } else {
            reason = .operator
            outcome = try service(invocation, context).run(.delete(reason: reason), account: key)
        }
        context.recorded.note("account \(outcome.uid) deleted (\(reason.rawValue)), \(outcome.endedSessions.count) sessions ended")
        let removal = AccountService.removeImage(deletedBy: outcome, from: FileBlobStore(directory: context.dataDirectory(invocation)))
        if case .left(let name, let problem) = removal {
            context.complain("account \(outcome.uid) is deleted, but its image file \(name) could not be removed (\(problem)); `ledger recover` removes it")
        }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("status", .string("deleted")), ("uid", .string(outcome.uid)), ("email", .string(outcome.email)),
                ("reason", .string(reason.rawValue)), ("imageDeleted", .bool(removal.fileGone)),
                ("endedSessions", .array(outcome.endedSessions.map { .string($0) })),
            ])))
        } else {
            context.print("account \(outcome.uid) (\(OneLine.escaped(outcome.email))) deleted (\(reason.rawValue)); its email is free to register again")
            if case .removed(let name) = removal { context.print("profile image \(name) removed") }
            context.print("\(outcome.endedSessions.count) session\(outcome.endedSessions.count == 1 ? "" : "s") ended")
        }
        return 0
    }
}

extension AccountService.ImageRemoval {
    /// True when the command deleted an image and its file is gone.
    var fileGone: Bool { if case .removed = self { true } else { false } }
}
