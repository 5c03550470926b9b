import LedgerKit

// MARK: - SessionsCommand

/// `ledger sessions [--active]`.
enum SessionsCommand {
    /// The definition.
    static let spec = CommandSpec(name: "sessions", summary: "list sessions (active, ended or expired as of the as-of time)",
                                  options: [.flag("active", "only active sessions")] + ReadOptions.specs)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let loaded = try ReadOptions.load(invocation, context, views: .sessions)
        let asOf = loaded.asOfTime
        if invocation.flag("json") {
            context.printRows { ViewRowsWriter.sessions(loaded.views.sessions, at: asOf, activeOnly: invocation.flag("active"), sink: $0) }
        } else {
            let rows = loaded.views.sessions.rows.filter { !invocation.flag("active") || $0.status(at: asOf) == .active }
            context.printTable(Table(headers: ["SESSION", "UID", "STARTED", "EXPIRES", "STATUS"],
                                     rows: rows.map { [$0.sessionId, $0.uid, $0.startedAt.rfc3339, $0.expiresAt.rfc3339, $0.status(at: asOf).rawValue] }),
                               noun: "session")
        }
        return 0
    }
}
