// MARK: - PostgresError

/// A failure reported by libpq or the server: one line, never containing the password.
public struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The SQLSTATE code (`23505` unique violation, …), empty for client-side failures.
    public let sqlState: String
    /// The server's or libpq's message, made one line.
    public let message: String
    /// True when the connection is gone (server down, restarted, network cut): nothing uncommitted survived.
    public let connectionLost: Bool
    /// For a constraint violation: the constraint's name.
    public let constraint: String?

    /// An error from its parts; `message` is folded to one line.
    public init(sqlState: String = "", _ message: String, connectionLost: Bool = false, constraint: String? = nil) {
        self.sqlState = sqlState
        self.message = Self.oneLine(message)
        self.connectionLost = connectionLost
        self.constraint = constraint
    }

    /// The message.
    public var description: String { message }

    /// True for `23505` (unique_violation).
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// libpq messages span lines (`…failed: Connection refused\n\tIs the server running…`): joined with `; `.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.drop(while: { $0 == " " || $0 == "\t" }) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}
