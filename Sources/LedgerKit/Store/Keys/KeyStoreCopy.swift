import Glibc
import LedgerDomain

// MARK: - KeyStoreCopy

/// `ledger export --keys FILE`: the data keys of a store, written as a key store file
/// (`events.keys` format, mode 0600) beside an export, so that the exported log can be read,
/// verified (`verify --keys FILE`) and imported (`import --keys FILE`) elsewhere. Written to a
/// temporary file, synced, renamed into place, the folder synced: never half a file at FILE.
public enum KeyStoreCopy {
    /// Writes the file store's key store at `sourcePath` to `path`, as it stands once the keys of
    /// `erased` (the subjects the log's erasure events name) are destroyed in it: a key store
    /// restored from a backup never lends a copy what the log erased.
    public static func write(copyOfStoreAt sourcePath: String, erased: Set<SubjectID>, to path: String) throws {
        let source = try StoreError.mappingKeys { () throws(KeyStoreError) in try KeyStore(path: sourcePath, writable: !erased.isEmpty) }
        for subject in erased.sorted(by: { $0.text < $1.text }) where try StoreError.mappingKeys({ () throws(KeyStoreError) in try source.state(of: subject) }) == .live {
            try StoreError.mappingKeys { () throws(KeyStoreError) in try source.erase(subject: subject) }
        }
        let bytes = try StoreError.mappingKeys { () throws(KeyStoreError) in try source.snapshot() }
        try StoreError.mapping { try FileSystem.writeAtomically(bytes, to: path, mode: 0o600) }
    }

    /// Writes `subjects` (each key, nil when erased) to `path` as a new key store.
    public static func write(_ subjects: [(subject: SubjectID, key: [UInt8]?)], to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        do {
            let store = try StoreError.mappingKeys { () throws(KeyStoreError) in try KeyStore(path: temporary, writable: true) }
            store.syncsEachWrite = false
            for (subject, key) in subjects { try StoreError.mappingKeys { () throws(KeyStoreError) in try store.adopt(subject, key: key) } }
            try StoreError.mappingKeys { () throws(KeyStoreError) in try store.sync() }
            try StoreError.mapping {
                guard rename(temporary, path) == 0 else { throw SystemError("rename", path: path, code: errno) }
                try FileSystem.syncDirectory(FileSystem.directoryName(path))
            }
        } catch {
            unlink(temporary)
            throw error
        }
    }
}

extension StoreError {
    /// Runs `body`, turning a key store's refusal into an I/O `StoreError` naming it.
    static func mappingKeys<T>(_ body: () throws(KeyStoreError) -> T) throws -> T {
        do { return try body() } catch { throw StoreError(.io, "the key store: \(error.message)") }
    }
}
