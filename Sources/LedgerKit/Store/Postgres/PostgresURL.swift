// MARK: - PostgresURL

/// A `postgres://` (or `postgresql://`) connection URL, as given to `--store` or `LEDGER_STORE`.
/// Its password never appears in anything ledger prints: use `redacted` in messages.
public struct PostgresURL: Equatable, Sendable, CustomStringConvertible {
    /// The URL exactly as given (handed to libpq, never printed).
    public let text: String

    /// The URL when `text` starts with `postgres://` or `postgresql://`, else nil.
    public init?(_ text: String) {
        guard Self.isPostgres(text) else { return nil }
        self.text = text
    }

    /// True when `text` names a PostgreSQL server rather than a file store.
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The URL with any password replaced by `***` (`postgres://user:***@host/db`), also in `password=` query parameters.
    public var redacted: String {
        guard let afterScheme = Self.afterScheme(text) else { return text }
        var rest = String(text[afterScheme...])
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
            rest.replaceSubrange(rest.index(after: colon)..<at, with: "***")
        }
        if let query = rest.firstIndex(of: "?") {
            let parameters = rest[rest.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { part in
                part.lowercased().hasPrefix("password=") ? "password=***" : String(part)
            }
            rest = String(rest[...query]) + parameters.joined(separator: "&")
        }
        return String(text[..<afterScheme]) + rest
    }

    /// The redacted URL.
    public var description: String { redacted }

    /// The same server with another database: the path of the URL replaced by `/database`.
    public func withDatabase(_ database: String) -> PostgresURL {
        guard let afterScheme = Self.afterScheme(text) else { return self }
        let rest = text[afterScheme...]
        let pathStart = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let queryStart = rest[pathStart...].firstIndex(of: "?") ?? rest.endIndex
        return PostgresURL(uncheckedText: String(text[..<pathStart]) + "/" + database + String(rest[queryStart...]))
    }

    /// The index just after `://`.
    private static func afterScheme(_ text: String) -> String.Index? {
        let marker = Array("://")
        let characters = Array(text)
        guard let offset = (0..<max(0, characters.count - 2)).first(where: { Array(characters[$0..<$0 + 3]) == marker }) else { return nil }
        return text.index(text.startIndex, offsetBy: offset + 3)
    }

    private init(uncheckedText: String) { self.text = uncheckedText }
}
