import LedgerKit

// MARK: - Services

/// What the library's configuration takes from the environment, read with the command line's words for its errors.
enum Services {
    /// The yescrypt cost of `LEDGER_HASH_COST`.
    static func hasher(_ context: Context) throws -> PasswordHasher {
        do {
            return try PasswordHasher.fromEnvironment(context.environment)
        } catch {
            throw CLIError.usage("\(error); fix or unset LEDGER_HASH_COST")
        }
    }

    /// The drills' `LEDGER_FAILPOINTS`.
    static func failpoints(_ context: Context) throws -> Failpoints {
        do {
            return try Failpoints(context.environment["LEDGER_FAILPOINTS"])
        } catch {
            throw CLIError.usage("\(error); fix or unset LEDGER_FAILPOINTS")
        }
    }
}
