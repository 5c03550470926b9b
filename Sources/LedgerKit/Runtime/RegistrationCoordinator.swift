import LedgerDomain

// MARK: - RegistrationCoordinator

/// The imperative shell of the registration saga: it asks the run (`RegistrationRun`) what to do,
/// performs it (an action's part in the blob folder and the failpoints, or one durable write), reports
/// the outcome and asks again. `recover` runs the same loop from the state folded out of the log.
public final class RegistrationCoordinator {
    let store: any LedgerStore
    let blobs: any BlobStore
    let directory: String
    let clock: any Clock
    let random: any RandomSource
    let hasher: PasswordHasher
    let failpoints: Failpoints
    let locks: any RegistrationLocks
    /// Called before a failpoint kills the process (flush output).
    public var beforeCrash: () -> Void = {}
    /// The first session the write completing this run's registration started (the saga decides
    /// it, with the profile; `recover`, which writes no profile, starts none).
    private var started: SessionService.Started?

    /// A coordinator over the data directory's store and blob folder; `locks` defaults to lock files under `directory`.
    public init(store: any LedgerStore, blobs: any BlobStore, directory: String, clock: any Clock, random: any RandomSource,
                hasher: PasswordHasher, failpoints: Failpoints, locks: (any RegistrationLocks)? = nil) {
        self.store = store; self.blobs = blobs; self.directory = directory; self.clock = clock
        self.random = random; self.hasher = hasher; self.failpoints = failpoints
        self.locks = locks ?? FileRegistrationLocks(directory: directory)
    }

    /// The plan of one registration: what the steps record, and the image's bytes.
    struct Plan {
        let saga: RegistrationPlan
        let imageBytes: [UInt8]?
    }

    // MARK: - Register

    /// Runs a registration to its end. Throws when the log itself cannot be written, and
    /// `RegistrationError.idempotencyKeyReused` (appending nothing) when `idempotencyKey` was first
    /// used with another input.
    public func register(_ input: RegistrationInput, idempotencyKey: String?) throws -> RegistrationResult {
        let registration = idempotencyKey.map(Self.registrationID(forKey:)) ?? newID()
        let stream = StreamCategory.registration.stream(registration)
        if idempotencyKey != nil, let earlier = try earlierResult(stream, registration, input) { return earlier }
        guard let lock = try locks.acquire(registration) else {
            throw StoreError("registration \(registration) is running in another process", condition: .registrationRunning)
        }
        defer { lock.release() }
        if idempotencyKey != nil, let earlier = try earlierResult(stream, registration, input) { return earlier }
        let valid: ValidRegistration
        switch RegistrationValidator.validate(input) {
        case .failure(let refused):
            return result(try record(RegistrationSaga.rejected(refused), on: RegistrationState(registration: registration)))
        case .success(let ok):
            valid = ok
        }
        let imageName = valid.image == nil ? nil : newID()
        // Noted before the blob is written, so `recover` and `audit` leave it alone while this runs.
        if let imageName { try lock.noteImage(imageName) }
        try blobs.prepare()
        let uid = newID()
        let image = valid.image.flatMap { image in
            imageName.map { ImageStored(uid: uid, imageName: $0, contentType: image.contentType, bytes: image.bytes.count,
                                        sha256: SHA256.hex(image.bytes)) }
        }
        let plan = RegistrationPlan(uid: uid, email: valid.email, userName: valid.userName,
                                    passwordHash: try hasher.hash(valid.password, random: random), image: image)
        started = nil
        defer { started = nil }
        let state = try drive(RegistrationState(registration: registration), plan: Plan(saga: plan, imageBytes: valid.image?.bytes))
        var outcome = result(state)
        if state.outcome == .completed, let started {
            outcome.sessionId = started.sessionId
            outcome.token = started.token
        }
        return outcome
    }

    /// The registration id for an idempotency key: the first 16 bytes of SHA-256 of
    /// `ledger-idempotency-key:` + the key, as a version-4 UUID.
    public static func registrationID(forKey key: String) -> String {
        // The bytes are hashed inside `withUnsafeBytes`: a pointer taken out of it dangles.
        let digest = Array("ledger-idempotency-key:\(key)".utf8).withUnsafeBytes { SHA256.digest($0) }
        return Identifiers.uuid(fromRandom: Array(digest.prefix(16)))
    }

    /// The first attempt's outcome when `stream` has one, provided `input` asks for what it did.
    private func earlierResult(_ stream: String, _ registration: String, _ input: RegistrationInput) throws -> RegistrationResult? {
        // A new key (the usual case) is answered by the store's index; only a retry reads its stream.
        guard try store.streamVersion(stream) > 0 else { return nil }
        let events = try store.readIndexedStream(stream)
        guard !events.isEmpty else { return nil }
        if let difference = RegistrationRepeat.difference(input, firstAttempt: events.map(\.event), sha256Hex: { SHA256.hex($0) }) {
            throw RegistrationError.keyReused(registration: registration, difference)
        }
        var state = RegistrationState(registration: registration)
        events.forEach { state.evolve($0) }
        var out = result(state)
        out.replayed = true
        return out
    }

    // MARK: - The loop

