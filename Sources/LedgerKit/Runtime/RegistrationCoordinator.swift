import LedgerDomain

// MARK: - Results

/// What a registration ended as, for the CLI to print.
public struct RegistrationResult: Equatable, Sendable {
    /// The registration id.
    public var registration: String
    /// The outcome.
    public var outcome: RegistrationState.Outcome
    /// The account (when completed).
    public var uid: String?
    /// The profile image (nil for the default image).
    public var profileImageName: String?
    /// The session started for the new user, if any.
    public var sessionId: String?
    /// The session token, shown once (nil when replayed or when no session could start).
    public var token: String?
    /// For failures: the step, reason and message.
    public var failure: Failed?
    /// True when an earlier attempt with the same idempotency key answered.
    public var replayed = false
}

// MARK: - RegistrationCoordinator

/// The imperative shell of the registration saga: it asks `RegistrationSaga.nextAction`, performs
/// the action (store, blob folder), appends the outcome as an event, and asks again.
/// `recover` runs the same loop from the state folded out of the log.
public final class RegistrationCoordinator {
    let store: any LedgerStore
    let blobs: any BlobStore
    let directory: String
    let clock: any Clock
    let random: any RandomSource
    let hasher: PasswordHasher
    let failpoints: Failpoints
    let locks: any RegistrationLocks
    /// Events decided but not appended yet: the steps that touch nothing outside the log are appended
    /// together, in one durable write, before the next outside effect (a blob) or at the end.
    private var staged = StagedEvents()
    /// The blob this run wrote and still holds (never set by `recover`, which writes none). Until the
    /// batch with its `ImageStored` is durable no event owns it; a failure before that discards it.
    private var writtenImage: String?
    /// Called before a failpoint kills the process (flush output).
    public var beforeCrash: () -> Void = {}
    /// The account a first session is for, appended in the batch that completes the registration
    /// (set by `register`, never by `recover`); then the session that batch started.
    private var session: (uid: String, started: SessionService.Started?)?

    /// A coordinator over the data directory's store and blob folder; `locks` defaults to lock files under `directory`.
    public init(store: any LedgerStore, blobs: any BlobStore, directory: String, clock: any Clock, random: any RandomSource,
                hasher: PasswordHasher, failpoints: Failpoints, locks: (any RegistrationLocks)? = nil) {
        self.store = store; self.blobs = blobs; self.directory = directory; self.clock = clock
        self.random = random; self.hasher = hasher; self.failpoints = failpoints
        self.locks = locks ?? FileRegistrationLocks(directory: directory)
    }

    /// The plan of one registration: what the steps write.
    struct Plan {
        let valid: ValidRegistration
        let uid: String
        let imageName: String?
        let passwordHash: String
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
            throw StoreError(.conditionFailed, "registration \(registration) is running in another process", reason: "in-progress")
        }
        defer { lock.release() }
        if idempotencyKey != nil, let earlier = try earlierResult(stream, registration, input) { return earlier }
        var state = RegistrationState(registration: registration)

