import LedgerKit

// MARK: - AccountCommand

/// `ledger account ACTION …`: what an account's owner or an operator does to it after sign-up,
/// decided by `AccountFold.decide`. Each action is one row of `actions`: its name, what it takes,
/// and the function that runs it (one file per group of actions).
enum AccountCommand {
    /// One action.
    struct Action: Sendable {
        /// The word typed.
        let name: String
        /// True when it names its account by the UID|EMAIL positional (else by `--email`, or by a token).
        let takesAccount: Bool
        /// The options it accepts besides `--json`.
        let options: Set<String>
        /// The options it needs (with a non-empty value), in the order its help line names them.
        var required: [String] = []
        /// Runs it.
        let run: @Sendable (Invocation, Context) throws -> Int32
    }

    /// The actions, in the order `--help` lists them.
    static let actions: [Action] = AccountCommand.operatorActions + passwordActions + emailActions + deleteActions + tokenActions

    /// The definition.
    static let spec = CommandSpec(
        name: "account", summary: "an account's life after sign-up: disable, enable, sign out everywhere, change the email, delete, …",
        positionals: [PositionalSpec(name: "ACTION", optional: false, help: actions.map(\.name).joined(separator: ", "),
                                     choices: actions.map(\.name)),
                      PositionalSpec(name: "UID|EMAIL", optional: true, help: "the account's id or email (disable, enable, sign-out-everywhere, delete, erase)")],
        options: [.option("reason", "TEXT", "disable: the operator's reason, kept in the log (at most 500 characters)"),
                  .option("email", "E", "change-password, change-email, send-verification, request-reset: the account's current email (the requests answer alike whoever holds it)"),
                  .option("new-email", "N", "change-email: the new email (normalized to lowercase; the rule of `register`)"),
                  .flag("password-stdin", "change-password: the current then the new password; change-email, delete: the account's password (a line each, on standard input)"),
                  .flag("keep-personal-data", "delete: keep the account's personal data (a legal hold, shown by the audit) instead of erasing it"),
                  .flag("token-stdin", "verify-email, reset-password: read the token from the first line of standard input (reset-password: the new password from the second)"),
                  .flag("json", "print one JSON object: the outcome, or {status: refused, reason, message}")],
        details: """
        disable: AccountDisabled, and every active session ends (account-disabled); sign-in is then refused.
        enable: AccountEnabled (a disabled account only).
        sign-out-everywhere: every active session ends (revoked).
        change-password --email E: PasswordChanged, and every active session ends (password-changed); a wrong current password is a refused sign-in.
        change-email --email E --new-email N: EmailChanged, once the password is checked as login checks it; refused when a live account holds N.
        delete: ImageDeleted (with a profile image), every session ended, AccountDeleted; by an operator, or with
          --password-stdin by the owner (user-request). The image file is removed once that is durable.
          On a data version 2 log the same append erases its personal data (PersonalDataErased: its key is destroyed
          once the append is durable), unless --keep-personal-data; on a version 1 log nothing is erased (`ledger migrate` first).
        erase: PersonalDataErased for an account deleted earlier (refused account-live for a live one, already-erased, migrate-first).
        send-verification, request-reset --email E: a token mailed through LEDGER_MAILER (e.g. '/usr/sbin/sendmail -t'); exit 3 without one.
        verify-email, reset-password --token-stdin: redeem a token once (reset: every session ends, the lockout is lifted).
        A refusal (see the state table in Docs/CLI.md) prints one line and exits 1.
        """)

    /// Runs it: checks that the action takes what was given, then runs the action.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let name = invocation.positionals[0]
        guard let action = actions.first(where: { $0.name == name }) else { throw CLIError.usage("unknown account action \"\(name)\"") }
        if action.takesAccount, invocation.positionals.count < 2 {
            throw CLIError.usage("`ledger account \(name)` needs UID|EMAIL (usage: ledger account \(name) UID|EMAIL)")
        }
        if action.takesAccount, invocation.positionals[1].allSatisfy({ $0 == " " || $0 == "\t" }) {
            throw CLIError.usage("`ledger account \(name)` needs UID|EMAIL, not an empty value")
        }
        if !action.takesAccount, invocation.positionals.count > 1 {
            throw CLIError.usage("`ledger account \(name)` takes no UID|EMAIL argument")
        }
        for option in spec.options.map(\.name) where option != "json" && invocation.flag(option) && !action.options.contains(option) {
            throw CLIError.usage("--\(option) does not go with `ledger account \(name)`")
        }
        if let missing = spec.options.first(where: { action.required.contains($0.name) && $0.isMissing(from: invocation.options) }) {
            throw ArgumentParser.missingOption(missing, of: "account \(name)")
        }
        do {
            return try action.run(invocation, context)
        } catch let error as LedgerError {
            guard let refusal = error.cause as? AccountRefusal else { throw error }
            return report(refused: refusal.code.rawValue, refusal.message, invocation, context)
        }
    }

    /// Prints a refusal by the account's state (`{status: refused, reason, message}` with `--json`,
    /// else one line on standard error) and returns exit status 1.
    static func report(refused reason: String, _ message: String, _ invocation: Invocation, _ context: Context) -> Int32 {
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([("status", .string("refused")), ("reason", .string(reason)),
                                                  ("message", .string(message))])))
        } else {
            context.complain(message)
        }
        return CLIError.Status.failure.rawValue
    }

    /// Runs an owner's command (the password proved as `login` proves it); nil, having printed
    /// `login`'s refusal, when the sign-in is refused.
    static func proved(_ invocation: Invocation, _ context: Context,
                       _ call: @escaping @Sendable (Ledger) async throws -> Ledger.AccountChange) throws -> Ledger.AccountChange? {
        do {
            return try context.withLedger(invocation, call)
        } catch let error as LedgerError where error.code == .signInRefused {
            _ = LoginCommand.refused(error.message, invocation, context)
            return nil
        }
    }

    /// Prints what an action did to an account: `{status, uid, email, accountStatus, endedSessions}`
    /// with `--json`, else a line saying `done` and the sessions it ended.
    static func report(_ outcome: Ledger.AccountChange, status: String, done: String, endsSessions: Bool = true,
                       _ invocation: Invocation, _ context: Context) {
        if outcome.appended > 0 { context.recorded.note("account \(outcome.uid) \(done), \(outcome.endedSessions.count) sessions ended") }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("status", .string(status)), ("uid", .string(outcome.uid)), ("email", outcome.emailJSON),
                ("accountStatus", .string(outcome.status)),
                ("endedSessions", .array(outcome.endedSessions.map { .string($0) })),
            ])))
        } else {
            context.print("account \(outcome.uid) (\(outcome.emailText)) \(done)")
            if !outcome.endedSessions.isEmpty || endsSessions {
                context.print("\(outcome.endedSessions.count) session\(outcome.endedSessions.count == 1 ? "" : "s") ended")
            }
        }
    }
}