    /// Carries out the run's instructions until it finishes (`RegistrationRun`: the saga's table
    /// decides every action, event, write and its terms); returns the registration's state. Events
    /// of steps with no outside effect share a write made before the next blob operation and at the
    /// end: a registration is one durable write, with an image too (its blob is written before the
    /// account, so nothing outside the log happens between the account and the profile).
    func drive(_ start: RegistrationState, plan: Plan?) throws -> RegistrationState {
        var run = RegistrationRun(start, plan: plan?.saga)
        var instruction = run.start(at: clock.now())
        while true {
            switch instruction {
            case .perform(let action):
                instruction = run.performed(try perform(action, plan: plan), at: clock.now())
            case .append(let events, let version, let terms, let outcomeOf):
                do {
                    try write(events, expected: version == 0 ? .noStream : .exactly(version), terms: terms, stream: run.state.registration)
                    instruction = run.appended(at: clock.now())
                } catch {
                    guard let action = outcomeOf else { throw error }
                    instruction = run.refused(try outcome(of: error, for: action), at: clock.now())
                }
            case .finish:
                return run.state
            }
        }
    }

    /// Performs the part of `action` outside the log (the blob folder, the failpoint before its event).
    private func perform(_ action: RegistrationSaga.Action, plan: Plan?) throws -> RegistrationSaga.StepOutcome {
        do {
            switch action {
            case .writeImage:
                guard let imageName = plan?.saga.image?.imageName, let bytes = plan?.imageBytes else { return .failed(message: "no image planned") }
                try failpoints.beforeAppending(.imageStored)
                do {
                    try blobs.put(imageName, bytes)
                } catch {
                    try? blobs.remove(imageName)  // e.g. renamed but its folder not synced; else `recover` removes it
                    throw error
                }
            case .createAccount:
                try failpoints.beforeAppending(.accountCreated)
            case .writeProfile:
                try failpoints.beforeAppending(.profileWritten)
            case .undoImage(_, let imageName):
                try failpoints.beforeAppending(.imageDeleted)
                try blobs.remove(imageName)
            case .undoAccount:
                try failpoints.beforeAppending(.accountDeleted)
            case .discardImage(let imageName):
                // No event owns it. If it cannot be removed now, `ledger recover` removes it as an orphan.
                try? blobs.remove(imageName)
            case .recordImage, .finish:
                break
            }
            return .done
        } catch {
            return try outcome(of: error, for: action)
        }
    }

    /// What `error` means as `action`'s outcome: the errors are read here, once. Errors after which
    /// nothing can be assumed about the log end the run: not durable always, damaged for a forward
    /// step (a compensation that meets a damaged log leaves the registration compensation-pending).
    private func outcome(of error: any Error, for action: RegistrationSaga.Action) throws -> RegistrationSaga.StepOutcome {
        if let error = error as? StoreError {
            if error.code == .notDurable || (error.code == .damaged && action.step != nil) { throw error }
            if let condition = error.condition { return .refused(condition, message: error.message) }
        }
        return .failed(message: "\(error)")
    }

    /// Appends `event` to the registration in a write of its own; a refusal is thrown.
    func record(_ event: LedgerEvent, on state: RegistrationState) throws -> RegistrationState {
        try write([event], expected: state.version == 0 ? .noStream : .exactly(state.version), terms: AppendTerms(), stream: state.registration)
        var state = state
        state.evolve(event)
        return state
    }

    /// Appends `events` to registration `registration`'s stream in one durable write, on the terms
    /// the saga decided: under the store's email check, and with the first session (`SessionStarted`
    /// in the session's own stream) when the write completes a registration: one write for both,
    /// all or nothing.
    private func write(_ events: [LedgerEvent], expected: ExpectedVersion, terms: AppendTerms, stream registration: String) throws {
        var parts = [StreamAppend(events, to: StreamCategory.registration.stream(registration), expected: expected)]
        let session = terms.firstSession.flatMap(newSession(uid:))
        if let session { parts.append(session.part) }
        try failpoints.append(parts, to: store, condition: terms.uniqueEmail ? .uniqueEmails : nil, flush: beforeCrash)
        if let session { started = session.started }
        events.forEach { failpoints.afterAppending($0.type, flush: beforeCrash) }
        if session != nil { failpoints.afterAppending(.sessionStarted, flush: beforeCrash) }
    }

    // MARK: - Session and results

    /// The first session of account `uid`, unless the `SessionStarted` failpoint refuses it (an
    /// injected error: registered, but not signed in).
    private func newSession(uid: String) -> (part: StreamAppend, started: SessionService.Started)? {
        guard started == nil, (try? failpoints.beforeAppending(.sessionStarted)) != nil else { return nil }
        return SessionService.newSession(uid: uid, clock: clock, random: random)
    }

    func result(_ state: RegistrationState) -> RegistrationResult {
        RegistrationResult(registration: state.registration, outcome: state.outcome,
                           uid: state.outcome == .completed ? state.uid : nil,
                           profileImageName: state.outcome == .completed ? state.imageName : nil,
                           failure: state.failure)
    }

    func newID() -> String { Identifiers.uuid(fromRandom: random.bytes(16)) }
}