        let valid: ValidRegistration
        switch RegistrationValidator.validate(input) {
        case .failure(let refused):
            let failed = Failed(step: .validation, reason: refused.reason, message: refused.message, email: refused.email)
            try append(.failed(failed), to: &state)
            return result(state)
        case .success(let ok):
            valid = ok
        }
        let imageName = valid.image == nil ? nil : newID()
        // Noted before the blob is written, so `recover` and `audit` leave it alone while this runs.
        if let imageName { try lock.noteImage(imageName) }
        try blobs.prepare()
        let plan = Plan(valid: valid, uid: newID(), imageName: imageName, passwordHash: try hasher.hash(valid.password, random: random))
        session = (plan.uid, nil)
        defer { session = nil }
        try drive(&state, plan: plan)
        var outcome = result(state)
        if state.outcome == .completed, let started = session?.started {
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

    /// Performs actions until the saga finishes or a compensation step fails (compensation-pending).
    /// Events of steps with no outside effect are staged and appended together before the next blob
    /// operation and at the end: a registration is one durable write, with an image too (its blob is
    /// written before the account, so nothing outside the log happens between the account and the profile).
    func drive(_ state: inout RegistrationState, plan: Plan?) throws {
        staged = StagedEvents()
        writtenImage = nil
        defer { staged = StagedEvents(); writtenImage = nil }  // a throw leaves nothing staged: it was never acknowledged
        // Every way out of the steps appends what they staged; a refused append stages a failure to go on from.
        repeat { try steps(&state, plan: plan) } while try !flush(&state, email: plan?.valid.email)
    }

    /// The saga loop: performs actions until the saga finishes or a compensation step fails.
    private func steps(_ state: inout RegistrationState, plan: Plan?) throws {
        while true {
            let action = RegistrationSaga.nextAction(state, withImage: plan.map { $0.imageName != nil } ?? state.withImage,
                                                     writtenImage: writtenImage)
            switch action {
            case .writeImage, .undoImage, .discardImage, .finish:
                // Outside effects and the end need what was decided so far on disk first.
                if try !flush(&state, email: plan?.valid.email) { continue }
            default:
                break
            }
            switch action {
            case .writeImage:
                guard let plan, let imageName = plan.imageName, let image = plan.valid.image else { return }
                try step(.image, email: plan.valid.email, &state) { (_: inout RegistrationState) throws in
                    try failpoints.beforeAppending(.imageStored)
                    do {
                        try blobs.put(imageName, image.bytes)
                    } catch {
                        try? blobs.remove(imageName)  // e.g. renamed but its folder not synced; else `recover` removes it
                        throw error
                    }
                    writtenImage = imageName
                }
            case .createAccount:
                guard let plan else { return }
                let created = AccountCreated(uid: plan.uid, email: plan.valid.email, passwordHash: plan.passwordHash,
                                             withImage: plan.imageName != nil)
                try step(.account, email: plan.valid.email, &state) { (state: inout RegistrationState) throws in
                    try failpoints.beforeAppending(.accountCreated)
                    try append(.accountCreated(created), to: &state, condition: .uniqueEmails, stage: true)
                }
            case .recordImage:
                guard let plan, let imageName = plan.imageName, let image = plan.valid.image else { return }
                let stored = ImageStored(uid: plan.uid, imageName: imageName, contentType: image.contentType,
                                         bytes: image.bytes.count, sha256: SHA256.hex(image.bytes))
                try append(.imageStored(stored), to: &state, stage: true)
            case .writeProfile:
                guard let plan else { return }
                try step(.profile, email: plan.valid.email, &state) { (state: inout RegistrationState) throws in
                    try failpoints.beforeAppending(.profileWritten)
                    let profile = ProfileWritten(uid: plan.uid, email: plan.valid.email, userName: plan.valid.userName,
                                                 profileImageName: plan.imageName, createdAt: clock.now())
                    try append(.profileWritten(profile), to: &state, stage: true)
                }
            case .undoImage(let uid, let imageName):
                do {
                    try failpoints.beforeAppending(.imageDeleted)
                    try blobs.remove(imageName)
                    try append(.imageDeleted(ImageDeleted(uid: uid, imageName: imageName)), to: &state)
                } catch let error as StoreError where error.code == .notDurable {
                    throw error
                } catch {
                    return  // compensation-pending: `ledger recover` finishes it
                }
            case .discardImage(let imageName):
                // No event owns it. If it cannot be removed now, `ledger recover` removes it as an orphan.
                try? blobs.remove(imageName)
                writtenImage = nil
            case .undoAccount(let uid):
                do {
                    try failpoints.beforeAppending(.accountDeleted)
                    try append(.accountDeleted(AccountDeleted(uid: uid)), to: &state, stage: true)
                } catch let error as StoreError where error.code == .notDurable {
                    throw error
                } catch {
                    return
                }
            case .finish:
                return
            }
        }
    }

    /// Runs one forward step; a failure appends `Failed` (email taken, or an I/O error) instead.
    private func step(_ step: RegistrationStep, email: String, _ state: inout RegistrationState,
                      _ body: (inout RegistrationState) throws -> Void) throws {
        do {
            try body(&state)
        } catch let error as StoreError where error.code == .notDurable || error.code == .damaged {
            throw error
        } catch let error as StoreError where error.reason == "email-already-in-use" {
            try append(RegistrationSaga.failure(at: step, reason: "email-already-in-use", message: error.message, state: state, email: email),
                       to: &state, stage: true)
        } catch {
            try append(RegistrationSaga.failure(at: step, reason: "io-error", message: "\(error)", state: state, email: email), to: &state, stage: true)
        }
    }

    /// Adds one event to the registration: staged (folded provisionally, appended at the next flush)
    /// when `stage`, else appended at once together with whatever is staged.
    func append(_ event: LedgerEvent, to state: inout RegistrationState, condition: AppendCondition? = nil,
                stage: Bool = false) throws {
        staged.add(event, condition: condition, before: state)
        state.evolve(RecordedEvent(envelope: Envelope(seq: 0, id: "", at: clock.now(), type: event.type.rawValue, v: event.type.currentVersion,
                                                      stream: "", data: event.data, prev: "", hash: ""), event: event))
        if !stage { try flushOrThrow(&state) }
    }

    /// Appends the staged events in one durable write; true when they were. When the store refuses
    /// them (the email is taken, an I/O error), none of them happened: the state goes back to before
    /// them, the failure of their first step is staged instead, and this returns false (the saga goes on).
    private func flush(_ state: inout RegistrationState, email: String?) throws -> Bool {
        guard staged.before != nil else { return true }
        let step = staged.firstStep
        do {
            try flushOrThrow(&state)
            return true
        } catch let error as StoreError where error.code != .notDurable && error.code != .damaged {
            guard let step else { throw error }
            let taken = error.reason == "email-already-in-use"
            try append(RegistrationSaga.failure(at: step, reason: taken ? "email-already-in-use" : "io-error",
                                                message: taken ? error.message : "\(error)", state: state, email: email), to: &state, stage: true)
            return false
        }
    }

    /// Appends the staged events; on any error the state goes back to before them and the error is thrown.
    /// The batch that completes a registration also starts its first session (`SessionStarted` in
    /// the session's own stream): one durable write for both, all or nothing.
    private func flushOrThrow(_ state: inout RegistrationState) throws {
        guard let before = staged.before else { return }
        let batch = staged
        let stream = StreamCategory.registration.stream(state.registration)
        let expected: ExpectedVersion = before.version == 0 ? .noStream : .exactly(before.version)
        var parts = [StreamAppend(batch.events, to: stream, expected: expected)]
        let started = state.outcome == .completed ? newSession() : nil
        if let started { parts.append(started.part) }
        do {
            let recorded = try store.append(parts, condition: batch.condition)
            staged = StagedEvents()
            state = before
            recorded.filter { $0.stream == stream }.forEach { state.evolve($0) }
        } catch {
            staged = StagedEvents()  // none of them happened
            state = before
            throw error
        }
        if let started { session?.started = started.started }
        batch.events.forEach { failpoints.afterAppending($0.type, flush: beforeCrash) }
        if started != nil { failpoints.afterAppending(.sessionStarted, flush: beforeCrash) }
    }

    // MARK: - Session and results

    /// The first session of the account being registered, when `register` wants one and the
    /// `SessionStarted` failpoint lets it (an injected error: registered, but not signed in).
    private func newSession() -> (part: StreamAppend, started: SessionService.Started)? {
        guard let uid = session?.uid, session?.started == nil, (try? failpoints.beforeAppending(.sessionStarted)) != nil else { return nil }
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
