// MARK: - Deciding the events

extension RegistrationSaga {
    /// What performing an action came to, as the coordinator reports it (it reads errors once,
    /// into these cases; errors that leave the log in doubt end the run instead).
    public enum StepOutcome: Equatable, Sendable {
        /// The action's effect happened, or its events were appended.
        case done
        /// An append condition refused the action's events.
        case refused(ConditionFailure, message: String)
        /// The action failed (an I/O error, an injected failpoint).
        case failed(message: String)
    }

    /// What to do with an action's outcome.
    public enum Decision: Equatable, Sendable {
        /// The action happened: append these events (none for an effect that no event records), on
        /// these terms (the email check, the first session).
        case record([LedgerEvent], AppendTerms = AppendTerms())
        /// A forward step failed: append this `Failed`, then compensate.
        case fail(LedgerEvent)
        /// A compensation failed: stop; the registration stays compensation-pending for `ledger recover`.
        case stop
    }

    /// The events for `action`'s `outcome` in `state`, and the terms of their write. `plan` is what
    /// the forward steps record (nil in `ledger recover`, which only compensates); `now` stamps the
    /// profile's creation. The account's creation is checked against the live accounts' emails; the
    /// profile that completes a registration starts its first session in the same write.
    public static func decide(_ action: Action, _ outcome: StepOutcome, state: RegistrationState, plan: RegistrationPlan?,
                              at now: Timestamp) -> Decision {
        switch action {
        case .writeImage, .createAccount, .recordImage, .writeProfile:
            guard let plan, let step = action.step else { return .stop }
            switch outcome {
            case .done: return .record(forwardEvents(action, plan: plan, at: now), terms(of: action, plan: plan))
            case .refused(let condition, let message):
                return .fail(failure(at: step, reason: condition.rawValue, message: message, state: state, email: plan.email))
            case .failed(let message):
                return .fail(failure(at: step, reason: "io-error", message: message, state: state, email: plan.email))
            }
        case .undoImage(let uid, let imageName):
            return outcome == .done ? .record([.imageDeleted(ImageDeleted(uid: uid, imageName: imageName))]) : .stop
        case .undoAccount(let uid):
            return outcome == .done ? .record([.accountDeleted(AccountDeleted(uid: uid))]) : .stop
        case .discardImage, .finish:
            return .record([])
        }
    }

    /// The events that record a forward step done (none for the blob: `ImageStored` records it later).
    private static func forwardEvents(_ action: Action, plan: RegistrationPlan, at now: Timestamp) -> [LedgerEvent] {
        switch action {
        case .createAccount:
            [.accountCreated(AccountCreated(uid: plan.uid, email: plan.email, passwordHash: plan.passwordHash, withImage: plan.image != nil))]
        case .recordImage:
            plan.image.map { [.imageStored($0)] } ?? []
        case .writeProfile:
            [.profileWritten(ProfileWritten(uid: plan.uid, email: plan.email, userName: plan.userName,
                                            profileImageName: plan.image?.imageName, createdAt: now))]
        case .writeImage, .undoImage, .undoAccount, .discardImage, .finish:
            []
        }
    }

    /// The terms of a forward step's write: the email check for the account's creation, the first
    /// session with the profile that completes the registration.
    private static func terms(of action: Action, plan: RegistrationPlan) -> AppendTerms {
        switch action {
        case .createAccount: AppendTerms(uniqueEmail: true)
        case .writeProfile: AppendTerms(firstSession: plan.uid)
        case .writeImage, .recordImage, .undoImage, .undoAccount, .discardImage, .finish: AppendTerms()
        }
    }

    /// The event that records a step's failure.
    public static func failure(at step: RegistrationStep, reason: String, message: String, state: RegistrationState,
                               email: String? = nil) -> LedgerEvent {
        .failed(Failed(step: step, reason: reason, message: message, email: state.email ?? email, uid: state.uid))
    }

    /// The `Failed(interrupted)` that `ledger recover` appends for a registration whose process died.
    public static func interrupted(_ state: RegistrationState) -> LedgerEvent {
        let message = "the process running this registration died before step \(state.nextStep.rawValue)"
        return failure(at: state.nextStep, reason: "interrupted", message: message, state: state)
    }

    /// The `Failed(validation)` of an input the validator refused.
    public static func rejected(_ refused: RefusedRegistration) -> LedgerEvent {
        .failed(Failed(step: .validation, reason: refused.reason, message: refused.message, email: refused.email))
    }
}

extension RegistrationSaga.Action {
    /// The forward step this action performs (nil for compensations and the end).
    public var step: RegistrationStep? {
        switch self {
        case .writeImage, .recordImage: .image
        case .createAccount: .account
        case .writeProfile: .profile
        case .undoImage, .undoAccount, .discardImage, .finish: nil
        }
    }

    /// True for an action that touches the blob folder: what was decided before it is appended
    /// first, and what it decides is appended at once.
    public var touchesBlobs: Bool {
        switch self {
        case .writeImage, .undoImage, .discardImage: true
        case .createAccount, .recordImage, .writeProfile, .undoAccount, .finish: false
        }
    }

    /// True when what was decided before this action must be durable first: before the blob folder
    /// is touched, and at the end.
    public var needsDurableLog: Bool {
        if case .finish = self { return true }
        return touchesBlobs
    }

    /// True when a refused append of this action's events is this action's outcome (a forward step
    /// records its failure; the image undo leaves the registration compensation-pending); for the
    /// others (a `Failed`, `AccountDeleted`) the refusal ends the run with the store's error.
    public var outcomeOfRefusedAppend: Bool {
        switch self {
        case .writeImage, .createAccount, .recordImage, .writeProfile, .undoImage: true
        case .undoAccount, .discardImage, .finish: false
        }
    }
}
