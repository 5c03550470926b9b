import Glibc
import LedgerDomain

// MARK: - LogMigration

/// `ledger migrate`: copies a data version 1 log into a new data folder in data version 2. The old
/// log is verified whole first, then read again as a stream (under the readers' shared lock when its
/// folder has one) up to the head the verification found, and written by `MigratedLogWriter` into a
/// temporary folder beside the target (`DIR.migrating-<pid>`), with the profile images of the old
/// log's folder; once everything in it is synced, the folder is renamed to the target and the parent
/// folder synced. A failure removes the temporary folder; a crash leaves at most it, never a half
/// folder at the target. Nothing of the old folder is changed.
public enum LogMigration {
    /// What a migration did.
    public struct Report: Equatable, Sendable {
        /// The old log's events, all copied.
        public var events: Int
        /// The old log's head, which the migration event records.
        public var fromHead: Head
        /// The new log's head.
        public var head: Head
        /// Profile images copied.
        public var images: Int
    }

    /// Migrates the log at `logPath` into the new data folder `directory` (absent, or an empty folder).
    public static func migrate(from logPath: String, into directory: String, clock: any Clock,
                               random: any RandomSource) throws -> Report {
        guard FileSystem.exists(logPath) else { throw SystemError("open", path: logPath, code: ENOENT) }
        let oldFolder = FileSystem.directoryName(logPath)
        if FileSystem.exists(FileSystem.join(oldFolder, KeyStore.fileName)) {
            throw MigrationError(.alreadyVersion2, "\(logPath) is data version 2 already (its folder has a key store, \(KeyStore.fileName)): nothing to migrate")
        }
        try checkTarget(directory)
        let verified = try LogVerifier.verify(path: logPath)
        if let problem = verified.problems.first {
            if problem.kind == .missingKey {
                throw MigrationError(.alreadyVersion2, "\(logPath) holds data version 2 lines (line \(problem.line)): it was migrated already")
            }
            throw MigrationError(.damaged, "\(logPath) is damaged: \(problem); nothing was migrated (`ledger verify \(logPath)` names every problem, `ledger recover` repairs a torn tail)",
                                 problem: problem)
        }
        guard verified.events > 0 else {
            throw MigrationError(.emptyLog, "\(logPath) holds no event: nothing to migrate (a new data folder is written in data version 2 from its first event)")
        }
        let parent = FileSystem.directoryName(directory)
        try FileSystem.makeDirectories(parent)
        let temporary = "\(directory.hasSuffix("/") ? String(directory.dropLast()) : directory).migrating-\(getpid())"
        guard mkdir(temporary, 0o700) == 0 else { throw SystemError("create folder", path: temporary) }
        do {
            let head = try copy(logPath, verified: verified, into: temporary, migratedAt: clock.now(), random: random)
            let images = try copyImages(from: oldFolder, into: temporary)
            try FileSystem.syncDirectory(temporary)
            try checkTarget(directory)
            guard rename(temporary, directory) == 0 else { throw SystemError("rename", path: directory) }
            try FileSystem.syncDirectory(parent)
            return Report(events: verified.events, fromHead: verified.head, head: head, images: images)
        } catch {
            removeFolder(temporary)
            throw error
        }
    }

    /// Refuses a target that holds anything: a log, a key store, any other entry (or is not a folder).
    static func checkTarget(_ directory: String) throws {
        for name in ["events.jsonl", KeyStore.fileName] where FileSystem.exists(FileSystem.join(directory, name)) {
            throw MigrationError(.targetNotEmpty, "\(directory) already holds \(name): migrate never writes over a data folder; name a new or empty folder with --data")
        }
        if let entry = try FileBlobStore.list(directory).first {
            throw MigrationError(.targetNotEmpty, "\(directory) is not empty (it holds \(entry)): migrate writes a new data folder; name a new or empty folder with --data")
        }
    }

    /// Copies the old log's events up to the verified head into `folder`; returns the new head.
    private static func copy(_ logPath: String, verified: VerifyReport, into folder: String, migratedAt: Timestamp,
                             random: any RandomSource) throws -> Head {
        let writer = try MigratedLogWriter(directory: folder, fromHead: verified.head, events: verified.events,
                                           migratedAt: migratedAt, random: random)
        var failure: (any Error)?
        var last: Envelope?
        let outcome = try LogFollower(path: logPath).read { event, _ in
            do {
                try writer.copy(event)
            } catch {
                failure = error
                return false
            }
            last = event.envelope
            return event.seq < verified.head.seq
        }
        if let failure { throw failure }
        if case .damaged(let problem) = outcome {
            throw MigrationError(.logChanged, "\(logPath) changed while it was migrated: \(problem); nothing was migrated")
        }
        guard let last, last.seq == verified.head.seq, last.hash == verified.head.hash else {
            throw MigrationError(.logChanged, "\(logPath) changed while it was migrated (it no longer holds its head \(verified.head.anchor)); nothing was migrated")
        }
        return try writer.finish()
    }

    /// Copies the profile images in `oldFolder/profile_image` (files named by a UUID, as ledger
    /// writes them) into `folder`, each durably; returns how many.
    private static func copyImages(from oldFolder: String, into folder: String) throws -> Int {
        let source = FileBlobStore(directory: oldFolder), target = FileBlobStore(directory: folder)
        var copied = 0
        for name in try FileBlobStore.list(source.folder) where Identifiers.isLowercaseUUID(name) {
            guard let bytes = try source.get(name) else { continue }
            try target.put(name, bytes)
            copied += 1
        }
        return copied
    }

    /// Removes the temporary folder this migration made, and what it holds (one level of folders).
    private static func removeFolder(_ path: String) {
        for name in (try? FileBlobStore.list(path)) ?? [] {
            let entry = FileSystem.join(path, name)
            if (try? FileSystem.checkOwnFolder(entry)) == true {
                for inner in (try? FileBlobStore.list(entry)) ?? [] { unlink(FileSystem.join(entry, inner)) }
                rmdir(entry)
            } else {
                unlink(entry)
            }
        }
        rmdir(path)
    }
}
