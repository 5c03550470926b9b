import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - LibraryStore

/// The stores the library suite runs its one body on.
enum LibraryStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case file, postgres

    var testDescription: String { rawValue }

    /// A fresh place for one test: a folder (the file log, or the images beside a PostgreSQL log)
    /// and on PostgreSQL a database of its own on the throwaway cluster, its tables made.
    func place(_ label: String) throws -> LibraryPlace {
        let folder = try TemporaryFolder(label)
        switch self {
        case .file:
            return LibraryPlace(folder: folder, url: nil)
        case .postgres:
            let url = try PostgresServer.get().createDatabase()
            try PostgresEventStore(url: url).createSchema()
            return LibraryPlace(folder: folder, url: url)
        }
    }
}

// MARK: - LibraryPlace

/// Where one library test's ledger lives, and what the test reads back of it.
struct LibraryPlace: Sendable {
    /// The data directory.
    let folder: TemporaryFolder
    /// The PostgreSQL database, nil on the file store.
    let url: PostgresURL?

    /// The configuration that opens it (yescrypt cost 1).
    var configuration: Ledger.Configuration {
        Ledger.Configuration(directory: folder.path, hashCost: 1, store: url.map(Ledger.Store.postgres) ?? .file)
    }

    /// Every event stored, read by a store of its own.
    func events() throws -> [RecordedEvent] {
        if let url { return try PostgresEventStore(url: url).readAll() }
        return try FileEventStore(directory: folder.path).readAll()
    }

    /// The uids of every `AccountCreated` stored.
    func createdUIDs() throws -> Set<String> { Self.createdUIDs(in: try events()) }

    /// The uids of every `AccountCreated` among `events` (the log read once already).
    static func createdUIDs(in events: [RecordedEvent]) -> Set<String> {
        Set(events.compactMap { event -> String? in
            if case .accountCreated(let account) = event.event { account.uid } else { nil }
        })
    }

    /// `ledger verify` of the stored log, as the command line runs it.
    func verify() throws -> ProcessResult {
        if let url { return try ledger("verify", "--data", folder.path, "--store", url.text) }
        return try ledger("verify", "--data", folder.path)
    }

    /// Removes the folder and drops the database.
    func remove() {
        folder.remove()
        if let url, let server = try? PostgresServer.get() { server.dropDatabase(url) }
    }
}
