import LedgerDomain

// MARK: - RecoveryReport

/// What `ledger recover` did.
public struct RecoveryReport: Equatable, Sendable {
    /// True when a torn last line was moved aside.
    public var repairedTornTail = false
    /// Registrations failed as `interrupted`.
    public var interrupted: [String] = []
    /// Registrations whose compensations were completed.
    public var compensated: [String] = []
    /// Registrations still compensation-pending (a step failed again).
    public var stillPending: [String] = []
    /// Registrations skipped because their process is running.
    public var skippedRunning: [String] = []
    /// Orphan image files removed.
    public var removedImages: [String] = []
    /// Temporary files of the data folder whose writer died (`StaleTemporaryFiles`), removed.
    public var removedTemporaryFiles: [String] = []
    /// Subjects whose erasure the log records but whose key the key store still held (an erasure a
    /// crash cut short, or a key store restored from a backup taken before the erasure): their keys
    /// destroyed now.
    public var destroyedKeys: [String] = []
    /// Those of `destroyedKeys` whose erasure a crash cut short (the others' keys came back with a
    /// restored key store).
    public var finishedErasures: [String] = []

    /// True when nothing was changed.
    public var changedNothing: Bool {
        !repairedTornTail && interrupted.isEmpty && compensated.isEmpty && removedImages.isEmpty && removedTemporaryFiles.isEmpty
            && destroyedKeys.isEmpty
    }
}

// MARK: - Recovery

extension RegistrationCoordinator {
    /// Finishes every registration whose process died, removes orphan image files (`BlobFolderEntry`),
    /// repairs a torn tail and destroys the keys a restored key store brought back to erased
    /// subjects. Registrations whose lock a live process holds are left alone. Idempotent.
    ///
    /// Every decision comes from the verified log, never from a cache (a re-sealed checkpoint could
    /// call a complete registration in progress, a shortened index slot end its stream early, and
    /// compensating it deletes a live account and its image): the candidates from a fold of the whole
    /// log, each one's state from its stream read again through the whole log once its lock is held.
    /// Cost: two folds of the log and one scan for erasure events (about a second per million
    /// events each), plus one read per registration left unfinished.
    public func recover() throws -> RecoveryReport {
        var report = RecoveryReport()
        report.repairedTornTail = try store.repairTail()
        report.removedTemporaryFiles = try StaleTemporaryFiles.remove(in: directory)
        let destroyed = try store.destroyKeysTheLogErased()
        report.destroyedKeys = destroyed.all.map(\.text)
        report.finishedErasures = destroyed.cutShort.map(\.text)
        var views = try currentViews()
        for candidate in views.registrations.rows where candidate.outcome == .inProgress || candidate.outcome == .compensationPending {
            let registration = candidate.registration
            guard let lock = try locks.acquire(registration) else {
                report.skippedRunning.append(registration)
                continue
            }
            defer { lock.release() }
            var state = RegistrationState(registration: registration)
            try store.readStream(StreamCategory.registration.stream(registration)).forEach { state.evolve($0) }
            if state.outcome == .inProgress {
                state = try record(RegistrationSaga.interrupted(state), on: state)
                report.interrupted.append(registration)
            }
            guard state.outcome == .compensationPending else { continue }
            state = try drive(state, plan: nil)
            if state.outcome == .compensated { report.compensated.append(registration) } else { report.stillPending.append(registration) }
        }
        // Order matters with registrations running concurrently: list the files first, then the images
        // of running registrations, then the log. A file listed was noted in its lock before it was
        // written; if its process released the lock before we looked, its events are in the log we read after.
        let files = try blobs.names()
        let running = try locks.imagesOfRunningRegistrations()
        views = LedgerViews()  // free the first fold before the second
        // Removing is destructive: a blob is an orphan only when the whole verified log says so (a
        // re-sealed checkpoint may have forgotten a live user's image).
        views = try currentViews()
        let imageFolder = FileSystem.join(directory, "profile_image")
        let entries = files.map { BlobFolderEntry(name: $0, in: imageFolder) }
        // A foreign file (not a name the ledger writes) is left: `audit` reports it as one for the operator.
        for entry in entries where entry.isOrphan(images: views.images, running: running) {
            if case .image(let name) = entry {
                try blobs.remove(name)
            } else {
                try FileSystem.remove(FileSystem.join(FileSystem.join(directory, "profile_image"), entry.name))
            }
            report.removedImages.append(entry.name)
        }
        // Locks left by processes killed after their registration's last event (no process takes the
        // lock of a finished registration again: a repeat with its idempotency key answers from the log),
        // or before its first.
        try locks.removeStale { registration in
            let outcome = views.registrations.state(of: registration)?.outcome
            return outcome == .inProgress || outcome == .compensationPending
        }
        return report
    }

    /// Every view, folded from the whole verified log up to the head (never from a checkpoint).
    private func currentViews() throws -> LedgerViews {
        try store.currentViews(now: clock.now(), usingCheckpoint: false)
    }
}
