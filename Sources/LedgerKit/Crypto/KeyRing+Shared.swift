import LedgerDomain
import Synchronization

// MARK: - KeyRing: one ring per data directory

extension KeyRing {
    /// One ring per data directory in this process, so every read of a folder opens its key store once.
    private static let rings = Mutex<[String: KeyRing]>([:])

    /// From now on in this process, the log `logPath` is read with the key store at `keyStorePath`
    /// instead of the one beside it (`--keys FILE`: an exported log and its exported keys).
    public static func use(keyStorePath: String, forLog logPath: String) {
        let directory = FileSystem.directoryName(logPath)
        rings.withLock { $0[directory] = KeyRing(keyStorePath: keyStorePath) }
    }

    /// The ring of the data directory that holds the log `logPath`.
    public static func forLog(_ logPath: String) -> KeyRing {
        let directory = FileSystem.directoryName(logPath)
        return rings.withLock { rings in
            if let ring = rings[directory] { return ring }
            let ring = KeyRing(directory: directory)
            rings[directory] = ring
            return ring
        }
    }
}
