import LedgerDomain
import LedgerKit

// MARK: - UsersCommand

/// `ledger users` and `ledger user UID|EMAIL`.
enum UsersCommand {
    /// `ledger users`.
    static let listSpec = CommandSpec(name: "users", summary: "list users (uid, email, name, image, createdAt, status)",
                                      options: ReadOptions.specs)
    /// `ledger user`.
    static let showSpec = CommandSpec(name: "user", summary: "show one user by uid or email",
                                      positionals: [PositionalSpec(name: "UID|EMAIL", optional: false, help: "the user's id or email")],
                                      options: ReadOptions.specs)

    /// Runs `users`.
    static func list(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let users = try ReadOptions.load(invocation, context, views: .users).views.users
        if invocation.flag("json") {
            context.printRows { ViewRowsWriter.users(users, sink: $0) }
        } else {
            let rows = users.rows
            context.printTable(Table(headers: ["UID", "EMAIL", "USERNAME", "STATUS", "CREATED"],
                                     rows: rows.map { [$0.uid, $0.email, $0.userName ?? "-", $0.status.rawValue, $0.createdAt?.rfc3339 ?? "-"] }),
                               noun: "user")
        }
        return 0
    }

    /// Runs `user`.
    static func show(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let key = invocation.positionals[0]
        let users = try ReadOptions.load(invocation, context, views: .users).views.users
        // A uid names its account; an email its live account, else the last created with it.
        let email = key.lowercasedASCII
        let row = users.row(uid: key) ?? users.live(email: email) ?? users.rows.last { $0.email == email }
        guard let row else {
            throw CLIError.failure("no user with uid or email \"\(key)\"; list them with `ledger users`")
        }
        if invocation.flag("json") {
            context.printJSON(row.json)
        } else {
            for (name, value) in [("uid", row.uid), ("email", row.email), ("userName", row.userName ?? "-"),
                                  ("profileImageName", row.profileImageName ?? "(default image)"),
                                  ("createdAt", row.createdAt?.rfc3339 ?? "-"), ("status", row.status.rawValue)] {
                context.print(pad(name + ":", 18) + value)
            }
        }
        return 0
    }
}
