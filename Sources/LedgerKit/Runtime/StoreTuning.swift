import Synchronization

// MARK: - StoreTuning

/// The stores' settings an operator may change (checkpoint interval, the writers' index, the drills'
/// I/O faults): read from the environment once, at the edge (the `ledger` command line, the drill
/// and bench tools), and installed before the first store opens. Code below the edge asks
/// `StoreTuning.current` and never the environment; a library user who installs nothing gets the
/// defaults, whatever the process's environment holds.
public struct StoreTuning: Equatable, Sendable {
    /// Events between view checkpoints (`LEDGER_CHECKPOINT_EVERY`); 0 turns them off.
    public var checkpointInterval = 10_000
    /// Whether writers keep the index file (`LEDGER_STORE_INDEX`).
    public var writersIndex = true
    /// The drills' injected I/O faults (`LEDGER_IO_FAULTS`): the Nth call of each operation fails.
    public var ioFaults: [IOFaults.Operation: Int] = [:]

    /// The defaults.
    public init() {}

    /// The settings `environment` names, by the rules of `LedgerEnvironment`.
    public static func fromEnvironment(_ environment: [String: String]) throws(EnvironmentError) -> StoreTuning {
        var tuning = StoreTuning()
        tuning.checkpointInterval = try LedgerEnvironment.checkpointInterval(environment["LEDGER_CHECKPOINT_EVERY"])
        tuning.writersIndex = try LedgerEnvironment.storeIndexEnabled(environment["LEDGER_STORE_INDEX"])
        tuning.ioFaults = try LedgerEnvironment.ioFaults(environment["LEDGER_IO_FAULTS"])
        return tuning
    }

    /// The settings this process's environment names (for the tools' edges; `ledger` reads its
    /// environment once into its context and calls `fromEnvironment`).
    public static func fromProcessEnvironment() throws(EnvironmentError) -> StoreTuning {
        let names = ["LEDGER_CHECKPOINT_EVERY", "LEDGER_STORE_INDEX", "LEDGER_IO_FAULTS"]
        var environment: [String: String] = [:]
        for name in names { environment[name] = LedgerEnvironment.process(name) }
        return try fromEnvironment(environment)
    }

    private static let installed = Mutex(StoreTuning())

    /// The settings in force (the defaults until an edge installs others).
    public static var current: StoreTuning { installed.withLock { $0 } }

    /// Puts `tuning` in force for this process (the I/O fault counts start over).
    public static func install(_ tuning: StoreTuning) {
        installed.withLock { $0 = tuning }
        IOFaults.reset(targets: tuning.ioFaults)
    }
}
