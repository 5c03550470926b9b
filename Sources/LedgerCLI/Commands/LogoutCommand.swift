import LedgerKit

// MARK: - LogoutCommand

/// `ledger logout --session ID`.
enum LogoutCommand {
    /// The definition.
    static let spec = CommandSpec(name: "logout", summary: "end a session",
                                  options: [.option("session", "ID", "the session id: list them with `ledger sessions --active`", required: true), .flag("json", "print {status, sessionId}")])

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let session = Identifiers.typed(invocation.required("session"))
        try context.withLedger(invocation) { try await $0.signOut(sessionId: session) }
        context.recorded.note("session \(session) ended")
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([("status", .string("signed-out")), ("sessionId", .string(session))])))
        } else {
            context.print("session \(session) ended")
        }
        return 0
    }
}
