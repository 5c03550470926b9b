// MARK: - RegistrationSaga

/// The registration saga as a pure state machine: given the folded state and the plan, it names
/// the next action; the coordinator performs it, appends the outcome as an event, and asks again.
public enum RegistrationSaga {
    /// What the coordinator must do next.
    public enum Action: Equatable, Sendable {
        /// Append `AccountCreated` (atomically with the email-uniqueness check).
        case createAccount
        /// Write the image blob durably, then append `ImageStored`.
        case storeImage
        /// Append `ProfileWritten`.
        case writeProfile
        /// Remove the blob, then append `ImageDeleted`.
        case undoImage(uid: String, imageName: String)
        /// Append `AccountDeleted`.
        case undoAccount(uid: String)
        /// Nothing left: the registration is completed, rejected or compensated.
        case finish(RegistrationState.Outcome)
    }

    /// The next action for `state`. `withImage` says whether the plan includes an image step.
    public static func nextAction(_ state: RegistrationState, withImage: Bool) -> Action {
        if state.failure != nil {
            if state.imageLive, let uid = state.uid, let image = state.imageName { return .undoImage(uid: uid, imageName: image) }
            if state.accountLive, let uid = state.uid { return .undoAccount(uid: uid) }
            return .finish(state.outcome)
        }
        if state.uid == nil { return .createAccount }
        if withImage && state.imageName == nil { return .storeImage }
        if !state.profileWritten { return .writeProfile }
        return .finish(.completed)
    }

    /// The event that records a step's failure.
    public static func failure(at step: RegistrationStep, reason: String, message: String, state: RegistrationState,
                               email: String? = nil) -> LedgerEvent {
        .failed(Failed(step: step, reason: reason, message: message, email: state.email ?? email, uid: state.uid))
    }
}
