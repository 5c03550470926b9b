import LedgerDomain
import LedgerKit

// MARK: - LogoutCommand

/// `ledger logout --session ID`.
enum LogoutCommand {
    /// The definition.
    static let spec = CommandSpec(name: "logout", summary: "end a session",
                                  options: [.option("session", "ID", "the session id"), .flag("json", "print {status, sessionId}")])

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        guard let session = invocation.value("session").map(Identifiers.typed) else { throw CLIError.usage("`ledger logout` needs --session ID (list them with `ledger sessions --active`)") }
        _ = try Services.sessions(invocation, context).logout(sessionId: session)
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([("status", .string("signed-out")), ("sessionId", .string(session))])))
        } else {
            context.print("session \(session) ended")
        }
        return 0
    }
}
