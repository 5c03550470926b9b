// MARK: - RegistrationSaga

/// The registration saga as a pure state machine: given the folded state and the plan, it names
/// the next action; the coordinator performs it, appends the outcome as an event, and asks again.
///
/// With an image, the blob is written *first*, before anything is created: no event owns it until
/// `ImageStored` is durable, so the account, the image and the profile can then be appended as one
/// batch. A blob that no durable `ImageStored` owns is never part of a registration: when the
/// registration fails before that, the coordinator discards it (`discardImage`), and when its
/// process dies, `ledger recover` removes it as an orphan file.
public enum RegistrationSaga {
    /// What the coordinator must do next.
    public enum Action: Equatable, Sendable {
        /// Write the image blob durably; no event records it (the registration's lock notes its name).
        case writeImage
        /// Append `AccountCreated` (atomically with the email-uniqueness check).
        case createAccount
        /// Append `ImageStored` for the blob already written.
        case recordImage
        /// Append `ProfileWritten`.
        case writeProfile
        /// Remove the blob, then append `ImageDeleted`.
        case undoImage(uid: String, imageName: String)
        /// Append `AccountDeleted`.
        case undoAccount(uid: String)
        /// Remove a blob that this run wrote and that no event owns (the registration failed before
        /// its `ImageStored` was appended); no event records the removal.
        case discardImage(imageName: String)
        /// Nothing left: the registration is completed, rejected or compensated.
        case finish(RegistrationState.Outcome)
    }

    /// The next action for `state`. `withImage` says whether the plan includes an image step;
    /// `writtenImage` names the blob this run has written, if any (always nil in `ledger recover`,
    /// which never writes one).
    public static func nextAction(_ state: RegistrationState, withImage: Bool, writtenImage: String? = nil) -> Action {
        if state.failure != nil {
            if state.imageLive, let uid = state.uid, let image = state.imageName { return .undoImage(uid: uid, imageName: image) }
            if state.accountLive, let uid = state.uid { return .undoAccount(uid: uid) }
            if let written = writtenImage, state.imageName != written { return .discardImage(imageName: written) }
            return .finish(state.outcome)
        }
        if withImage && state.imageName == nil && writtenImage == nil { return .writeImage }
        if state.uid == nil { return .createAccount }
        if withImage && state.imageName == nil { return .recordImage }
        if !state.profileWritten { return .writeProfile }
        return .finish(.completed)
    }

    /// The event that records a step's failure.
    public static func failure(at step: RegistrationStep, reason: String, message: String, state: RegistrationState,
                               email: String? = nil) -> LedgerEvent {
        .failed(Failed(step: step, reason: reason, message: message, email: state.email ?? email, uid: state.uid))
    }
}
