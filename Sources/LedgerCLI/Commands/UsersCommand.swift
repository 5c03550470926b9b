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
        let matches = users.rows.filter { $0.uid == key || $0.email == key.lowercasedASCII }
        guard let row = matches.first(where: { $0.status.holdsEmail }) ?? matches.last else {
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
