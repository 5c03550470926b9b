import LedgerKit

// MARK: - UsersCommand

/// `ledger users` and `ledger user UID|EMAIL`.
enum UsersCommand {
    /// `ledger users`.
    static let listSpec = CommandSpec(name: "users", summary: "list users (uid, email, username, status, verified, created)",
                                      options: ReadOptions.specs)
    /// `ledger user`.
    static let showSpec = CommandSpec(name: "user", summary: "show one user by uid or email",
                                      positionals: [PositionalSpec(name: "UID|EMAIL", optional: false, help: "the user's id or email")],
                                      options: ReadOptions.specs + [
                                          .flag("history", "list every event about the account in log order (--json: the lines as stored)"),
                                      ])

    /// Runs `users`.
    static func list(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let users = try ReadOptions.load(invocation, context, views: .users).views.users
        if invocation.flag("json") {
            context.printRows { ViewRowsWriter.users(users, sink: $0) }
        } else {
            let rows = users.rows
            context.printTable(Table(headers: ["UID", "EMAIL", "USERNAME", "STATUS", "VERIFIED", "CREATED"],
                                     rows: rows.map { [$0.uid, ErasedText.forTable($0.email), ErasedText.isErased($0.email) ? ErasedText.shown : $0.userName ?? "-", $0.status.rawValue, $0.emailVerified ? "yes" : "no",
                                                       $0.createdAt?.rfc3339 ?? "-"] }),
                               noun: "user")
        }
        return 0
    }

    /// Runs `user`.
    static func show(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let key = invocation.positionals[0]
        if key.allSatisfy({ $0 == " " || $0 == "\t" }) { throw CLIError.usage("`ledger user` needs UID|EMAIL, not an empty value") }
        let history = invocation.flag("history")
        if history, invocation.value("as-of") != nil { throw CLIError.usage("--history lists the whole log; leave out --as-of") }
        let source = try ReadOptions.source(invocation, context)
        let users = try ReadOptions.load(invocation, context, views: .users, source: source).views.users
        guard let row = users.row(uidOrEmail: key) else {
            throw CLIError.failure("no user with uid or email \"\(key)\"; list them with `ledger users`")
        }
        if history { return try showHistory(of: row, log: source, invocation, context) }
        if invocation.flag("json") {
            context.printJSON(row.json)
        } else {
            let erased = ErasedText.isErased(row.email)
            for (name, value) in [("uid", row.uid), ("email", ErasedText.forTable(row.email)), ("userName", erased ? ErasedText.shown : row.userName ?? "-"),
                                  ("profileImageName", row.profileImageName ?? "(default image)"),
                                  ("createdAt", row.createdAt?.rfc3339 ?? "-"), ("status", row.status.rawValue),
                                  ("emailVerified", row.emailVerified ? "yes" : "no")] {
                context.print(pad(name + ":", 18) + OneLine.escaped(value))
            }
        }
        return 0
    }

    /// Prints every event about `row`'s account (`AccountHistory`), in log order: a table, or with
    /// `--json` the lines as stored. Exit 1 at a damaged line, after the events before it.
    private static func showHistory(of row: UserRow, log source: LogSource, _ invocation: Invocation, _ context: Context) throws -> Int32 {
        var listing = EventListing(json: invocation.flag("json"), following: false, context: context)
        let outcome = try source.readHistory(ofAccount: row.uid) { event, line in
            listing.add(event, line: line)
            return true
        }
        if outcome == .missing { throw CLIError.noLog(at: source.name) }
        listing.finish()
        if case .damaged(let problem) = outcome {
            context.complain("\(problem) — stopped there; run `ledger verify` for the full report")
            return CLIError.Status.failure.rawValue
        }
        return 0
    }
}
