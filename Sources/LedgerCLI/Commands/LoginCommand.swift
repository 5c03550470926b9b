import LedgerKit

// MARK: - LoginCommand

/// `ledger login --email E [--password-stdin] [--json]`.
enum LoginCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "login", summary: "sign in: start a session and print its token once",
        options: [.option("email", "E", "the account's email", required: true),
                  .flag("password-stdin", "read the password from the first line of standard input"),
                  .flag("json", "print {status, sessionId, uid, token, expiresAt}")],
        details: "A refused sign-in prints the same message and exits 1 whatever the reason.",
        outputMustBeReceived: true)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let email = invocation.required("email")
        let password = try PasswordInput.read(invocation, context)
        let started: Ledger.Session
        do {
            started = try context.withLedger(invocation) { try await $0.signIn(email: email, password: password) }
        } catch let error as LedgerError where error.code == .signInRefused {
            return refused(error.message, invocation, context)
        }
        context.recorded.note("session \(started.sessionId) started for uid \(started.uid), its token lost (end it with `ledger logout --session \(started.sessionId)`)")
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("status", .string("signed-in")), ("sessionId", .string(started.sessionId)), ("uid", .string(started.uid)),
                ("token", .string(started.token)), ("expiresAt", .string(started.expiresAt)),
            ])))
        } else {
            context.print("signed in uid \(started.uid)")
            context.print("session \(started.sessionId) (expires \(started.expiresAt))")
            context.print("token \(started.token)   (shown once: keep it secret)")
        }
        return 0
    }

    /// Prints a refused sign-in (`{status: refused, message}` with `--json`, else one line) and returns
    /// its exit status: the answer of every command that checks a password, whatever the reason.
    static func refused(_ message: String, _ invocation: Invocation, _ context: Context) -> Int32 {
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([("status", .string("refused")), ("message", .string(message))])))
        } else {
            context.complain(message)
        }
        return CLIError.Status.failure.rawValue
    }
}
