import LedgerDomain
import LedgerKit

// MARK: - LoginCommand

/// `ledger login --email E [--password-stdin] [--json]`.
enum LoginCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "login", summary: "sign in: start a session and print its token once",
        options: [.option("email", "E", "the account's email"),
                  .flag("password-stdin", "read the password from the first line of standard input"),
                  .flag("json", "print {status, sessionId, uid, token, expiresAt}")],
        details: "A refused sign-in prints the same message and exits 1 whatever the reason.")

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        guard let email = invocation.value("email") else { throw CLIError.usage("`ledger login` needs --email E (see `ledger login --help`)") }
        let password = try PasswordInput.read(invocation, context)
        let started: SessionService.Started
        do {
            started = try Services.sessions(invocation, context).login(email: email, password: password)
        } catch let error as AuthError where error.code == .signInRefused {
            if invocation.flag("json") {
                context.printJSON(.object(JSONObject([("status", .string("refused")), ("message", .string(error.message))])))
            } else {
                context.complain(error.message)
            }
            return CLIError.Status.failure.rawValue
        }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("status", .string("signed-in")), ("sessionId", .string(started.sessionId)), ("uid", .string(started.uid)),
                ("token", .string(started.token)), ("expiresAt", .string(started.expiresAt.rfc3339)),
            ])))
        } else {
            context.print("signed in uid \(started.uid)")
            context.print("session \(started.sessionId) (expires \(started.expiresAt.rfc3339))")
            context.print("token \(started.token)   (shown once: keep it secret)")
        }
        return 0
    }
}

// MARK: - LogoutCommand

/// `ledger logout --session ID`.
enum LogoutCommand {
    /// The definition.
    static let spec = CommandSpec(name: "logout", summary: "end a session",
                                  options: [.option("session", "ID", "the session id"), .flag("json", "print {status, sessionId}")])

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        guard let session = invocation.value("session") else { throw CLIError.usage("`ledger logout` needs --session ID (list them with `ledger sessions --active`)") }
        _ = try Services.sessions(invocation, context).logout(sessionId: session)
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([("status", .string("signed-out")), ("sessionId", .string(session))])))
        } else {
            context.print("session \(session) ended")
        }
        return 0
    }
}

// MARK: - RecoverCommand

/// `ledger recover`: finishes registrations whose process died, removes orphan images, repairs a torn tail.
enum RecoverCommand {
    /// The definition.
    static let spec = CommandSpec(name: "recover", summary: "finish interrupted registrations, remove orphan images, repair a torn tail",
                                  options: [.flag("json", "print what was done as JSON")],
                                  details: "Registrations whose process is still running are left alone. Running it twice changes nothing the second time.")

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let report = try Services.coordinator(invocation, context).recover()
        if invocation.flag("json") {
            let list = { (items: [String]) -> JSONValue in .array(items.map(JSONValue.string)) }
            context.printJSON(.object(JSONObject([
                ("repairedTornTail", .bool(report.repairedTornTail)), ("interrupted", list(report.interrupted)),
                ("compensated", list(report.compensated)), ("stillPending", list(report.stillPending)),
                ("skippedRunning", list(report.skippedRunning)), ("removedImages", list(report.removedImages)),
            ])))
        } else if report.changedNothing && report.stillPending.isEmpty {
            context.print("nothing to recover\(report.skippedRunning.isEmpty ? "" : " (\(report.skippedRunning.count) registrations still running)")")
        } else {
            if report.repairedTornTail { context.print("repaired a torn last line") }
            for id in report.interrupted { context.print("interrupted: \(id)") }
            for id in report.compensated { context.print("compensated: \(id)") }
            for id in report.stillPending { context.print("still compensation-pending: \(id)") }
            for name in report.removedImages { context.print("removed orphan image file: \(name)") }
        }
        return report.stillPending.isEmpty ? 0 : CLIError.Status.failure.rawValue
    }
}
