// MARK: - RegistrationSaga

/// The registration saga as a table: the folded state and the run give a `Phase`, each phase one
/// next `Action`; the coordinator performs it, and `decide` turns the action's outcome into the
/// events to append (see RegistrationSaga+Decide.swift).
///
/// With an image, the blob is written *first*, before anything is created: no event owns it until
/// `ImageStored` is durable, so the account, the image and the profile can then be appended as one
/// batch. A blob that no durable `ImageStored` owns is never part of a registration: when the
/// registration fails before that, the coordinator discards it (`discardImage`), and when its
/// process dies, `ledger recover` removes it as an orphan file.
public enum RegistrationSaga {
    /// Where a registration's run stands: the step it is at, the undos left, or its end.
    public enum Phase: Equatable, Sendable {
        /// The plan has an image and no blob is written yet.
        case writingImage
        /// Nothing is created yet.
        case creatingAccount
        /// The account is created and the written blob is not recorded yet.
        case recordingImage
        /// The account (and image) exist; the profile is not written yet.
        case writingProfile
        /// A step failed: what is left to undo, in order (never empty).
        case compensating([Undo])
        /// Nothing left to do.
        case done(RegistrationState.Outcome)
    }

    /// One thing a failed registration must undo.
    public enum Undo: Equatable, Sendable {
        /// Remove the recorded image, then record `ImageDeleted`.
        case image(uid: String, imageName: String)
        /// Record `AccountDeleted`.
        case account(uid: String)
        /// Remove the blob this run wrote that no event owns; nothing records it.
        case unrecordedImage(imageName: String)
    }

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

    /// The phase of `state`. `withImage` says whether the plan includes an image step;
    /// `writtenImage` names the blob this run has written, if any (always nil in `ledger recover`,
    /// which never writes one). The phase is derived from the folded facts, never stored beside
    /// them, so the saga and the registrations view cannot disagree about a registration.
    public static func phase(_ state: RegistrationState, withImage: Bool, writtenImage: String? = nil) -> Phase {
        if state.failure != nil {
            var undos: [Undo] = []
            if state.imageLive, let uid = state.uid, let image = state.imageName { undos.append(.image(uid: uid, imageName: image)) }
            if state.accountLive, let uid = state.uid { undos.append(.account(uid: uid)) }
            if let written = writtenImage, state.imageName != written { undos.append(.unrecordedImage(imageName: written)) }
            return undos.isEmpty ? .done(state.outcome) : .compensating(undos)
        }
        if withImage && state.imageName == nil && writtenImage == nil { return .writingImage }
        if state.uid == nil { return .creatingAccount }
        if withImage && state.imageName == nil { return .recordingImage }
        if !state.profileWritten { return .writingProfile }
        return .done(.completed)
    }

    /// The action of `phase`.
    public static func nextAction(_ phase: Phase) -> Action {
        switch phase {
        case .writingImage: .writeImage
        case .creatingAccount: .createAccount
        case .recordingImage: .recordImage
        case .writingProfile: .writeProfile
        case .compensating(let undos):
            switch undos[0] {
            case .image(let uid, let imageName): .undoImage(uid: uid, imageName: imageName)
            case .account(let uid): .undoAccount(uid: uid)
            case .unrecordedImage(let imageName): .discardImage(imageName: imageName)
            }
        case .done(let outcome): .finish(outcome)
        }
    }

    /// The next action for `state` (the action of its phase).
    public static func nextAction(_ state: RegistrationState, withImage: Bool, writtenImage: String? = nil) -> Action {
        nextAction(phase(state, withImage: withImage, writtenImage: writtenImage))
    }
}
