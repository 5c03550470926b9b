import Glibc
import LedgerDomain

// MARK: - WitnessStateFile

/// The state of `ledger witness`: the last checkpoint it cosigned, as a signed note holding the
/// log's signature and the witness's own cosignature (what a witness serves to monitors). Loading
/// verifies both: a file edited to another size or root fails the witness's own signature and is
/// refused as `state-damaged`, never trusted. Changed only under `STATE.lock` (an exclusive
/// `flock`), by an atomic replacement (temp, fsync, rename, fsync the folder).
public struct WitnessStateFile {
    /// The state file's path.
    public let path: String
    /// The log's key.
    public let logKey: NoteVerifierKey
    /// The witness's own key.
    public let witnessKey: NoteVerifierKey

    /// The state at `path` of the witness `witnessKey` following `logKey`.
    public init(path: String, logKey: NoteVerifierKey, witnessKey: NoteVerifierKey) {
        self.path = path; self.logKey = logKey; self.witnessKey = witnessKey
    }

    /// The lock file beside the state.
    public var lockPath: String { path + ".lock" }

    /// Takes the exclusive lock (waiting for another witness run to finish); held until the
    /// returned descriptor is released.
    public func lock() throws -> FileDescriptor {
        let file = try FileDescriptor(path: lockPath, flags: O_RDWR | O_CREAT, mode: 0o600)
        try file.lock(LOCK_EX)
        return file
    }

    /// The checkpoint last cosigned, nil when there is no state file yet.
    public func load() throws -> CheckpointBody? {
        guard FileSystem.exists(path) else { return nil }
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: SignedNote.maxBytes + 1) } catch let error as SystemError { throw error.asFileRead }
        do throws(NoteError) {
            guard bytes.count <= SignedNote.maxBytes else { throw NoteError(.malformedNote, "it is too large") }
            let note = try SignedNote(parsing: bytes)
            let body = try CheckpointBody(parsing: note.text)
            _ = try note.verify(requiring: [logKey, witnessKey], crypto: .libcrypto)
            guard body.origin == logKey.name else { throw NoteError(.malformedCheckpoint, "it is a checkpoint of \(body.origin), not of \(logKey.name)") }
            return body
        } catch {
            throw WitnessError(.stateDamaged, "the witness state \(path) does not verify (\(error.message)): it was edited or damaged; restore it from a backup, nothing was cosigned")
        }
    }

    /// Replaces the state with `note` (the checkpoint, the log's signature and the cosignature).
    public func save(_ note: SignedNote) throws {
        try FileSystem.writeAtomically(note.bytes, to: path, mode: 0o644)
    }
}
