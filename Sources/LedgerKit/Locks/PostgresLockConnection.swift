// MARK: - PostgresLockConnection

/// The connection a family of session advisory locks lives on: its own, opened on first use and
/// again after a loss, so the server releases the locks with it when this process ends.
final class PostgresLockConnection {
    /// The server.
    let url: PostgresURL
    private var open: PostgresConnection?

    /// A connection to `url`, not opened yet.
    init(url: PostgresURL) { self.url = url }

    /// The open connection, opened (again) when it has none.
    func get() throws -> PostgresConnection {
        if let open, open.isOpen { return open }
        let made = try PostgresConnection.forStore(url)
        open = made
        return made
    }
}
