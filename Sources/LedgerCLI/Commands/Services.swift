import LedgerDomain
import LedgerKit

// MARK: - Services

/// Builds the runtime services of a command from its context.
enum Services {
    /// The registration coordinator of the data directory.
    static func coordinator(_ invocation: Invocation, _ context: Context) throws -> RegistrationCoordinator {
        let directory = context.dataDirectory(invocation)
        let coordinator = RegistrationCoordinator(
            store: try context.store(invocation), blobs: FileBlobStore(directory: directory), directory: directory,
            clock: context.clock, random: context.random, hasher: try hasher(context), failpoints: try failpoints(context),
            locks: try context.registrationLocks(invocation))
        coordinator.beforeCrash = context.flush
        return coordinator
    }

    /// The session service of the data directory.
    static func sessions(_ invocation: Invocation, _ context: Context) throws -> SessionService {
        let service = SessionService(store: try context.store(invocation), signInLocks: try context.signInLocks(invocation),
                                     clock: context.clock, random: context.random, hasher: try hasher(context),
                                     failpoints: try failpoints(context))
        service.beforeCrash = context.flush
        return service
    }

    static func hasher(_ context: Context) throws -> PasswordHasher {
        do {
            return try PasswordHasher.fromEnvironment(context.environment)
        } catch {
            throw CLIError.usage("\(error); fix or unset LEDGER_HASH_COST")
        }
    }

    static func failpoints(_ context: Context) throws -> Failpoints {
        do {
            return try Failpoints(context.environment["LEDGER_FAILPOINTS"])
        } catch {
            throw CLIError.usage("\(error); fix or unset LEDGER_FAILPOINTS")
        }
    }
}
